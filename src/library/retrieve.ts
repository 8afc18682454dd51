import type { RunnableConfig } from "@langchain/core/runnables";
import { z } from "zod";
import { parseOrThrow } from "../core/errors.js";
import { NamespaceSchema } from "../memory/entry.js";
import type { RetrievalConfigInput } from "../graph/configuration.js";
import type { RetrievalGraph } from "../graph/graph.js";
import { RetrievalInputSchema, type RetrievalStateValue } from "../graph/state.js";
import type { Coverage } from "../domain/coverage.js";
import type { Degradation } from "../domain/run-account.js";
import type { Plan } from "../domain/plan.js";
import type { RetrievalResult } from "../domain/results.js";
import type { LlmCallRecord } from "../domain/run-account.js";

/** A question as callers ask it. */
export const RetrieveRequestSchema = z.object({
  question: z.string(),
  /** Whose memories: one namespace or several (the widest per-namespace settings win). */
  namespace: z.union([NamespaceSchema, z.array(NamespaceSchema).min(1)]),
  /** Reference time for relative expressions ("last week"); default the clock. */
  now: z.union([z.date(), z.iso.datetime({ offset: true })]).optional(),
});
export type RetrieveRequest = z.input<typeof RetrieveRequestSchema>;

/** What a run cost: LLM calls and tokens per step, wall time per node, rounds used. */
export interface RunAccountSummary {
  llmCalls: number;
  inputTokens: number;
  outputTokens: number;
  byStep: Record<string, { calls: number; inputTokens: number; outputTokens: number }>;
  nodeMs: Record<string, number>;
  rounds: number;
}

export interface RetrievalOutput {
  results: RetrievalResult[];
  plan: Plan | undefined;
  coverage: Coverage | undefined;
  rounds: number;
  degraded: Degradation[];
  account: RunAccountSummary;
}

/** Runs the retrieval graph for one question and returns its results with the run's account. */
export async function retrieve(
  graph: RetrievalGraph,
  request: RetrieveRequest,
  configurable: RetrievalConfigInput & Record<string, unknown> = {},
  config: Omit<RunnableConfig, "configurable"> = {},
): Promise<RetrievalOutput> {
  const parsed = parseOrThrow(RetrieveRequestSchema, request, "request");
  const now = parsed.now instanceof Date ? parsed.now.toISOString() : parsed.now;
  // Validated here too (the graph checks its input as well) so callers get a ValidationError, not a raw ZodError.
  const input = parseOrThrow(
    RetrievalInputSchema,
    { question: parsed.question, namespaces: Array.isArray(parsed.namespace) ? parsed.namespace : [parsed.namespace], now },
    "request",
  );
  const state = (await graph.invoke(input, { ...config, configurable })) as RetrievalStateValue;
  return outputOf(state);
}

/** The caller-facing view of a finished run's state. */
export function outputOf(state: RetrievalStateValue): RetrievalOutput {
  return {
    results: state.results,
    plan: state.queryPlan,
    coverage: state.coverage,
    rounds: state.round,
    degraded: state.degraded,
    account: summarizeAccount(state.llmCalls, state.nodeMs, state.round),
  };
}

function summarizeAccount(calls: readonly LlmCallRecord[], nodeMs: Record<string, number>, rounds: number): RunAccountSummary {
  const byStep: RunAccountSummary["byStep"] = {};
  for (const call of calls) {
    const step = (byStep[call.step] ??= { calls: 0, inputTokens: 0, outputTokens: 0 });
    step.calls += call.calls;
    step.inputTokens += call.inputTokens;
    step.outputTokens += call.outputTokens;
  }
  const steps = Object.values(byStep);
  return {
    llmCalls: steps.reduce((sum, step) => sum + step.calls, 0),
    inputTokens: steps.reduce((sum, step) => sum + step.inputTokens, 0),
    outputTokens: steps.reduce((sum, step) => sum + step.outputTokens, 0),
    byStep,
    nodeMs,
    rounds,
  };
}
