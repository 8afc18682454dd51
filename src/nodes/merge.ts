import { plannedRun, type RetrievalStateValue } from "../graph/state.js";
import { timed } from "../graph/timing.js";
import type { ViewHitList } from "../domain/hits.js";
import { fuseRankedLists } from "../retrieval/fusion.js";
import { lengthEvidence, separationEvidence, type SeparationRamp } from "../retrieval/list-evidence.js";

/**
 * Fuses every view's ranked lists of every round so far into one de-duplicated ranking. A symbolic
 * list filtered by a time window ("last week") is weighted by timeWindowWeight: neither BM25 nor
 * dense similarity can tell when something happened, so there the symbolic view is the authority.
 * A dense list earns its weight by its own evidence (denseSeparation): the first of a weak
 * embedder's neighbours, when it scores like the rest, is no better a guess than the tenth; and by
 * the length of its hits (denseTextWords, from the embedder's profile): over documents longer than a
 * sentence encoder represents, its neighbours are averages.
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
          evidence: denseEvidence(settings.denseSeparation, settings.denseTextWords, (key) => state.entries[key]?.text),
        }),
      };
    });
}

/**
 * Dense lists are weighed by how far their first score stands out, and by how many of their first
 * hits are texts short enough for the embedder to represent; BM25 and filter lists keep their weight.
 */
function denseEvidence(ramp: SeparationRamp, maxWords: number | undefined, textOf: (key: string) => string | undefined): (list: ViewHitList) => number {
  return (list) => {
    if (list.view !== "semantic") return 1;
    const separation = separationEvidence(list.hits.map((hit) => hit.score), ramp);
    return maxWords === undefined ? separation : separation * lengthEvidence(list.hits.map((hit) => textOf(hit.key)), maxWords);
  };
}
