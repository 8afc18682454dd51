import type { Plan } from "../domain/plan.js";
import type { Vocabulary } from "../stores/port.js";
import type { TimeContext, TimeWindow } from "../time/types.js";

/** What every planner is given: the question's context in the asked namespaces. */
export interface PlanContext {
  /** Names the namespaces already know, for recognising them in the question. */
  vocabulary: Vocabulary;
  /** The run's reference time: relative expressions ("last week") resolve against it. */
  now: TimeContext["now"];
  timeZone: string;
  maxSubQueries: number;
  /** Whether the rules also search the question's clauses (the embedder's profile says: `clauseQueries`); a model plans its own sub-queries. */
  clauseQueries: boolean;
}

/** A plan's fields before its time is settled. */
export type PlanFields = Omit<Plan, "timeExpression" | "timeWindow">;

/**
 * The one way a plan is made, whoever planned it. The time window is always our parser's (a model
 * only names the expression), and a question scoped in time needs that time covered: the expression
 * joins what an answer must contain.
 */
export function makePlan(fields: PlanFields, window: TimeWindow | undefined): Plan {
  const plan: Plan = { ...fields, requiredInfo: [...fields.requiredInfo] };
  if (!window) return plan;
  plan.timeExpression = window.expression;
  plan.timeWindow = { startMs: window.startMs, endMs: window.endMs };
  const named = plan.requiredInfo.some((info) => info.toLowerCase() === window.expression.toLowerCase());
  if (!named) plan.requiredInfo.push(window.expression);
  return plan;
}

/** Two queries that differ only in case, spacing or punctuation are one query. */
export function sameQuery(a: string, b: string): boolean {
  const normal = (text: string) => text.toLowerCase().replace(/[\p{P}\s]+/gu, " ").trim();
  return normal(a) === normal(b);
}
