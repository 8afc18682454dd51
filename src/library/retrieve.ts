import type { RunnableConfig } from "@langchain/core/runnables";
import { z } from "zod";
import { AbortedError, isRecallGraphError, parseOrThrow, ValidationError } from "../core/errors.js";
import type { Coverage } from "../domain/coverage.js";
import type { Plan } from "../domain/plan.js";
import type { RetrievalResult } from "../domain/results.js";
import { summarizeAccount, type Degradation, type RunAccount } from "../domain/run-account.js";
import { NamespaceSchema, parseIsoTimestamp } from "../memory/entry.js";
import { RecallFilterSchema } from "../stores/caller-filter.js";
import { RetrievalConfigSchema, type RetrievalConfigInput } from "../graph/configuration.js";
import type { RetrievalGraph } from "../graph/graph.js";
import { MAX_NAMESPACES_ASKED, RetrievalInputSchema, type RetrievalGraphOutputValue } from "../graph/state.js";

/**
 * A date-time as a request takes it, a Date or ISO 8601 with an offset within the bounds every
 * timestamp keeps, passed on as the graph's input takes it: ISO 8601.
 */
function requestTime(field: string) {
  return z
    .union([
      z.date(),
      // zod's format allows any ±HH:MM offset; the same bounds as every other timestamp apply (at most ±14:00).
      z.iso.datetime({ offset: true }).refine((text) => parseIsoTimestamp(text) !== undefined, `${field} must be a date-time that exists, with an offset of at most ±14:00`),
    ])
    .transform((time) => (time instanceof Date ? time.toISOString() : time));
}

/** A question as callers ask it. */
export const RetrieveRequestSchema = z.object({
  question: RetrievalInputSchema.shape.question,
  /** Whose memories: one namespace or several (the widest per-namespace settings win). */
  namespace: z.union([
    NamespaceSchema,
    z.array(NamespaceSchema).min(1).max(MAX_NAMESPACES_ASKED, `at most ${MAX_NAMESPACES_ASKED} namespaces may be asked at once`),
  ]),
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

/**
 * How a retrieval is called, as any LangGraph runnable is: the retrieval configuration (finalK, preset,
 * deadlineMs, ...) under `configurable`, beside the caller's abort signal, callbacks, tags and run name.
 */
export type RetrieveConfig = RunnableConfig<ConfigurableFields>;

/** The configuration fields, and those a graph over more views adds (configurationFor). */
type ConfigurableFields = RetrievalConfigInput & Record<string, unknown>;

/** The run options of the positional form, which takes the configuration on its own before them. */
export type RetrieveRunOptions = Omit<RunnableConfig, "configurable">;

/** Runs the retrieval graph for one question and returns its results with the run's account. */
export function retrieve(graph: RetrievalGraph, request: RetrieveRequest, config?: RetrieveConfig): Promise<RetrievalOutput>;
/** @deprecated Pass one config, the retrieval configuration under `configurable`: `retrieve(graph, request, { configurable, signal })`. */
export function retrieve(graph: RetrievalGraph, request: RetrieveRequest, configurable: ConfigurableFields, options?: RetrieveRunOptions): Promise<RetrievalOutput>;
export async function retrieve(
  graph: RetrievalGraph,
  request: RetrieveRequest,
  config?: RetrieveConfig | ConfigurableFields,
  options?: RetrieveRunOptions,
): Promise<RetrievalOutput> {
  const runConfig = runConfigOf(config, options);
  // Checked here, so that a field is named as the caller wrote it; the graph checks its own input once more (it is a boundary of its own).
  const { namespace, now, asOf, ...parsed } = parseOrThrow(RetrieveRequestSchema, request, "request");
  const input = { ...parsed, namespaces: Array.isArray(namespace) ? namespace : [namespace], ...(now ? { now } : {}), ...(asOf ? { asOf } : {}) };
  try {
    return outputOf(await graph.invoke(input, runConfig));
  } catch (error) {
    // LangGraph rejects with the signal's bare reason (an AbortError): the caller gets an error of ours.
    if (runConfig.signal?.aborted && !isRecallGraphError(error)) throw new AbortedError("retrieve", runConfig.signal.reason);
    throw error;
  }
}

/** What a RunnableConfig holds beside `configurable`: a second argument naming none of them is the positional form's configuration. */
const RUN_CONFIG_KEYS: ReadonlySet<string> = new Set<keyof RunnableConfig>([
  "configurable",
  "signal",
  "callbacks",
  "tags",
  "metadata",
  "runName",
  "runId",
  "recursionLimit",
  "maxConcurrency",
  "timeout",
]);
const CONFIGURATION_FIELDS: ReadonlySet<string> = new Set(Object.keys(RetrievalConfigSchema.shape));

/**
 * The one RunnableConfig of a call, from either form. No configuration field is a RunnableConfig key,
 * so a second argument is told by its keys; one that mixes a configuration field into a RunnableConfig
 * is refused rather than the field dropped.
 */
export function runConfigOf(config: RetrieveConfig | ConfigurableFields | undefined, options: RetrieveRunOptions | undefined): RetrieveConfig {
  // Run options after it: the second argument is the configuration (the overloads allow nothing else).
  if (options !== undefined) return { ...options, configurable: { ...(config as ConfigurableFields | undefined) } };
  if (config === undefined) return {};
  if (isConfigurationAlone(config)) return { configurable: config };
  const misplaced = Object.keys(config).find((key) => CONFIGURATION_FIELDS.has(key));
  if (misplaced !== undefined) throw new ValidationError(`config.${misplaced}`, "is a retrieval configuration field: put it under config.configurable");
  return config;
}

function isConfigurationAlone(config: RetrieveConfig | ConfigurableFields): config is ConfigurableFields {
  const keys = Object.keys(config);
  return keys.length > 0 && !keys.some((key) => RUN_CONFIG_KEYS.has(key));
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
