/**
 * Choosing the dense embedder.
 *
 * Environment variables (read by `embedderConfigFromEnv`):
 * - `RECALLGRAPH_EMBEDDER`: `use-lite` (default; offline Universal Sentence Encoder lite, 512-d,
 *   English only), `onnx` (a sentence-embedding ONNX model in process, e.g. all-MiniLM-L6-v2; needs
 *   the optional `@huggingface/transformers`), `openai` (any OpenAI-compatible /embeddings endpoint)
 *   or `hash` (deterministic feature hashing, for tests and benchmarks; not a semantic model).
 * - `RECALLGRAPH_EMBEDDING_MODEL`: the model name for `openai` (default `text-embedding-3-small`); for
 *   `onnx` a model folder or a hub id (default `Xenova/all-MiniLM-L6-v2`, fetched once into the cache).
 * - `RECALLGRAPH_EMBEDDING_DIMENSIONS`: vector size. Required for `openai` unless the model is one of
 *   OpenAI's own (text-embedding-3-small 1536, text-embedding-3-large 3072); for `onnx` read from the
 *   model folder, needed only for a hub id other than the default before its first download; for
 *   `hash` default 512; for `use-lite` it may only be 512.
 * - `RECALLGRAPH_EMBEDDING_DTYPE`: `onnx` weights, `q8` (onnx/model_quantized.onnx) or `fp32`
 *   (onnx/model.onnx); default the first the folder has, q8 first.
 * - `RECALLGRAPH_MODEL_CACHE`: where `onnx` keeps hub models (default ~/.cache/recallgraph/models).
 * - `RECALLGRAPH_EMBEDDING_BATCH_SIZE`: texts per model call or request (`use-lite`, `onnx`, `openai`).
 * - `RECALLGRAPH_EMBEDDING_TIMEOUT_MS`: per-request timeout for `openai` (default 10000); for `use-lite`,
 *   the limit for one batch in a worker thread (default 60000); for `onnx`, for one batch in any
 *   thread, the first including loading or fetching the model (default 60000).
 * - `RECALLGRAPH_EMBEDDING_WORKERS`: `use-lite` and `onnx` threads for large embedDocuments calls
 *   (ingest): 1 embeds in the calling thread; N > 1 uses N worker threads, one model copy each
 *   (default: one per core, at most 4). Queries always embed in the calling thread.
 * - `RECALLGRAPH_EMBEDDING_RETRIES`: retries of a failed request for `openai`, 0 for none (default 1).
 * - `OPENAI_BASE_URL`: endpoint for `openai`, e.g. `http://127.0.0.1:8000/v1` (default api.openai.com).
 * - `OPENAI_API_KEY`: key for `openai`; required only when `OPENAI_BASE_URL` is not set.
 *
 * A store records the embedder's model and dimension and refuses to be opened with another one.
 */
import { z } from "zod";
import { readChoice, readPositiveInteger, readRequired, readRetryCount, readVariable } from "../../core/env.js";
import { parseOrThrow, ValidationError } from "../../core/errors.js";
import type { Embedder } from "../embedder.js";
import { createHashEmbedder, HASH_DEFAULT_DIMENSION } from "./hashing.js";
import { ONNX_DTYPES, ONNX_POOLINGS } from "./onnx-folder.js";
import { createOnnxEmbedder, ONNX_DEFAULT_DIMENSIONS, ONNX_DEFAULT_MODEL, type OnnxEmbedderOptions } from "./onnx.js";
import { createOpenAIEmbedder } from "./openai.js";
import { createUseLiteEmbedder, USE_LITE_SPEC } from "./use-lite.js";
import type { UseLiteEmbedderOptions } from "./use-lite.js";

export { EmbeddingOutputError } from "./checked.js";
export { createHashEmbedder, hashEmbed, HASH_EMBEDDER_MODEL } from "./hashing.js";
export { createOnnxEmbedder, ONNX_MODEL_PREFIX } from "./onnx.js";
export { OnnxModelError, type OnnxModelFailure } from "./onnx-folder.js";
export { createOpenAIEmbedder } from "./openai.js";
export { defaultEmbeddingWorkers } from "./batched.js";
export { createUseLiteEmbedder, useLiteTrustworthyFor, USE_LITE_SPEC } from "./use-lite.js";
export { EmbeddingWorkerError, type EmbeddingWorkerFailure } from "./worker-pool.js";

const MAX_DIMENSION = 65_536;
const MAX_RETRIES = 10;
const MAX_TIMEOUT_MS = 600_000;
const MAX_WORKERS = 64;
const batchSize = z.number().int().min(1).max(4096);
const workers = z
  .number()
  .int()
  .min(1)
  .max(MAX_WORKERS)
  .optional()
  .describe("Threads for large embedDocuments calls: 1 in the calling thread, N > 1 worker threads, one model copy each");

export const EmbedderConfigSchema = z.discriminatedUnion("provider", [
  z.strictObject({
    provider: z.literal("use-lite"),
    batchSize: batchSize.optional(),
    workers: workers.describe("Threads for large embedDocuments calls: 1 in the calling thread, N > 1 worker threads (default one per core, at most 4)"),
    timeoutMs: z.number().int().min(1).max(MAX_TIMEOUT_MS).optional().describe("Limit in ms for one batch in a worker (default 60000)"),
  }),
  z.strictObject({
    provider: z.literal("onnx"),
    model: z.string().trim().min(1, "model must not be empty").describe("A model folder (path) or a hub id (owner/name)"),
    dimensions: z.number().int().min(1).max(MAX_DIMENSION).optional().describe("Needed only for a hub id not yet in the cache"),
    dtype: z.enum(ONNX_DTYPES).optional().describe("q8 (onnx/model_quantized.onnx) or fp32 (onnx/model.onnx); default the first the folder has"),
    pooling: z.enum(ONNX_POOLINGS).optional().describe("Instead of the folder's 1_Pooling/config.json"),
    normalize: z.boolean().optional().describe("Unit vectors; default: whether modules.json has a Normalize module"),
    maxLength: z.number().int().min(1).max(MAX_DIMENSION).optional().describe("Tokens per text; default sentence_bert_config.json max_seq_length"),
    queryPrefix: z.string().optional().describe("Put before each query; default config_sentence_transformers.json prompts.query"),
    documentPrefix: z.string().optional().describe("Put before each document; default prompts.document or prompts.passage"),
    cacheDir: z.string().min(1).optional().describe("Where hub models are kept"),
    batchSize: batchSize.optional(),
    workers: workers.describe("Threads for large embedDocuments calls: 1 in the calling thread, N > 1 worker threads (default one per core, at most 4)"),
    timeoutMs: z.number().int().min(1).max(MAX_TIMEOUT_MS).optional().describe("Limit in ms for one batch, the first including loading the model (default 60000)"),
  }),
  z.strictObject({
    provider: z.literal("openai"),
    model: z.string().trim().min(1, "model must not be empty"),
    dimensions: z.number().int().min(1).max(MAX_DIMENSION),
    baseURL: z.url({ protocol: /^https?$/, error: "baseURL must be an http(s) URL" }).optional(),
    apiKey: z.string().min(1).optional(),
    batchSize: batchSize.optional(),
    maxRetries: z
      .number()
      .int()
      .min(0)
      .max(MAX_RETRIES)
      .optional()
      .describe("Retries of a failed request (default 1: a question is waiting; ingest may want more)"),
    timeoutMs: z.number().int().min(1).max(MAX_TIMEOUT_MS).optional().describe("Per-request timeout in ms (default 10000)"),
  }),
  z.strictObject({
    provider: z.literal("hash"),
    dimension: z.number().int().min(1).max(MAX_DIMENSION).optional(),
  }),
]);
export type EmbedderConfig = z.input<typeof EmbedderConfigSchema>;

export const EMBEDDER_PROVIDERS = ["use-lite", "onnx", "openai", "hash"] as const;
export type EmbedderProvider = (typeof EMBEDDER_PROVIDERS)[number];

/** Builds the embedder a configuration names. Loading models is lazy: nothing heavy happens here. */
export function createEmbedder(config: EmbedderConfig): Embedder {
  const parsed = parseOrThrow(EmbedderConfigSchema, config, "embedder");
  switch (parsed.provider) {
    case "use-lite": {
      const options: UseLiteEmbedderOptions = {};
      if (parsed.batchSize !== undefined) options.batchSize = parsed.batchSize;
      if (parsed.workers !== undefined) options.workers = parsed.workers;
      if (parsed.timeoutMs !== undefined) options.timeoutMs = parsed.timeoutMs;
      return createUseLiteEmbedder(options);
    }
    case "onnx": {
      const { provider: _provider, ...options } = parsed;
      return createOnnxEmbedder(options satisfies OnnxEmbedderOptions);
    }
    case "openai":
      return createOpenAIEmbedder(parsed);
    case "hash":
      return createHashEmbedder(parsed.dimension === undefined ? {} : { dimension: parsed.dimension });
  }
}

/** Native sizes of OpenAI's own models, so the common case needs no RECALLGRAPH_EMBEDDING_DIMENSIONS. */
const OPENAI_NATIVE_DIMENSIONS: Readonly<Record<string, number>> = {
  "text-embedding-3-small": 1536,
  "text-embedding-3-large": 3072,
};
const DEFAULT_OPENAI_MODEL = "text-embedding-3-small";

/** Which environment variable each config field comes from, to name it in errors. */
const ENV_NAME_OF_FIELD: Readonly<Record<string, string>> = {
  provider: "RECALLGRAPH_EMBEDDER",
  model: "RECALLGRAPH_EMBEDDING_MODEL",
  dimensions: "RECALLGRAPH_EMBEDDING_DIMENSIONS",
  dimension: "RECALLGRAPH_EMBEDDING_DIMENSIONS",
  batchSize: "RECALLGRAPH_EMBEDDING_BATCH_SIZE",
  timeoutMs: "RECALLGRAPH_EMBEDDING_TIMEOUT_MS",
  workers: "RECALLGRAPH_EMBEDDING_WORKERS",
  maxRetries: "RECALLGRAPH_EMBEDDING_RETRIES",
  dtype: "RECALLGRAPH_EMBEDDING_DTYPE",
  cacheDir: "RECALLGRAPH_MODEL_CACHE",
  baseURL: "OPENAI_BASE_URL",
  apiKey: "OPENAI_API_KEY",
};

/**
 * The embedder configuration the environment describes (variables listed at the top of this file).
 * Invalid values throw a ValidationError whose field is the variable's name.
 */
export function embedderConfigFromEnv(env: NodeJS.ProcessEnv = process.env): EmbedderConfig {
  const provider = readChoice(env, "RECALLGRAPH_EMBEDDER", EMBEDDER_PROVIDERS) ?? "use-lite";
  const dimensions = readPositiveInteger(env, "RECALLGRAPH_EMBEDDING_DIMENSIONS");
  const batchSizeValue = readPositiveInteger(env, "RECALLGRAPH_EMBEDDING_BATCH_SIZE");
  // Read whatever the provider, so a bad value fails loudly before anyone switches to openai.
  const timeoutMs = readPositiveInteger(env, "RECALLGRAPH_EMBEDDING_TIMEOUT_MS");
  const maxRetries = readRetryCount(env, "RECALLGRAPH_EMBEDDING_RETRIES");
  const workers = readPositiveInteger(env, "RECALLGRAPH_EMBEDDING_WORKERS");

  let config: EmbedderConfig;
  if (provider === "use-lite") {
    if (dimensions !== undefined && dimensions !== USE_LITE_SPEC.dimension) {
      throw new ValidationError(
        "RECALLGRAPH_EMBEDDING_DIMENSIONS",
        `use-lite produces ${USE_LITE_SPEC.dimension}-d vectors, got ${dimensions}; unset it or choose another embedder`,
      );
    }
    config = {
      provider,
      ...(batchSizeValue === undefined ? {} : { batchSize: batchSizeValue }),
      ...(workers === undefined ? {} : { workers }),
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
    };
  } else if (provider === "onnx") {
    const model = readVariable(env, "RECALLGRAPH_EMBEDDING_MODEL") ?? ONNX_DEFAULT_MODEL;
    const dtype = readChoice(env, "RECALLGRAPH_EMBEDDING_DTYPE", ONNX_DTYPES);
    const cacheDir = readVariable(env, "RECALLGRAPH_MODEL_CACHE");
    // The default model's size is known, so `RECALLGRAPH_EMBEDDER=onnx` alone works before its first download.
    const knownDimensions = dimensions ?? (model === ONNX_DEFAULT_MODEL ? ONNX_DEFAULT_DIMENSIONS : undefined);
    config = {
      provider,
      model,
      ...(knownDimensions === undefined ? {} : { dimensions: knownDimensions }),
      ...(dtype === undefined ? {} : { dtype }),
      ...(cacheDir === undefined ? {} : { cacheDir }),
      ...(batchSizeValue === undefined ? {} : { batchSize: batchSizeValue }),
      ...(workers === undefined ? {} : { workers }),
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
    };
  } else if (provider === "hash") {
    config = { provider, dimension: dimensions ?? HASH_DEFAULT_DIMENSION };
  } else {
    const model = readVariable(env, "RECALLGRAPH_EMBEDDING_MODEL") ?? DEFAULT_OPENAI_MODEL;
    const resolvedDimensions = dimensions ?? OPENAI_NATIVE_DIMENSIONS[model];
    if (resolvedDimensions === undefined) {
      throw new ValidationError(
        "RECALLGRAPH_EMBEDDING_DIMENSIONS",
        `is required for model "${model}" (the store needs the vector size before the first vector)`,
      );
    }
    const baseURL = readVariable(env, "OPENAI_BASE_URL");
    const apiKey = baseURL
      ? readVariable(env, "OPENAI_API_KEY")
      : readRequired(env, "OPENAI_API_KEY", "when OPENAI_BASE_URL is not set (api.openai.com needs a key)");
    config = {
      provider,
      model,
      dimensions: resolvedDimensions,
      ...(baseURL === undefined ? {} : { baseURL }),
      ...(apiKey === undefined ? {} : { apiKey }),
      ...(batchSizeValue === undefined ? {} : { batchSize: batchSizeValue }),
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      ...(maxRetries === undefined ? {} : { maxRetries }),
    };
  }

  const result = EmbedderConfigSchema.safeParse(config);
  if (!result.success) {
    const issue = result.error.issues[0];
    const field = String(issue?.path[0] ?? "provider");
    throw new ValidationError(ENV_NAME_OF_FIELD[field] ?? field, issue?.message ?? "invalid value");
  }
  return config;
}
