import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { ChatOpenAI } from "@langchain/openai";
import { z } from "zod";
import { parseOrThrow } from "../core/errors.js";

/**
 * Chat model configuration from the environment:
 * - RECALLGRAPH_LLM_MODEL: model name; unset means no model (rule-based planning and reflection).
 * - OPENAI_BASE_URL: any OpenAI-compatible server (OpenAI, vLLM, Ollama, llama.cpp server...).
 * - OPENAI_API_KEY: its key (local servers usually accept any value).
 * - RECALLGRAPH_LLM_TIMEOUT_MS: per-call timeout (default 30000).
 */
export const ChatModelEnvSchema = z.object({
  RECALLGRAPH_LLM_MODEL: z.string().trim().min(1).optional(),
  OPENAI_BASE_URL: z.url().optional(),
  OPENAI_API_KEY: z.string().optional(),
  RECALLGRAPH_LLM_TIMEOUT_MS: z.coerce.number().int().min(1).optional(),
});

/** The chat model the environment configures, or undefined when none is (the rules run instead). */
export function chatModelFromEnv(env: NodeJS.ProcessEnv = process.env): BaseChatModel | undefined {
  const parsed = parseOrThrow(ChatModelEnvSchema, pickDefined(env, Object.keys(ChatModelEnvSchema.shape)), "env");
  if (!parsed.RECALLGRAPH_LLM_MODEL) return undefined;
  return new ChatOpenAI({
    model: parsed.RECALLGRAPH_LLM_MODEL,
    temperature: 0,
    apiKey: parsed.OPENAI_API_KEY ?? "not-needed",
    timeout: parsed.RECALLGRAPH_LLM_TIMEOUT_MS ?? 30_000,
    maxRetries: 0, // our own structured-call wrapper retries once, then falls back to rules
    configuration: parsed.OPENAI_BASE_URL ? { baseURL: parsed.OPENAI_BASE_URL } : {},
  });
}

function pickDefined(env: NodeJS.ProcessEnv, keys: readonly string[]): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const key of keys) {
    const value = env[key];
    if (value !== undefined && value !== "") picked[key] = value;
  }
  return picked;
}
