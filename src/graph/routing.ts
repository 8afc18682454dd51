import type { RunnableConfig } from "@langchain/core/runnables";
import { Send } from "@langchain/langgraph";
import { resolveConfiguration } from "./configuration.js";
import type { RetrievalStateValue, ViewTask } from "./state.js";
import type { GapCondition } from "../domain/coverage.js";

/** The views of one round, fanned out in parallel with `Send`, each with its own task. */
function viewSends(state: RetrievalStateValue, config: RunnableConfig | undefined, queries: string[], gapConditions: Record<string, GapCondition> = {}): Send[] {
  const { views } = resolveConfiguration(config);
  if (!state.queryPlan || !state.settings) return [];
  return views
    .filter((view) => state.round === 0 || view !== "symbolic") // the plan's conditions do not change between rounds
    .map((view) => {
      const task: ViewTask = {
        view,
        round: state.round,
        question: state.question,
        namespaces: state.namespaces,
        queries,
        plan: state.queryPlan!,
        settings: state.settings!,
        gapConditions,
      };
      return new Send(view, task);
    });
}

/** After planning: search with the plan's sub-queries. */
export function routeAfterPlan(state: RetrievalStateValue, config?: RunnableConfig): Send[] {
  return viewSends(state, config, state.queryPlan?.subQueries ?? [state.question]);
}

/** After reflection: another round for the gap queries, or finalize. */
export function routeAfterReflect(state: RetrievalStateValue, config?: RunnableConfig): Send[] | "finalize" {
  const coverage = state.coverage;
  const { maxReflectionRounds } = resolveConfiguration(config);
  if (!coverage || coverage.complete || coverage.gapQueries.length === 0) return "finalize";
  if (state.round > maxReflectionRounds) return "finalize"; // the cap holds whatever the judge said
  const sends = viewSends(state, config, coverage.gapQueries, coverage.gapConditions);
  return sends.length ? sends : "finalize";
}
