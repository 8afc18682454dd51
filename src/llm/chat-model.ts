import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { ChatOpenAI } from "@langchain/openai";
import { z } from "zod";
import { readParsed, readPositiveInteger, readRetryCount, readVariable } from "../core/env.js";

/**
 * Chat model configuration from the environment:
 * - RECALLGRAPH_LLM_MODEL: model name; unset means no model (rule-based planning and reflection).
 * - OPENAI_BASE_URL: any OpenAI-compatible server (OpenAI, vLLM, Ollama, llama.cpp server...).
 * - OPENAI_API_KEY: its key (local servers usually accept any value).
 * - RECALLGRAPH_LLM_TIMEOUT_MS: per-call timeout (default 30000).
 * - RECALLGRAPH_LLM_RETRIES: the client's own retries of a failed request (rate limit, 5xx, network),
 *   with backoff, inside each call's timeout; 0 for none (default). Retries of a reply that does not
 *   parse are the run configuration's `llmRetries`.
 */
const BaseUrlSchema = z.url({ protocol: /^https?$/, error: "must be an http(s) URL" });
const DEFAULT_TIMEOUT_MS = 30_000;

/** The chat model the environment configures, or undefined when none is (the rules run instead). */
export function chatModelFromEnv(env: NodeJS.ProcessEnv = process.env): BaseChatModel | undefined {
  // Every variable is read before the model check, so a bad value fails loudly even while no model is set.
  const model = readVariable(env, "RECALLGRAPH_LLM_MODEL");
  const baseURL = readParsed(env, "OPENAI_BASE_URL", BaseUrlSchema);
  const apiKey = readVariable(env, "OPENAI_API_KEY");
  const timeout = readPositiveInteger(env, "RECALLGRAPH_LLM_TIMEOUT_MS");
  const maxRetries = readRetryCount(env, "RECALLGRAPH_LLM_RETRIES");
  if (!model) return undefined;
  return new ChatOpenAI({
    model,
    temperature: 0,
    apiKey: apiKey ?? "not-needed",
    timeout: timeout ?? DEFAULT_TIMEOUT_MS,
    maxRetries: maxRetries ?? 0,
    configuration: baseURL ? { baseURL } : {},
  });
}
