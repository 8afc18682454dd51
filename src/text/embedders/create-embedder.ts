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
import { readChoice, readEnvironment, type Environment } from "../../core/env.js";
import { parseOrThrow, ValidationError } from "../../core/errors.js";
import type { Embedder } from "../embedder.js";
import { readSharedEmbedderVariables, type AnyEmbedderDefinition } from "./embedder-definition.js";
import { EMBEDDERS, type EmbedderRegistry } from "./registry.js";

export { EmbeddingOutputError } from "./checked.js";
export { createHashEmbedder, HASH_EMBEDDER_MODEL } from "./hashing.js";
export { createOnnxEmbedder, ONNX_MODEL_PREFIX } from "./onnx.js";
export { OnnxModelError, type OnnxModelFailure } from "./onnx-folder.js";
export { createOpenAIEmbedder } from "./openai.js";
export { defaultEmbeddingWorkers } from "./batched.js";
export { createUseLiteEmbedder, useLiteTrustworthyFor, USE_LITE_SPEC } from "./use-lite.js";
export { EmbeddingWorkerError, type EmbeddingWorkerFailure } from "./worker-pool.js";
export { EMBEDDER_KIND_NAMES, type EmbedderKindName } from "./registry.js";

/** The configurations of a registry's kinds, one per kind, told apart by `provider`. */
type ConfigsOf<K extends EmbedderRegistry> = { -readonly [Index in keyof K]: K[Index]["config"] } extends infer Configs extends [
  z.core.$ZodTypeDiscriminable,
  ...z.core.$ZodTypeDiscriminable[],
]
  ? Configs
  : [AnyEmbedderDefinition["config"], ...AnyEmbedderDefinition["config"][]];

/** The configuration of any kind of a registry (a discriminated union on `provider`). */
export function embedderConfigSchema<const K extends EmbedderRegistry>(kinds: K) {
  return z.discriminatedUnion("provider", kinds.map((kind) => kind.config) as unknown as ConfigsOf<K>);
}

export const EmbedderConfigSchema = embedderConfigSchema(EMBEDDERS);
export type EmbedderConfig = z.input<typeof EmbedderConfigSchema>;

/** The kind a configuration names (its field `provider`), from `kinds` (default the registered ones). */
function kindNamed(kinds: EmbedderRegistry, name: string) {
  const kind = kinds.find((candidate) => candidate.name === name);
  if (!kind) throw new ValidationError("embedder.provider", `must be one of ${kinds.map((candidate) => candidate.name).join(", ")}, got "${name}"`);
  return kind;
}

/** Builds the embedder a configuration names. Loading models is lazy: nothing heavy happens here. */
export function createEmbedder(config: EmbedderConfig, kinds: EmbedderRegistry = EMBEDDERS): Embedder {
  const parsed = parseOrThrow(embedderConfigSchema(kinds), config, "embedder");
  return kindNamed(kinds, config.provider).create(parsed);
}

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
 * The embedder configuration the environment describes (variables listed at the top of this file):
 * RECALLGRAPH_EMBEDDER names the kind (default the first of `kinds`), which reads the rest.
 * Invalid values throw a ValidationError whose field is the variable's name.
 */
export function embedderConfigFromEnv(env: Environment = readEnvironment(), kinds: EmbedderRegistry = EMBEDDERS): EmbedderConfig {
  const [defaultKind] = kinds;
  if (!defaultKind) throw new ValidationError("RECALLGRAPH_EMBEDDER", "no kind of embedder is registered");
  const name = readChoice(env, "RECALLGRAPH_EMBEDDER", kinds.map((kind) => kind.name)) ?? defaultKind.name;
  const shared = readSharedEmbedderVariables(env);
  const config = kindNamed(kinds, name).fromEnv(env, shared);
  const result = embedderConfigSchema(kinds).safeParse(config);
  if (!result.success) {
    const issue = result.error.issues[0];
    const field = String(issue?.path[0] ?? "provider");
    throw new ValidationError(ENV_NAME_OF_FIELD[field] ?? field, issue?.message ?? "invalid value");
  }
  return config as EmbedderConfig;
}
