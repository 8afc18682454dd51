import type { RunnableConfig } from "@langchain/core/runnables";
import { z } from "zod";
import { parseOrThrow } from "../core/errors.js";
import type { Coverage } from "../domain/coverage.js";
import type { Plan } from "../domain/plan.js";
import type { RetrievalResult } from "../domain/results.js";
import { summarizeAccount, type Degradation, type RunAccount } from "../domain/run-account.js";
import { NamespaceSchema, parseIsoTimestamp } from "../memory/entry.js";
import { RecallFilterSchema } from "../stores/caller-filter.js";
import type { RetrievalConfigInput } from "../graph/configuration.js";
import type { RetrievalGraph } from "../graph/graph.js";
import { RetrievalInputSchema, type RetrievalGraphOutputValue } from "../graph/state.js";

/** A date-time as a request takes it: a Date, or ISO 8601 with an offset within the bounds every timestamp keeps. */
function requestTime(field: string) {
  return z.union([
    z.date(),
    // zod's format allows any ±HH:MM offset; the same bounds as every other timestamp apply (at most ±14:00).
    z.iso.datetime({ offset: true }).refine((text) => parseIsoTimestamp(text) !== undefined, `${field} must be a date-time that exists, with an offset of at most ±14:00`),
  ]);
}

/** A question as callers ask it. */
export const RetrieveRequestSchema = z.object({
  question: RetrievalInputSchema.shape.question,
  /** Whose memories: one namespace or several (the widest per-namespace settings win). */
  namespace: z.union([NamespaceSchema, z.array(NamespaceSchema).min(1)]),
  /** Reference time for relative expressions ("last week"); default the clock. */
  now: requestTime("now").optional(),
  asOf: requestTime("asOf")
    .optional()
    .describe(
      "Answer as things stood at this time: memories said after it are left out; what was superseded or no longer valid by then is history. Also the reference time when `now` is not given",
    ),
  /** Exact conditions every result must meet, ANDed with what the planner derives. */
  filter: RecallFilterSchema.optional(),
});
export type RetrieveRequest = z.input<typeof RetrieveRequestSchema>;

/** What a run cost: LLM calls and tokens per step, wall time per node, rounds used. */
export type RunAccountSummary = RunAccount;

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
  const asOf = parsed.asOf instanceof Date ? parsed.asOf.toISOString() : parsed.asOf;
  // Validated here too (the graph checks its input as well) so that the field is named as the caller wrote it.
  const input = parseOrThrow(
    RetrievalInputSchema,
    {
      question: parsed.question,
      namespaces: Array.isArray(parsed.namespace) ? parsed.namespace : [parsed.namespace],
      now,
      ...(asOf ? { asOf } : {}),
      ...(parsed.filter ? { filter: parsed.filter } : {}),
    },
    "request",
  );
  return outputOf(await graph.invoke(input, { ...config, configurable }));
}

/** The caller-facing view of a finished run's output. */
export function outputOf(output: RetrievalGraphOutputValue): RetrievalOutput {
  const account = output.account ?? summarizeAccount([], {}, 0);
  return {
    results: output.results,
    plan: output.queryPlan,
    coverage: output.coverage,
    rounds: account.rounds,
    degraded: output.degraded,
    account,
  };
}
