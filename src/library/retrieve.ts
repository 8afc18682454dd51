import type { RunnableConfig } from "@langchain/core/runnables";
import type { z } from "zod";
import { AbortedError, isRecallGraphError, kindOf, ValidationError } from "../core/errors.js";
import type { Coverage } from "../domain/coverage.js";
import type { Plan } from "../domain/plan.js";
import type { RetrievalResult } from "../domain/results.js";
import { summarizeAccount, type Degradation, type RunAccount } from "../domain/run-account.js";
import { RetrievalConfigSchema, type RetrievalConfigInput } from "../graph/configuration.js";
import type { RetrievalGraph } from "../graph/graph.js";
import type { RetrievalInputSchema, RetrievalGraphOutputValue } from "../graph/state.js";

type GraphInput = z.input<typeof RetrievalInputSchema>;

/**
 * A question as callers ask it: the graph's input (RetrievalInputSchema, which checks it), with one
 * namespace or several, and times as Dates or ISO 8601.
 */
export type RetrieveRequest = Pick<GraphInput, "question" | "filter"> & {
  /** Whose memories: one namespace or several (the widest per-namespace settings win). */
  namespace: string | string[];
  /** Reference time for relative expressions ("last week"); default the clock. */
  now?: Date | string | undefined;
  /**
   * Answer as things stood at this time: memories said after it are left out; what was superseded or no
   * longer valid by then is history. Also the reference time when `now` is not given.
   */
  asOf?: Date | string | undefined;
};

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
  try {
    return outputOf(await graph.invoke(graphInputOf(request), runConfig));
  } catch (error) {
    // LangGraph rejects with the signal's bare reason (an AbortError): the caller gets an error of ours.
    if (runConfig.signal?.aborted && !isRecallGraphError(error)) throw new AbortedError("retrieve", runConfig.signal.reason);
    throw asRequestError(error, request);
  }
}

/**
 * The request in the graph's input shape, unchecked: the plan node checks it, once, and `asRequestError`
 * names a refused field as the caller wrote it. Only a request that is no object at all is refused here.
 */
function graphInputOf(request: RetrieveRequest): Partial<GraphInput> {
  if (typeof request !== "object" || request === null || Array.isArray(request)) {
    throw new ValidationError("request", `request must be an object with a question and a namespace, got ${kindOf(request)}`);
  }
  const { question, namespace, now, asOf, filter } = request;
  return {
    question,
    namespaces: namespace === undefined || Array.isArray(namespace) ? namespace : [namespace],
    now: isoTime(now),
    asOf: isoTime(asOf),
    filter,
  };
}

/** A Date as the graph's serialisable input takes it; an invalid Date goes on as its text, which the graph refuses. */
function isoTime(time: Date | string | undefined): string | undefined {
  if (!(time instanceof Date)) return time;
  return Number.isNaN(time.getTime()) ? String(time) : time.toISOString();
}

/** A refusal of the graph's input (`input.namespaces.1`), renamed to the request's field (`request.namespace.1`). */
function asRequestError(error: unknown, request: RetrieveRequest): unknown {
  if (!(error instanceof ValidationError) || !/^input(\.|$)/.test(error.field)) return error;
  const detail = error.message.slice(error.field.length + 2);
  const [, ...path] = error.field.split(".");
  if (path[0] === "namespaces") path.splice(0, Array.isArray(request.namespace) ? 1 : 2, "namespace");
  const { field: _graphField, ...context } = error.context;
  return new ValidationError(["request", ...path].join("."), detail, context);
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
