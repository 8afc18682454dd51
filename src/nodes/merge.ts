import { plannedRun, type RetrievalStateValue } from "../graph/state.js";
import type { RunSettings } from "../graph/run-settings.js";
import type { Plan } from "../domain/plan.js";
import type { ViewName } from "../domain/views.js";
import { timed } from "../graph/timing.js";
import type { ViewHitList } from "../domain/hits.js";
import { fuseRankedLists } from "../retrieval/fusion.js";
import { lengthEvidence, separationEvidence, type SeparationRamp } from "../retrieval/list-evidence.js";

/**
 * Fuses every view's ranked lists of every round so far into one de-duplicated ranking, each view
 * weighted for this question (viewWeightsFor). A dense list earns its weight by its own evidence
 * (denseSeparation): the first of a weak embedder's neighbours, when it scores like the rest, is no
 * better a guess than the tenth; and by the length of its hits (denseTextWords, from the embedder's
 * profile): over documents longer than a sentence encoder represents, its neighbours are averages.
 */
export function mergeNode() {
  return async (state: RetrievalStateValue) =>
    timed("merge", async () => {
      const { plan, settings } = plannedRun(state);
      return {
        fused: fuseRankedLists(state.viewHits, {
          method: settings.fusion,
          rrfK: settings.rrfK,
          weights: viewWeightsFor(plan, settings),
          roundWeight: settings.reflectionRoundWeight,
          evidence: denseEvidence(settings.denseSeparation, settings.denseTextWords, (key) => state.entries[key]?.text),
        }),
      };
    });
}

/**
 * The symbolic view's weight follows what its conditions can check that words cannot. A time window
 * ("last week"): neither BM25 nor dense similarity can tell when something happened, so there it is
 * the authority (timeWindowWeight). Entities alone, beside the lexical view: an entity is a word of
 * the memories it names, so the list (those memories ranked by the question's words) is BM25 again
 * over memories the lexical view already ranks by the same words, and would count them twice; it
 * gets no vote (SciFact: 0.665 -> 0.685 nDCG@10; LoCoMo's questions, which name speakers, unchanged).
 * A person (a speaker is not among the words said) or a place keeps the configured weight.
 */
export function viewWeightsFor(plan: Plan, settings: RunSettings): Record<ViewName, number> {
  if (plan.timeWindow !== undefined) return { ...settings.viewWeights, symbolic: settings.timeWindowWeight };
  const wordsOnly = plan.persons.length === 0 && plan.locations.length === 0 && settings.views.includes("lexical");
  return wordsOnly ? { ...settings.viewWeights, symbolic: 0 } : settings.viewWeights;
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
