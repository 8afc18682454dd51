/**
 * Embeddings from any OpenAI-compatible `/embeddings` endpoint (OpenAI, vLLM, Ollama, llama.cpp
 * server, LiteLLM...) through LangChain's `OpenAIEmbeddings`. The dimension is configuration, not
 * discovered: the store must know it before the first vector exists, and every returned vector is
 * checked against it.
 */
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
