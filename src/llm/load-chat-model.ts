import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { readEnvironment, type Environment } from "../core/env.js";
import { chatModelSettingsFromEnv } from "./chat-model-settings.js";

/**
 * The chat model the environment configures, or undefined when it names none. Its client
 * (chat-model.ts, with OpenAI's packages) is imported only when a model is named, so a process that
 * runs on the rules never loads it.
 */
export async function loadChatModelFromEnv(env: Environment = readEnvironment()): Promise<BaseChatModel | undefined> {
  const settings = chatModelSettingsFromEnv(env);
  if (!settings) return undefined;
  const { createChatModel } = await import("./chat-model.js");
  return createChatModel(settings);
}
