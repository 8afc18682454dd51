/**
 * What the served graphs and the auth handler are configured with, read from the environment once when
 * the server loads them. A configuration the server cannot use stops it: langgraph-api, left to itself,
 * logs a failed import and keeps a process alive that never listens, which a supervisor takes for a
 * healthy server. So every variable is checked here, before anything is served, and a bad one ends the
 * process with one line naming it and exit code 1.
 */
import { readChoice, readEnvironment, type Environment } from "../core/env.js";
import { errorMessage, ValidationError } from "../core/errors.js";
import { accessPolicyFromEnv, type AccessPolicy } from "../library/access-policy.js";
import { chatModelSettingsFromEnv } from "../llm/chat-model-settings.js";
import { storeConfigFromEnv, type StoreConfig } from "../stores/open-store.js";
import { embedderConfigFromEnv, type EmbedderConfig } from "../text/embedders/create-embedder.js";

/**
 * Whether runs on threads may keep their answers in thread state and history. `none` (the default):
 * the graphs answer stateless runs only, so a memory forgotten or expired later is held nowhere in the
 * server. `keep`: runs on threads are allowed and their history keeps each answer as it was given
 * (for debugging in LangGraph Studio on an open server; refused on a secured one).
 */
export const THREAD_HISTORY = ["none", "keep"] as const;
export type ThreadHistory = (typeof THREAD_HISTORY)[number];

export interface ServerSettings {
  policy: AccessPolicy;
  threadHistory: ThreadHistory;
  store: StoreConfig;
  embedder: EmbedderConfig;
}

/** The server's settings, or a ValidationError naming the first variable it cannot use. */
export function serverSettingsFromEnv(env: Environment = readEnvironment()): ServerSettings {
  const policy = accessPolicyFromEnv(env);
  const threadHistory = readChoice(env, "RECALLGRAPH_THREAD_HISTORY", THREAD_HISTORY) ?? "none";
  if (policy.secured && threadHistory === "keep") {
    throw new ValidationError("RECALLGRAPH_THREAD_HISTORY", "keep is for an open server only: a secured server keeps no answers in thread history");
  }
  // Checked now, though the model is loaded on first use, so a bad model setting stops the start too.
  chatModelSettingsFromEnv(env);
  return { policy, threadHistory, store: storeConfigFromEnv(env), embedder: embedderConfigFromEnv(env) };
}

/** `read`'s result, or the end of the process with one line on stderr and exit code 1. */
export function settingsOrExit<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    process.stderr.write(`recallgraph: the server cannot start: ${errorMessage(error)}\n`);
    process.exit(1);
  }
}

/** The settings of this server process (module state: the auth handler and the graphs share one reading). */
export const serverSettings: ServerSettings = settingsOrExit(() => serverSettingsFromEnv());
