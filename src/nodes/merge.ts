import { plannedRun, type RetrievalStateValue } from "../graph/state.js";
import type { RunSettings } from "../graph/run-settings.js";
import { VIEWS, type ViewRegistry } from "../graph/views.js";
import type { ViewName } from "../domain/views.js";
import { timed } from "../runtime/timing.js";
import type { ViewHitList } from "../domain/hits.js";
import { fuseRankedLists } from "../retrieval/fusion.js";
import { overLongTexts, spokenHits } from "../retrieval/list-evidence.js";
import { ownSettings, type AnyView, type QuestionWeighing } from "./view-definition.js";

/**
 * Fuses every view's ranked lists of every round so far into one de-duplicated ranking, each view
 * weighted for this question by its own rule (from the plan, and whether the first round found a
 * conversation's messages or documents), each list scaled by the evidence its view reads in its
 * scores. Ranked lists over texts longer than the embedder represents as one (longTextWords, from its
 * profile) vote by their scores where their view says so (votesByScore).
 */
export function mergeNode(views: ViewRegistry = VIEWS) {
  const byName = new Map(views.map((view) => [view.name, view]));
  return async (state: RetrievalStateValue) =>
    timed("merge", async () => {
      const { plan, settings } = plannedRun(state);
      const question: QuestionWeighing = { plan, views: settings.views, spoken: spokenHits(state.viewHits, (key) => state.entries[key]?.speaker) };
      return {
        fused: fuseRankedLists(state.viewHits, {
          method: settings.fusion,
          rrfK: settings.rrfK,
          weights: viewWeightsFor(question, settings, views),
          roundWeight: settings.reflectionRoundWeight,
          evidence: (list) => {
            const view = byName.get(list.view);
            return view?.evidence?.(list, ownSettings(view, settings)) ?? 1;
          },
          votesByScore: votesByScore(settings.longTextWords, (key) => state.entries[key]?.text, views),
        }),
      };
    });
}

/** Every view's weight for this question, in the registry's order: the run's, or what the view's own rule makes of it. */
function viewWeightsFor(question: QuestionWeighing, settings: RunSettings, views: ViewRegistry): Record<ViewName, number> {
  const weights: Readonly<Record<ViewName, number>> = settings.viewWeights;
  const weightOf = (view: AnyView) => {
    const weight = weights[view.name] ?? 0;
    return view.weightFor ? view.weightFor(question, weight, ownSettings(view, settings)) : weight;
  };
  return Object.fromEntries(views.map((view) => [view.name, weightOf(view)]));
}

/**
 * The lists of the views that say so whose first hits are mostly longer than `maxWords` vote by their
 * scores (list-evidence.ts, overLongTexts). No limit known: every list votes by position.
 */
export function votesByScore(
  maxWords: number | undefined,
  textOf: (key: string) => string | undefined,
  views: ViewRegistry = VIEWS,
): (list: ViewHitList) => boolean {
  const byScore = new Set(views.filter((view) => view.votesByScore).map((view) => view.name));
  return (list) => maxWords !== undefined && byScore.has(list.view) && overLongTexts(list.hits.map((hit) => textOf(hit.key)), maxWords);
}
