import { z } from "zod";
import { readEnvironment, readParsed, readPositiveInteger, readRetryCount, readVariable, type Environment } from "../core/env.js";

/**
 * Chat model configuration from the environment:
 * - RECALLGRAPH_LLM_MODEL: model name; unset means no model (rule-based planning and reflection).
 * - OPENAI_BASE_URL: any OpenAI-compatible server (OpenAI, vLLM, Ollama, llama.cpp server...).
 * - OPENAI_API_KEY: its key (local servers usually accept any value).
 * - RECALLGRAPH_LLM_TIMEOUT_MS: per-call timeout (default 30000).
 * - RECALLGRAPH_LLM_RETRIES: the client's own retries of a failed request (rate limit, 5xx, network),
 *   with backoff, inside each call's timeout; 0 for none (default). Retries of a reply that does not
 *   parse are the run configuration's `llmRetries`.
 * Apart from the model's client (chat-model.ts), so a process without a model never loads it.
 */
const BaseUrlSchema = z.url({ protocol: /^https?$/, error: "must be an http(s) URL" });
const DEFAULT_TIMEOUT_MS = 30_000;

/** What the chat model is created from. */
export interface ChatModelSettings {
  model: string;
  baseURL?: string;
  apiKey?: string;
  timeoutMs: number;
  maxRetries: number;
}

/** The chat model settings the environment gives, or undefined when it names no model (the rules run instead). */
export function chatModelSettingsFromEnv(env: Environment = readEnvironment()): ChatModelSettings | undefined {
  // Every variable is read before the model check, so a bad value fails loudly even while no model is set.
  const model = readVariable(env, "RECALLGRAPH_LLM_MODEL");
  const baseURL = readParsed(env, "OPENAI_BASE_URL", BaseUrlSchema);
  const apiKey = readVariable(env, "OPENAI_API_KEY");
  const timeoutMs = readPositiveInteger(env, "RECALLGRAPH_LLM_TIMEOUT_MS") ?? DEFAULT_TIMEOUT_MS;
  const maxRetries = readRetryCount(env, "RECALLGRAPH_LLM_RETRIES") ?? 0;
  if (!model) return undefined;
  return { model, timeoutMs, maxRetries, ...(baseURL ? { baseURL } : {}), ...(apiKey ? { apiKey } : {}) };
}
