import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { openRecallGraph, type RecallGraph } from "../../src/library/open-recallgraph.js";
import type { MemoryStore } from "../../src/stores/port.js";
import type { Embedder } from "../../src/text/embedder.js";
import { createEmbedder } from "../../src/text/embedders/create-embedder.js";
import { openSqliteStore } from "../../src/stores/sqlite/store.js";
import type { MemoryInput } from "../../src/memory/entry.js";
import { RIVALS, TEAM } from "./team-memory.js";

/** An in-memory sqlite store with the team and rival memories, the hashing embedder, and the given model. */
export async function teamMemory(
  options: { model?: BaseChatModel; embedder?: Embedder; wrapStore?: (store: MemoryStore) => MemoryStore } = {},
): Promise<RecallGraph> {
  const embedder = options.embedder ?? createEmbedder({ provider: "hash", dimension: 256 });
  const base = await openSqliteStore({ path: ":memory:", embedding: embedder.spec });
  const store = options.wrapStore ? options.wrapStore(base) : base;
  const memory = await openRecallGraph({ store, embedder, model: options.model ?? null });
  await memory.remember("team", TEAM);
  await memory.remember("rivals", RIVALS);
  return memory;
}

/** The lines of one conversation, remembered in the "chat" namespace of an in-memory store (hashing embedder, rules, no model). */
export async function chatMemory(lines: ReadonlyArray<MemoryInput & { id: string }>): Promise<RecallGraph> {
  const memory = await openRecallGraph({ store: { kind: "sqlite", path: ":memory:" }, embedder: { provider: "hash", dimension: 256 }, model: null });
  await memory.remember("chat", [...lines]);
  return memory;
}
