/** recallgraph's public API. */
export { openRecallGraph, openDependencies, type OpenOptions, type RecallGraph } from "./library/open-recallgraph.js";
export { retrieve, outputOf, type RetrieveRequest, type RetrievalOutput, type RunAccountSummary } from "./library/retrieve.js";
export { createRetrievalGraph, type RetrievalGraph, type RetrievalGraphOptions } from "./graph/graph.js";
export { createRememberGraph, type RememberGraph, type RememberGraphOptions } from "./graph/remember-graph.js";
export { RetrievalConfigSchema, resolveConfiguration, type RetrievalConfig, type RetrievalConfigInput } from "./graph/configuration.js";
export { RETRIEVAL_PRESETS } from "./graph/presets.js";
export type { Coverage } from "./domain/coverage.js";
export type { Degradation } from "./domain/run-account.js";
export type { Plan } from "./domain/plan.js";
export type { Provenance } from "./domain/hits.js";
export type { RetrievalResult } from "./domain/results.js";
export type { GraphDependencies, NamespaceAccess, NamespaceGuard } from "./graph/dependencies.js";
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
export { RecallGraphRetriever } from "./integrations/retriever.js";
export { createRecallTool } from "./integrations/tool.js";
export { createMemoryTools, type MemoryToolsOptions } from "./integrations/memory-tools.js";
export { RecallGraphStore, namespaceOfTuple } from "./integrations/langgraph-store.js";
export { MEMORY_ACTIONS, type ActionContext } from "./library/memory-actions.js";
export {
  AccessDeniedError,
  EmbedderMismatchError,
  isRecallGraphError,
  ReadOnlyStoreError,
  RecallGraphError,
  RequestTimeoutError,
  ResponseTooLargeError,
  StoreError,
  ValidationError,
  type ErrorCode,
} from "./core/errors.js";
