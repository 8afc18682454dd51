/** recallgraph's public API. */
export { openRecallGraph, openDependencies, type OpenOptions, type RecallGraph } from "./recallgraph.js";
export { retrieve, outputOf, type RetrieveRequest, type RetrievalOutput, type RunAccountSummary } from "./retrieve.js";
export { createRetrievalGraph, type RetrievalGraph } from "./graph/graph.js";
export { RetrievalConfigSchema, resolveConfiguration, type RetrievalConfig, type RetrievalConfigInput } from "./graph/configuration.js";
export { RETRIEVAL_PRESETS } from "./graph/presets.js";
export type { Coverage, Degradation, Plan, Provenance, RetrievalResult } from "./graph/state.js";
export type { GraphDependencies } from "./graph/dependencies.js";
export { MemoryEntrySchema, MemoryInputSchema, type MemoryEntry, type MemoryInput } from "./memory/entry.js";
export { writeMemories, type WriteOptions } from "./memory/writer.js";
export type { MemoryStore, MemoryFilter, NamespaceSettings } from "./stores/port.js";
export { openStore, storeConfigFromEnv, StoreConfigSchema, type StoreConfig } from "./stores/index.js";
export { createEmbedder, embedderConfigFromEnv, EmbedderConfigSchema, type EmbedderConfig } from "./text/embedders/index.js";
export type { Embedder } from "./text/embedder.js";
export { chatModelFromEnv } from "./llm/chat-model.js";
export { ingestFile } from "./ingest/index.js";
export { RecallGraphRetriever } from "./integrations/retriever.js";
export { createRecallTool } from "./integrations/tool.js";
export { RecallGraphError, ValidationError, EmbedderMismatchError, StoreError } from "./errors.js";
