import { z } from "zod";

/** What one LLM step cost: calls made (retries included), tokens, and why it failed if it did. */
export const LlmCallRecordSchema = z.object({
  step: z.string(),
  calls: z.number().int(),
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
  ok: z.boolean(),
  error: z.string().optional(),
});
export type LlmCallRecord = z.infer<typeof LlmCallRecordSchema>;

/** A step that failed and was worked around (a view that threw, a model that fell back to rules). */
export const DegradationSchema = z.object({ step: z.string(), error: z.string() });
export type Degradation = z.infer<typeof DegradationSchema>;

const StepCostSchema = z.object({ calls: z.number().int(), inputTokens: z.number().int(), outputTokens: z.number().int() });

/** What a run cost: LLM calls and tokens in all and per step, wall time per node, reflection rounds used. */
export const RunAccountSchema = z.object({
  llmCalls: z.number().int(),
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
  byStep: z.record(z.string(), StepCostSchema),
  nodeMs: z.record(z.string(), z.number()),
  rounds: z.number().int(),
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
