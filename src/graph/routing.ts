import { Send } from "@langchain/langgraph";
import type { GapCondition } from "../domain/coverage.js";
import { searchesAgain } from "../reflection/coverage.js";
import { plannedRun, type RetrievalStateValue, type ViewTask } from "./state.js";
import { VIEWS, type ViewRegistry } from "./views.js";

/** The views of one round, fanned out in parallel with `Send`, each with its own task. */
function viewSends(state: RetrievalStateValue, queries: string[], views: ViewRegistry, gapConditions: Record<string, GapCondition> = {}): Send[] {
  const { plan, settings } = plannedRun(state);
  const searching = new Set(views.filter((view) => state.round === 0 || view.rounds === "every").map((view) => view.name));
  return settings.views
    .filter((view) => searching.has(view))
    .map((view) => {
      const task: ViewTask = {
        view,
        round: state.round,
        question: state.question,
        namespaces: state.namespaces,
        queries,
        plan,
        settings,
        gapConditions,
        callerFilter: state.callerFilter,
        referenceMs: state.referenceMs,
      };
      return new Send(view, task);
    });
}

/** After planning: search with the plan's sub-queries. */
export function routeAfterPlan(state: RetrievalStateValue, views: ViewRegistry = VIEWS): Send[] {
  return viewSends(state, plannedRun(state).plan.subQueries, views);
}

/** After reflection: another round for the gap queries (the judge already held the round cap), or finalize. */
export function routeAfterReflect(state: RetrievalStateValue, views: ViewRegistry = VIEWS): Send[] | "finalize" {
  if (!searchesAgain(state.coverage)) return "finalize";
  const sends = viewSends(state, state.coverage.gapQueries, views, state.coverage.gapConditions);
  return sends.length ? sends : "finalize";
}
