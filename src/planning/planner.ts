import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { Plan } from "../domain/plan.js";
import type { Degradation, LlmCallRecord } from "../domain/run-account.js";
import type { ModelCallLimits } from "../llm/structured.js";
import { askModelForPlan, planFromModel } from "./model-planner.js";
import { planWithoutPlanning } from "./no-planner.js";
import type { PlanContext } from "./plan.js";
import { planWithRules } from "./rule-planner.js";

export interface PlanningOptions extends ModelCallLimits {
  /** Off: the question alone, no conditions. */
  planning: boolean;
  /** With a model it plans, and the rules stand in when it fails; without one the rules plan. */
  model?: BaseChatModel | undefined;
}

/** A plan and what making it cost. */
export interface PlanOutcome {
  plan: Plan;
  llmCalls: LlmCallRecord[];
  degraded: Degradation[];
}

/** Plans a question the one way the options say: not at all, by the model, or by the rules (also the model's fallback). */
export async function planQuestion(question: string, context: PlanContext, options: PlanningOptions): Promise<PlanOutcome> {
  if (!options.planning) return { plan: planWithoutPlanning(question), llmCalls: [], degraded: [] };
  if (!options.model) return { plan: planWithRules(question, context), llmCalls: [], degraded: [] };
  const reply = await askModelForPlan(options.model, question, context, options);
  if (reply.ok) return { plan: planFromModel(question, reply.value, context), llmCalls: [reply.record], degraded: [] };
  const degraded = { step: "plan", error: `model failed, rules used: ${reply.record.error ?? "unknown"}` };
  return { plan: planWithRules(question, context), llmCalls: [reply.record], degraded: [degraded] };
}
