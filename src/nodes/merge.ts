import { plannedRun, type RetrievalStateValue } from "../graph/state.js";
import { timed } from "../graph/timing.js";
import { fuseRankedLists } from "../retrieval/fusion.js";

/**
 * Fuses every view's ranked lists of every round so far into one de-duplicated ranking. A symbolic
 * list filtered by a time window ("last week") is weighted by timeWindowWeight: neither BM25 nor
 * dense similarity can tell when something happened, so there the symbolic view is the authority.
 */
export function mergeNode() {
  return async (state: RetrievalStateValue) =>
    timed("merge", async () => {
      const { plan, settings } = plannedRun(state);
      const timeScoped = plan.timeWindow !== undefined;
      const weights = timeScoped ? { ...settings.viewWeights, symbolic: settings.timeWindowWeight } : settings.viewWeights;
      return {
        fused: fuseRankedLists(state.viewHits, {
          method: settings.fusion,
          rrfK: settings.rrfK,
          weights,
          roundWeight: settings.reflectionRoundWeight,
        }),
      };
    });
}
