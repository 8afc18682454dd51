import type { RunnableConfig } from "@langchain/core/runnables";
import { Overwrite } from "@langchain/langgraph";
import { parseOrThrow } from "../core/errors.js";
import { planQuestion } from "../planning/planner.js";
import { toMemoryFilter } from "../stores/caller-filter.js";
import type { MemoryStore, Vocabulary } from "../stores/port.js";
import { resolveConfiguration } from "../graph/configuration.js";
import type { GraphDependencies, NamespaceGuard } from "../graph/dependencies.js";
import { widestSettings } from "../graph/run-settings.js";
import { RetrievalInputSchema, type RetrievalStateValue } from "../graph/state.js";
import { timed } from "../graph/timing.js";

/**
 * First node: validates the input, starts the run's accumulators afresh (a reused thread keeps
 * nothing from its previous run), refuses namespaces the caller may not read (the server's guard),
 * resolves the run's settings once and plans the question (see
 * planning/planner.ts for who plans).
 */
export function planNode(dependencies: () => Promise<GraphDependencies>, guard?: NamespaceGuard) {
  return async (state: RetrievalStateValue, config?: RunnableConfig) =>
    timed("plan", async () => {
      const input = parseOrThrow(
        RetrievalInputSchema,
        { question: state.question, namespaces: state.namespaces, now: state.now ?? undefined, filter: state.filter ?? undefined },
        "input",
      );
      const namespaces = [...new Set(input.namespaces)];
      guard?.({ namespaces, mode: "read" }, config);
      const configuration = resolveConfiguration(config);
      const { store, model } = await dependencies();
      const now = input.now ? new Date(input.now) : new Date();
      const stored = await Promise.all(namespaces.map((ns) => store.getSettings(ns)));
      // Only a planner reads the known names; unplanned presets skip the lookup (on Qdrant, three facet requests).
      const vocabulary = configuration.planning ? await knownNames(store, namespaces) : { persons: [], entities: [], locations: [] };
      const { plan, llmCalls, degraded } = await planQuestion(
        input.question,
        { vocabulary, now, timeZone: configuration.timeZone, maxSubQueries: configuration.maxSubQueries },
        { planning: configuration.planning, model, timeoutMs: configuration.llmTimeoutMs, signal: config?.signal },
      );
      return {
        question: input.question,
        namespaces,
        // The input's reference time and filter belong to this run: on a reused thread, a run given none has none.
        now: null,
        filter: null,
        referenceTime: now.toISOString(),
        callerFilter: input.filter ? toMemoryFilter(input.filter) : undefined,
        queryPlan: plan,
        settings: widestSettings(configuration, stored),
        round: 0,
        coverage: undefined,
        account: undefined,
        fused: [],
        results: [],
        viewHits: new Overwrite([]),
        entries: new Overwrite({}),
        degraded: new Overwrite(degraded),
        llmCalls: new Overwrite(llmCalls),
        nodeMs: new Overwrite({}),
      };
    });
}

/** The names every asked namespace knows, merged. */
async function knownNames(store: MemoryStore, namespaces: readonly string[]): Promise<Vocabulary> {
  const vocabularies = await Promise.all(namespaces.map((ns) => store.vocabulary(ns)));
  const merge = (pick: (v: Vocabulary) => string[]) => [...new Set(vocabularies.flatMap(pick))];
  return { persons: merge((v) => v.persons), entities: merge((v) => v.entities), locations: merge((v) => v.locations) };
}
