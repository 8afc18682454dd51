import { plannedRun, type RetrievalStateValue } from "../graph/state.js";
import type { RunSettings } from "../graph/run-settings.js";
import type { Plan } from "../domain/plan.js";
import type { ViewName } from "../domain/views.js";
import { timed } from "../graph/timing.js";
import type { ViewHitList } from "../domain/hits.js";
import { fuseRankedLists } from "../retrieval/fusion.js";
import { overLongTexts, separationEvidence } from "../retrieval/list-evidence.js";
import type { SeparationRamp } from "../text/embedders/profiles.js";

/**
 * Fuses every view's ranked lists of every round so far into one de-duplicated ranking, each view
 * weighted for this question (viewWeightsFor). A dense list earns its weight by its own evidence
 * (denseSeparation): the first of a weak embedder's neighbours, when it scores like the rest, is no
 * better a guess than the tenth. Ranked lists over texts longer than the embedder represents as one
 * (longTextWords, from its profile) vote by their scores (votesByScore).
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
          evidence: denseEvidence(settings.denseSeparation),
          votesByScore: votesByScore(settings.longTextWords, (key) => state.entries[key]?.text),
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

/** Dense lists are weighed by how far their first score stands out; BM25 and filter lists keep their weight. */
function denseEvidence(ramp: SeparationRamp): (list: ViewHitList) => number {
  return (list) => (list.view === "semantic" ? separationEvidence(list.hits.map((hit) => hit.score), ramp) : 1);
}

/**
 * The semantic and lexical lists whose first hits are mostly longer than `maxWords` vote by their
 * scores (list-evidence.ts, overLongTexts); a symbolic list's scores come from two orderings (words,
 * then similarity) and are not comparable along it. No limit known: every list votes by position.
 */
export function votesByScore(maxWords: number | undefined, textOf: (key: string) => string | undefined): (list: ViewHitList) => boolean {
  return (list) => maxWords !== undefined && list.view !== "symbolic" && overLongTexts(list.hits.map((hit) => textOf(hit.key)), maxWords);
}
