import type { RunnableConfig } from "@langchain/core/runnables";
import type { MemoryEntry } from "../memory/entry.js";
import { searchesAgain } from "../reflection/coverage.js";
import { judgeCoverage } from "../reflection/judge.js";
import type { GraphDependencies } from "../graph/dependencies.js";
import { plannedRun, type RetrievalStateValue } from "../graph/state.js";
import { timed } from "../graph/timing.js";

/**
 * Judges whether the current top results cover what the plan said was needed and, if not, writes
 * gap queries for another round (see reflection/judge.ts for who judges). The round cap is held here:
 * at the cap nothing more is asked, and the graph goes on to finalize.
 */
export function reflectNode(dependencies: () => Promise<GraphDependencies>) {
  return async (state: RetrievalStateValue, config?: RunnableConfig) =>
    timed("reflect", async () => {
      const { plan, settings } = plannedRun(state);
      const { model } = await dependencies();
      const top = state.fused
        .slice(0, settings.finalK)
        .map((hit) => state.entries[hit.key])
        .filter((entry): entry is MemoryEntry => entry !== undefined);
      const asked = new Set(state.viewHits.filter((list) => list.round > 0).map((list) => list.query));
      const { coverage, llmCalls, degraded } = await judgeCoverage(
        { question: state.question, plan, top, asked },
        {
          reflection: settings.reflection,
          roundsLeft: state.round < settings.maxReflectionRounds,
          maxGapQueries: settings.maxGapQueries,
          model,
          timeoutMs: settings.llmTimeoutMs,
          signal: config?.signal,
        },
      );
      return { coverage, round: searchesAgain(coverage) ? state.round + 1 : state.round, llmCalls, degraded };
    });
}
