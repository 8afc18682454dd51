import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { Plan } from "../domain/plan.js";
import { PLAN_SYSTEM, planUserPrompt } from "../llm/prompts/plan.js";
import { PlanOutputSchema, type PlanOutput } from "../llm/output-schemas.js";
import { callStructured, type ModelCallLimits, type StructuredResult } from "../llm/structured.js";
import { findTimeWindow } from "../time/window.js";
import { namesMentioned } from "./known-names.js";
import { makePlan, sameQuery, type PlanContext } from "./plan.js";

/** One structured call to the model for a plan (retried once unless the limits say otherwise); never throws. */
export function askModelForPlan(model: BaseChatModel, question: string, context: PlanContext, options: ModelCallLimits): Promise<StructuredResult<PlanOutput>> {
  const { persons, entities } = context.vocabulary;
  return callStructured(
    model,
    PlanOutputSchema,
    { system: PLAN_SYSTEM, user: planUserPrompt(question, [...persons, ...entities]) },
    { step: "plan", retries: options.retries ?? 1, timeoutMs: options.timeoutMs, signal: options.signal },
  );
}

/** The model's plan, made safe: the question stays first, caps hold, names map to known ones, our parser resolves the time. */
export function planFromModel(question: string, output: PlanOutput, context: PlanContext): Plan {
  const subQueries = [question];
  for (const query of output.subQueries) {
    if (subQueries.length < context.maxSubQueries && !subQueries.some((kept) => sameQuery(kept, query))) subQueries.push(query);
  }
  const known = (names: string[], vocabulary: string[]) => {
    const matched = namesMentioned(names.join(" ; "), vocabulary);
    return matched.length ? matched : names;
  };
  return makePlan(
    {
      requiredInfo: output.requiredInfo,
      subQueries,
      keywords: output.keywords,
      persons: known(output.persons, context.vocabulary.persons),
      entities: known(output.entities, context.vocabulary.entities),
      locations: known(output.locations, context.vocabulary.locations),
      planner: "llm",
    },
    findTimeWindow(output.timeExpression ?? question, { now: context.now, timeZone: context.timeZone }),
  );
}
