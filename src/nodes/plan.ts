import type { RunnableConfig } from "@langchain/core/runnables";
import { Overwrite } from "@langchain/langgraph";
import { parseOrThrow } from "../core/errors.js";
import { planQuestion } from "../planning/planner.js";
import { bothFilters, toMemoryFilter } from "../stores/caller-filter.js";
import type { MemoryFilter, MemoryStore, Vocabulary } from "../stores/port.js";
import { RETRIEVAL_CONFIGURATION, type RetrievalConfiguration } from "../graph/configuration.js";
import type { GraphDependencies, NamespaceGuard } from "../runtime/dependencies.js";
import { widestSettings, type RunSettings } from "../graph/run-settings.js";
import { embedderProfileFor } from "../text/embedders/profiles.js";
import { DeadlineError, deadlineFrom, halfwayTo, withDeadlineSignal, withinDeadline, type RunDeadline } from "../runtime/deadline.js";
import type { Degradation } from "../domain/run-account.js";
import { RetrievalInputSchema, type RetrievalInput, type RetrievalStateValue } from "../graph/state.js";
import { timed } from "../runtime/timing.js";

/**
 * First node: validates the input, starts the run's accumulators afresh (a reused thread keeps
 * nothing from its previous run), refuses namespaces the caller may not read (the server's guard),
 * resolves the run's settings once and plans the question (see
 * planning/planner.ts for who plans). The run's deadline starts here: its moment goes into the
 * settings, and the store reads and the model's plan made here already count against it.
 */
export function planNode(dependencies: () => Promise<GraphDependencies>, guard?: NamespaceGuard, retrieval: Pick<RetrievalConfiguration, "views" | "resolve"> = RETRIEVAL_CONFIGURATION) {
  return async (state: RetrievalStateValue, config?: RunnableConfig) =>
    timed("plan", async () => {
      const input = parseOrThrow(
        RetrievalInputSchema,
        { question: state.question, namespaces: state.namespaces, now: state.now ?? undefined, asOf: state.asOf ?? undefined, filter: state.filter ?? undefined },
        "input",
      );
      const namespaces = [...new Set(input.namespaces)];
      guard?.({ namespaces, mode: "read" }, config);
      const configuration = retrieval.resolve(config);
      const deadline = deadlineFrom(configuration.deadlineMs);
      const { store, model, embedder } = await dependencies();
      const profile = embedderProfileFor(embedder.spec);
      // As of a time, relative expressions ("last week") are read from then, unless the caller says otherwise.
      const referenceMs = input.now ?? input.asOf ?? Date.now();
      const known = await namespaceKnowledge(store, namespaces, configuration.planning, deadline);
      // A hung model may take half the time left, no more: the rules stand in for a plan, nothing stands in for the searches.
      const { plan, llmCalls, degraded } = await withDeadlineSignal(
        halfwayTo(deadline),
        (signal) =>
          planQuestion(
            input.question,
            {
              vocabulary: known.vocabulary,
              now: referenceMs,
              timeZone: configuration.timeZone,
              maxSubQueries: configuration.maxSubQueries,
              clauseQueries: profile.clauseQueries ?? false,
            },
            { planning: configuration.planning, model, timeoutMs: configuration.llmTimeoutMs, retries: configuration.llmRetries, signal },
          ),
        config?.signal,
      );
      return {
        ...freshRun(input, namespaces, referenceMs),
        queryPlan: plan,
        settings: { ...(widestSettings(configuration, known.settings, profile, retrieval.views) as RunSettings), deadlineAt: deadline.at },
        degraded: new Overwrite([...known.late, ...degraded]),
        llmCalls: new Overwrite(llmCalls),
      };
    });
}

/** What the asked namespaces hold that the plan reads: their stored settings and, when a planner runs, their known names. */
async function namespaceKnowledge(store: MemoryStore, namespaces: readonly string[], planning: boolean, deadline: RunDeadline) {
  const late: Degradation[] = [];
  const settings = await orWhenLate(deadline, late, "namespace settings", [], () => Promise.all(namespaces.map((ns) => store.getSettings(ns))));
  // Only a planner reads the known names; unplanned presets skip the lookup (on Qdrant, three facet requests).
  const vocabulary = planning ? await orWhenLate(deadline, late, "known names", NO_NAMES, () => knownNames(store, namespaces)) : NO_NAMES;
  return { settings, vocabulary, late };
}

/** The state a run starts from: its question, namespaces and reference times, and every accumulator empty. */
function freshRun(input: RetrievalInput, namespaces: string[], referenceMs: number) {
  return {
    question: input.question,
    namespaces,
    // The input's reference time and filter belong to this run: on a reused thread, a run given none has none.
    now: null,
    asOf: null,
    filter: null,
    referenceMs,
    asOfMs: input.asOf,
    callerFilter: callerFilterOf(input),
    round: 0,
    coverage: undefined,
    beforeOwnWords: undefined,
    account: undefined,
    fused: [],
    results: [],
    viewHits: new Overwrite([]),
    entries: new Overwrite({}),
    nodeMs: new Overwrite({}),
  };
}

const NO_NAMES: Vocabulary = { persons: [], entities: [], locations: [] };

/** The caller's filter in the store's form, held to what was said at or before `asOf` when one is given. */
function callerFilterOf(input: RetrievalInput): MemoryFilter | undefined {
  const asked = input.filter ? toMemoryFilter(input.filter) : undefined;
  if (input.asOf === undefined) return asked;
  // The end of a time range is exclusive: the asOf instant itself is in.
  return bothFilters(asked, { timeRange: { endMs: input.asOf + 1 } });
}

/**
 * A store read the plan can do without, bounded by the deadline: late, it is recorded and `fallback`
 * used (the configuration's own settings, no known names). Other failures still fail the run.
 */
async function orWhenLate<T>(deadline: RunDeadline, late: Degradation[], what: string, fallback: T, read: () => Promise<T>): Promise<T> {
  try {
    return await withinDeadline(deadline, read);
  } catch (error) {
    if (!(error instanceof DeadlineError)) throw error;
    late.push({ step: "plan", error: `${error.message}: ${what} not read` });
    return fallback;
  }
}

/** The names every asked namespace knows, merged. */
async function knownNames(store: MemoryStore, namespaces: readonly string[]): Promise<Vocabulary> {
  const vocabularies = await Promise.all(namespaces.map((ns) => store.vocabulary(ns)));
  const merge = (pick: (v: Vocabulary) => string[]) => [...new Set(vocabularies.flatMap(pick))];
  return { persons: merge((v) => v.persons), entities: merge((v) => v.entities), locations: merge((v) => v.locations) };
}
