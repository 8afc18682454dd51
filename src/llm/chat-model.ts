import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { ChatOpenAI } from "@langchain/openai";
import { boundedFetch } from "../core/bounded-fetch.js";
import type { ChatModelSettings } from "./chat-model-settings.js";

/** An OpenAI-compatible chat model, deterministic (temperature 0). */
export function createChatModel(settings: ChatModelSettings): BaseChatModel {
  return new ChatOpenAI({
    model: settings.model,
    temperature: 0,
    apiKey: settings.apiKey ?? "not-needed",
    timeout: settings.timeoutMs,
    maxRetries: settings.maxRetries,
    configuration: { fetch: boundedFetch(), ...(settings.baseURL ? { baseURL: settings.baseURL } : {}) },
  });
}
