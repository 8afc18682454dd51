import { plannedRun, type RetrievalStateValue } from "../graph/state.js";
import { timed } from "../graph/timing.js";
import type { ViewHitList } from "../domain/hits.js";
import { fuseRankedLists } from "../retrieval/fusion.js";
import { separationEvidence, type SeparationRamp } from "../retrieval/list-evidence.js";

/**
 * Fuses every view's ranked lists of every round so far into one de-duplicated ranking. A symbolic
 * list filtered by a time window ("last week") is weighted by timeWindowWeight: neither BM25 nor
 * dense similarity can tell when something happened, so there the symbolic view is the authority.
 * A dense list earns its weight by its own evidence (denseSeparation): the first of a weak
 * embedder's neighbours, when it scores like the rest, is no better a guess than the tenth.
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
          evidence: denseEvidence(settings.denseSeparation),
        }),
      };
    });
}

/** Dense lists are weighed by how far their first score stands out; BM25 and filter lists keep their weight. */
function denseEvidence(ramp: SeparationRamp): (list: ViewHitList) => number {
  return (list) => (list.view === "semantic" ? separationEvidence(list.hits.map((hit) => hit.score), ramp) : 1);
}
