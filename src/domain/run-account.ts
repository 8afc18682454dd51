import { z } from "zod";

/** What one LLM step cost: calls made (retries included), tokens, and why it failed if it did. */
export const LlmCallRecordSchema = z.object({
  step: z.string().describe("The step that called the model: plan, reflect, rerank or extract-memories"),
  calls: z.number().int().describe("Calls made, retries included"),
  inputTokens: z.number().int().describe("Tokens sent, as the model reported them"),
  outputTokens: z.number().int().describe("Tokens received, as the model reported them"),
  ok: z.boolean().describe("Whether the step got a usable answer"),
  error: z.string().optional().describe("Why it did not, when it did not"),
});
export type LlmCallRecord = z.infer<typeof LlmCallRecordSchema>;

/** A step that failed and was worked around (a view that threw, a model that fell back to rules). */
export const DegradationSchema = z.object({
  step: z.string().describe("The node or view that failed (or ran out of time)"),
  error: z.string().describe("What went wrong, and what stood in for it"),
});
export type Degradation = z.infer<typeof DegradationSchema>;

const StepCostSchema = z.object({ calls: z.number().int(), inputTokens: z.number().int(), outputTokens: z.number().int() });

/** What a run cost: LLM calls and tokens in all and per step, wall time per node, reflection rounds used. */
export const RunAccountSchema = z.object({
  llmCalls: z.number().int().describe("Model calls in all"),
  inputTokens: z.number().int().describe("Tokens sent to models in all"),
  outputTokens: z.number().int().describe("Tokens received from models in all"),
  byStep: z.record(z.string(), StepCostSchema).describe("Calls and tokens per step"),
  nodeMs: z.record(z.string(), z.number()).describe("Wall time per node, in ms"),
  rounds: z.number().int().describe("Reflection rounds that searched again"),
});
export type RunAccount = z.infer<typeof RunAccountSchema>;

/** Adds up a run's LLM call records per step and in all. */
export function summarizeAccount(calls: readonly LlmCallRecord[], nodeMs: Record<string, number>, rounds: number): RunAccount {
  const byStep: RunAccount["byStep"] = {};
  for (const call of calls) {
    const step = (byStep[call.step] ??= { calls: 0, inputTokens: 0, outputTokens: 0 });
    step.calls += call.calls;
    step.inputTokens += call.inputTokens;
    step.outputTokens += call.outputTokens;
  }
  const steps = Object.values(byStep);
  const total = (field: keyof z.infer<typeof StepCostSchema>) => steps.reduce((sum, step) => sum + step[field], 0);
  return { llmCalls: total("calls"), inputTokens: total("inputTokens"), outputTokens: total("outputTokens"), byStep, nodeMs, rounds };
}
