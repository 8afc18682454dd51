/**
 * recallgraph's public API: the library (open, remember, retrieve, list, forget), memories, stores and
 * embedders, and everything of the subpaths `recallgraph/errors`, `recallgraph/langgraph` and
 * `recallgraph/langchain`. `recallgraph/eval` is its own.
 */
export { openRecallGraph, openDependencies, type OpenOptions, type RecallGraph } from "./library/open-recallgraph.js";
export {
  retrieve,
  outputOf,
  type RetrieveConfig,
  type RetrieveRequest,
  type RetrieveRunOptions,
  type RetrievalOutput,
  type RunAccountSummary,
} from "./library/retrieve.js";
export type { Coverage } from "./domain/coverage.js";
export type { Degradation } from "./domain/run-account.js";
export type { Plan } from "./domain/plan.js";
export type { Provenance } from "./domain/hits.js";
export type { RetrievalResult } from "./domain/results.js";
export { entryInput, MemoryEntrySchema, MemoryInputSchema, type MemoryEntry, type MemoryInput } from "./memory/entry.js";
export { reembedMemories, writeMemories, type ReembedOptions, type WriteOptions } from "./ingest/write-memories.js";
export type { MemoryStore, MemoryFilter, NamespaceSettings } from "./stores/port.js";
export { RecallFilterSchema, type RecallFilter } from "./stores/caller-filter.js";
export { ListRequestSchema, type ListRequest } from "./stores/memory-operations.js";
export type { ListPage } from "./stores/port.js";
export { openStore, storeConfigFromEnv, StoreConfigSchema, type StoreConfig } from "./stores/open-store.js";
export { createEmbedder, embedderConfigFromEnv, EmbedderConfigSchema, type EmbedderConfig } from "./text/embedders/create-embedder.js";
export type { Embedder } from "./text/embedder.js";
export { loadChatModelFromEnv } from "./llm/load-chat-model.js";
export { ingestFile } from "./ingest/ingest-file.js";
export { MEMORY_ACTIONS, type ActionContext } from "./library/memory-actions.js";
export * from "./errors.js";
export * from "./langgraph.js";
export * from "./langchain.js";
