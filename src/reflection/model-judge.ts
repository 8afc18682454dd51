import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { Coverage } from "../domain/coverage.js";
import type { Plan } from "../domain/plan.js";
import { MEMORY_PREVIEW_CHARS } from "../llm/prompts/preview.js";
import { REFLECT_SYSTEM, reflectUserPrompt } from "../llm/prompts/reflect.js";
import { ReflectionOutputSchema, type ReflectionOutput } from "../llm/output-schemas.js";
import { callStructured, type ModelCallLimits, type StructuredResult } from "../llm/structured.js";
import type { MemoryEntry } from "../memory/entry.js";
import { makeCoverage } from "./coverage.js";

/** One structured call asking the model whether the top results cover the plan (no retry: the rules stand in); never throws. */
export function askModelForCoverage(
  model: BaseChatModel,
  request: { question: string; plan: Plan; top: readonly MemoryEntry[] },
  limits: ModelCallLimits,
): Promise<StructuredResult<ReflectionOutput>> {
  const memories = request.top.map((entry) => `${entry.timestamp.slice(0, 10)} ${entry.text.slice(0, MEMORY_PREVIEW_CHARS)}`);
  return callStructured(
    model,
    ReflectionOutputSchema,
    { system: REFLECT_SYSTEM, user: reflectUserPrompt(request.question, request.plan.requiredInfo, memories) },
    { step: "reflect", retries: limits.retries ?? 0, timeoutMs: limits.timeoutMs, signal: limits.signal },
  );
}

/** The model's verdict as coverage. Its gap queries are free text: they carry no conditions. */
export function coverageFromModel(output: ReflectionOutput, limits: { asked: ReadonlySet<string>; maxGapQueries: number }): Coverage {
  const verdict = {
    judge: "llm" as const,
    saysComplete: output.complete,
    percent: output.coveragePercent,
    missing: output.missing,
    gaps: output.gapQueries.map((query) => ({ query })),
  };
  return makeCoverage(verdict, limits);
}
