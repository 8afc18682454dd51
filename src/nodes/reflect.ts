import type { RunnableConfig } from "@langchain/core/runnables";
import type { MemoryEntry } from "../memory/entry.js";
import { asksOwnWords, searchesAgain, withoutGapQueries } from "../reflection/coverage.js";
import { judgeCoverage } from "../reflection/judge.js";
import type { GraphDependencies } from "../runtime/dependencies.js";
import { plannedRun, type RetrievalStateValue } from "../graph/state.js";
import { timed } from "../runtime/timing.js";
import { deadlineOf, pastDeadline, withDeadlineSignal, type RunDeadline } from "../runtime/deadline.js";
import type { Coverage } from "../domain/coverage.js";
import type { Degradation } from "../domain/run-account.js";

/**
 * Judges whether the current top results cover what the plan said was needed and, if not, writes
 * gap queries for another round (see reflection/judge.ts for who judges). The round cap is held here:
 * at the cap nothing more is asked, and the graph goes on to finalize. So is the run's deadline: past
 * it no round follows (recorded as degraded), and a model judge still thinking is cut off at it.
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
      const deadline = deadlineOf(settings);
      const wouldSearch = settings.reflection && state.round < settings.maxReflectionRounds;
      const judgement = await withDeadlineSignal(
        deadline,
        (signal) =>
          judgeCoverage(
            { question: state.question, plan, top, asked },
            {
              reflection: settings.reflection,
              roundsLeft: wouldSearch && !pastDeadline(deadline),
              maxGapQueries: settings.maxGapQueries,
              model,
              timeoutMs: settings.llmTimeoutMs,
              retries: settings.llmRetries,
              signal,
            },
          ),
        config?.signal,
      );
      const { coverage, degraded } = stoppedAtDeadline(judgement.coverage, judgement.degraded, wouldSearch, deadline);
      const round = searchesAgain(coverage) ? state.round + 1 : state.round;
      return { coverage, round, llmCalls: judgement.llmCalls, degraded, ...readingBeforeOwnWords(state, coverage, settings.finalK) };
    });
}

/**
 * The ranking as it stands before an own-words round, kept for finalize (see finalize's answerOrder):
 * that round lifts the named speaker's words, and a question that named the wrong speaker on purpose
 * ("What did Caroline paint?" when Melanie did) is answered by what the ranking held before it.
 * Only the first such round counts (its query is never asked twice); finalize reads at most twice
 * finalK hits, so no more are kept.
 */
function readingBeforeOwnWords(state: RetrievalStateValue, coverage: Coverage, finalK: number): { beforeOwnWords?: string[] } {
  if (state.beforeOwnWords !== undefined || !asksOwnWords(coverage)) return {};
  return { beforeOwnWords: state.fused.slice(0, finalK * 2).map((hit) => hit.key) };
}

/**
 * Past the deadline no round follows: gap queries a judge wrote in time are dropped (another round's
 * views would only miss the deadline too), and the stop is recorded when a round could have followed.
 */
function stoppedAtDeadline(
  coverage: Coverage,
  degraded: Degradation[],
  wouldSearch: boolean,
  deadline: RunDeadline,
): { coverage: Coverage; degraded: Degradation[] } {
  if (!wouldSearch || !pastDeadline(deadline) || coverage.complete) return { coverage, degraded };
  const stop = { step: "reflect", error: `deadline of ${deadline.ms} ms reached: no more rounds` };
  return { coverage: withoutGapQueries(coverage), degraded: [...degraded, stop] };
}
