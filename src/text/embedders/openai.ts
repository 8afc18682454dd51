/**
 * Embeddings from any OpenAI-compatible `/embeddings` endpoint (OpenAI, vLLM, Ollama, llama.cpp
 * server, LiteLLM...) through LangChain's `OpenAIEmbeddings`. The dimension is configuration, not
 * discovered: the store must know it before the first vector exists, and every returned vector is
 * checked against it.
 */
import { z } from "zod";
import { readRequired, readVariable } from "../../core/env.js";
import { defineEmbedder, MAX_DIMENSION, MAX_RETRIES, setFields, SharedEmbedderFields } from "./embedder-definition.js";
import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import type { OpenAIEmbeddings } from "@langchain/openai";
import { ValidationError } from "../../core/errors.js";
import type { EmbeddingSpec } from "../embedder.js";
import type { Embedder } from "../embedder.js";
import { boundedFetch } from "../../core/bounded-fetch.js";
import { checkedEmbedder } from "./checked.js";

export interface OpenAIEmbedderOptions {
  model: string;
  dimensions: number;
  /** e.g. http://127.0.0.1:8000/v1; unset means api.openai.com. */
  baseURL?: string;
  /** Required for api.openai.com; local servers usually ignore it. */
  apiKey?: string;
  /** Texts per request (LangChain's default is 512; OpenAI allows up to 2048). */
  batchSize?: number;
  /** Retries of a failed request, with backoff (LangChain's AsyncCaller); default OPENAI_DEFAULT_MAX_RETRIES. */
  maxRetries?: number;
  /** Per-request timeout in milliseconds; default OPENAI_DEFAULT_TIMEOUT_MS. */
  timeoutMs?: number;
}

export const OPENAI_DEFAULT_BATCH_SIZE = 256;
/**
 * Defaults for a question's path, where a person or an agent waits: a query embedding takes well
 * under a second, so 10 s means the server is stuck, and one retry (after about a second's backoff)
 * rides out a dropped connection without multiplying a hang; the worst case, about 21 s, is near the
 * run's default deadline, which cuts it off in any case. (Were they 60 s and 2 retries, a hung server
 * held a question for over three minutes.) Bulk ingest that can wait longer sets them higher:
 * RECALLGRAPH_EMBEDDING_TIMEOUT_MS, RECALLGRAPH_EMBEDDING_RETRIES, or the configuration's fields.
 */
export const OPENAI_DEFAULT_MAX_RETRIES = 1;
export const OPENAI_DEFAULT_TIMEOUT_MS = 10_000;
/** Sent when a custom base URL is given without a key: the OpenAI client insists on one, local servers ignore it. */
const PLACEHOLDER_API_KEY = "not-needed";

/** A store records an OpenAI-compatible model as `openai:MODEL`, so its kind is known when it is reopened. */
export const OPENAI_MODEL_PREFIX = "openai:";

export function openAIEmbeddingSpec(model: string, dimensions: number): EmbeddingSpec {
  return { model: `${OPENAI_MODEL_PREFIX}${model}`, dimension: dimensions };
}

export function createOpenAIEmbedder(options: OpenAIEmbedderOptions): Embedder {
  if (!options.apiKey && !options.baseURL) {
    throw new ValidationError("apiKey", "an API key is required for api.openai.com (set OPENAI_API_KEY), or give a baseURL");
  }
  const embeddings = new LazyOpenAIEmbeddings({
    model: options.model,
    dimensions: options.dimensions,
    encodingFormat: "float",
    batchSize: options.batchSize ?? OPENAI_DEFAULT_BATCH_SIZE,
    maxRetries: options.maxRetries ?? OPENAI_DEFAULT_MAX_RETRIES,
    timeout: options.timeoutMs ?? OPENAI_DEFAULT_TIMEOUT_MS,
    // Newlines carry meaning in memories (dialogue turns); modern embedding models handle them.
    stripNewLines: false,
    apiKey: options.apiKey ?? PLACEHOLDER_API_KEY,
    configuration: { fetch: boundedFetch(), ...(options.baseURL ? { baseURL: options.baseURL } : {}) },
  });
  // Trusted for every script: we cannot know a remote model's coverage, and the common ones are multilingual.
  return checkedEmbedder(embeddings, openAIEmbeddingSpec(options.model, options.dimensions), () => true);
}

type OpenAIEmbeddingsFields = NonNullable<ConstructorParameters<typeof OpenAIEmbeddings>[0]>;

/**
 * LangChain's OpenAIEmbeddings, created on the first call: its client is some 230 modules that a
 * process using another embedder (or only counting its memories) never needs to load.
 */
export class LazyOpenAIEmbeddings implements EmbeddingsInterface {
  private loading: Promise<OpenAIEmbeddings> | undefined;

  constructor(private readonly fields: OpenAIEmbeddingsFields) {}

  /** The client itself, loaded once. */
  client(): Promise<OpenAIEmbeddings> {
    this.loading ??= import("@langchain/openai").then(({ OpenAIEmbeddings }) => new OpenAIEmbeddings(this.fields));
    return this.loading;
  }

  async embedDocuments(documents: string[]): Promise<number[][]> {
    return (await this.client()).embedDocuments(documents);
  }

  async embedQuery(document: string): Promise<number[]> {
    return (await this.client()).embedQuery(document);
  }
}

/** Native sizes of OpenAI's own models, so the common case needs no RECALLGRAPH_EMBEDDING_DIMENSIONS. */
const OPENAI_NATIVE_DIMENSIONS: Readonly<Record<string, number>> = {
  "text-embedding-3-small": 1536,
  "text-embedding-3-large": 3072,
};
const DEFAULT_OPENAI_MODEL = "text-embedding-3-small";

/**
 * Any OpenAI-compatible /embeddings endpoint. Such endpoints serve retrieval-trained models (OpenAI's,
 * BGE, E5, ...), so any model behind one is weighed as one.
 */
export const openAIEmbedder = defineEmbedder({
  name: "openai",
  config: z.strictObject({
    provider: z.literal("openai"),
    model: z.string().trim().min(1, "model must not be empty"),
    dimensions: z.number().int().min(1).max(MAX_DIMENSION),
    baseURL: z.url({ protocol: /^https?$/, error: "baseURL must be an http(s) URL" }).optional(),
    apiKey: z.string().min(1).optional(),
    batchSize: SharedEmbedderFields.batchSize,
    maxRetries: z
      .number()
      .int()
      .min(0)
      .max(MAX_RETRIES)
      .optional()
      .describe("Retries of a failed request (default 1: a question is waiting; ingest may want more)"),
    timeoutMs: SharedEmbedderFields.timeoutMs.describe("Per-request timeout in ms (default 10000)"),
  }),
  create: ({ provider: _provider, ...options }) => createOpenAIEmbedder(options),
  fromEnv: (env, { dimensions, batchSize, timeoutMs, maxRetries }) => {
    const model = readVariable(env, "RECALLGRAPH_EMBEDDING_MODEL") ?? DEFAULT_OPENAI_MODEL;
    const resolvedDimensions = dimensions ?? OPENAI_NATIVE_DIMENSIONS[model];
    if (resolvedDimensions === undefined) {
      throw new ValidationError("RECALLGRAPH_EMBEDDING_DIMENSIONS", `is required for model "${model}" (the store needs the vector size before the first vector)`);
    }
    const baseURL = readVariable(env, "OPENAI_BASE_URL");
    const apiKey = baseURL
      ? readVariable(env, "OPENAI_API_KEY")
      : readRequired(env, "OPENAI_API_KEY", "when OPENAI_BASE_URL is not set (api.openai.com needs a key)");
    return { provider: "openai" as const, model, dimensions: resolvedDimensions, ...setFields({ baseURL, apiKey, batchSize, timeoutMs, maxRetries }) };
  },
  built: (spec) => spec.model.startsWith(OPENAI_MODEL_PREFIX),
  profile: {
    denseWeight: 1,
    basis: "published hybrid chain: a retrieval-trained embedder votes as much as BM25 (plain RRF, equal weights)",
  },
  flagsFor: (spec) => `--embedder openai with RECALLGRAPH_EMBEDDING_MODEL=${spec.model} RECALLGRAPH_EMBEDDING_DIMENSIONS=${spec.dimension}`,
});
