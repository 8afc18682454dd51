import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { readEnvironment, type Environment } from "../core/env.js";
import { loadChatModelFromEnv } from "../llm/load-chat-model.js";
import { reembedMemories, writeNotes, type ReembedOptions, type WriteOptions } from "../ingest/write-memories.js";
import type { MemoryEntry } from "../memory/entry.js";
import type { RetrievalConfigInput } from "../graph/configuration.js";
import type { GraphDependencies } from "../runtime/dependencies.js";
import { createRetrievalGraph, type RetrievalGraph } from "../graph/graph.js";
import { forgetMemories, getMemories, listMemories, pruneExpired, type ListRequest } from "../stores/memory-operations.js";
import { retrieve, runConfigOf, type RetrievalOutput, type RetrieveConfig, type RetrieveRequest, type RetrieveRunOptions } from "./retrieve.js";
import { openStore, storeConfigFromEnv, type StoreConfig } from "../stores/open-store.js";
import type { ListPage, MemoryStore } from "../stores/port.js";
import type { Embedder } from "../text/embedder.js";
import { createEmbedder, embedderConfigFromEnv, type EmbedderConfig } from "../text/embedders/create-embedder.js";

export interface OpenOptions {
  /**
   * A store configuration or an open store; default from the environment (embedded sqlite file).
   * With `readOnly: true` (or RECALLGRAPH_READ_ONLY=1) the store is never written: retrieve, list and
   * get work, remember, forget, prune and reembed throw ReadOnlyStoreError.
   */
  store?: StoreConfig | MemoryStore;
  /** An embedder configuration or an embedder; default from the environment (offline USE-lite). */
  embedder?: EmbedderConfig | Embedder;
  /** A chat model, `null` for none (rules only), or undefined to take it from the environment. */
  model?: BaseChatModel | null;
  /** The variables to read instead of the process's environment. */
  env?: Environment;
}

/** Opens the store, embedder and model that the options (or the environment) name. */
export async function openDependencies(options: OpenOptions = {}): Promise<GraphDependencies> {
  const env = options.env ?? readEnvironment();
  const embedder = isEmbedder(options.embedder) ? options.embedder : createEmbedder(options.embedder ?? embedderConfigFromEnv(env));
  const store = isStore(options.store) ? options.store : await openStore(options.store ?? storeConfigFromEnv(env), embedder.spec);
  const model = options.model === null ? undefined : (options.model ?? (await loadChatModelFromEnv(env)));
  return model ? { store, embedder, model } : { store, embedder };
}

/** recallgraph in one object: write memories, ask questions, close. */
export interface RecallGraph extends GraphDependencies {
  graph: RetrievalGraph;
  /**
   * Writes memories, all or nothing. A memory that says a change the rules read ("Dana moved to Malmö")
   * supersedes the earlier one it replaces, unless it gives `supersedes` itself or `linkChanges` is false.
   */
  remember(namespace: string, inputs: readonly unknown[], options?: WriteOptions): Promise<MemoryEntry[]>;
  /**
   * Answers a question, as the free `retrieve`: one RunnableConfig, as LangGraph runnables take, carries the
   * retrieval configuration (`configurable`) and the caller's abort signal, callbacks, tags and run name.
   * A signal that aborts stops the run with an AbortedError.
   */
  retrieve(request: RetrieveRequest, config?: RetrieveConfig): Promise<RetrievalOutput>;
  /** @deprecated Pass one config, the retrieval configuration under `configurable`: `retrieve(request, { configurable, signal })`. */
  retrieve(request: RetrieveRequest, configurable: RetrievalConfigInput, options?: RetrieveRunOptions): Promise<RetrievalOutput>;
  /** A page of the namespace's memories, newest first (filter, limit, cursor). */
  list(namespace: string, options?: ListRequest): Promise<ListPage>;
  /** Memories by id; ids not held are left out. */
  get(namespace: string, ids: readonly string[]): Promise<MemoryEntry[]>;
  /** Deletes memories by id; an id not held is refused and nothing is deleted. Returns how many. */
  forget(namespace: string, ids: readonly string[]): Promise<number>;
  /** Deletes expired memories of one namespace, or of every namespace. Returns how many. */
  prune(namespace?: string): Promise<number>;
  /** Embeds every memory's text again (of one namespace, or of all) and writes the new vectors. Returns how many per namespace. */
  reembed(options?: ReembedOptions): Promise<Record<string, number>>;
  /**
   * Closes the store and, when it was opened from a configuration (not given as an Embedder), the
   * embedder (USE-lite's worker threads). A caller-given embedder is the caller's to close.
   */
  close(): Promise<void>;
}

export async function openRecallGraph(options: OpenOptions = {}): Promise<RecallGraph> {
  const dependencies = await openDependencies(options);
  const graph = createRetrievalGraph(dependencies);
  const { store, embedder } = dependencies;
  const ownsEmbedder = !isEmbedder(options.embedder);
  return {
    ...dependencies,
    graph,
    remember: (namespace, inputs, writeOptions) => writeNotes(dependencies.store, dependencies.embedder, namespace, inputs, writeOptions),
    retrieve: async (request: RetrieveRequest, config?: RetrieveConfig | RetrievalConfigInput, options?: RetrieveRunOptions) => retrieve(graph, request, runConfigOf(config, options)),
    list: (namespace, listOptions) => listMemories(dependencies.store, namespace, listOptions),
    get: (namespace, ids) => getMemories(dependencies.store, namespace, ids),
    forget: (namespace, ids) => forgetMemories(dependencies.store, namespace, ids),
    prune: (namespace) => pruneExpired(dependencies.store, namespace),
    reembed: (reembedOptions) => reembedMemories(dependencies.store, dependencies.embedder, reembedOptions),
    close: () => closeEach([() => store.close(), ownsEmbedder ? () => embedder.close?.() : undefined]),
  };
}

/**
 * Runs every close, each even when another fails (an embedder that fails to stop its workers must not
 * leave the store open), and then throws the first failure, if any.
 */
export async function closeEach(closes: ReadonlyArray<(() => Promise<void> | undefined) | undefined>): Promise<void> {
  // The async wrapper turns a close that throws synchronously into a rejection like the others.
  const settled = await Promise.allSettled(closes.map(async (close) => close?.()));
  const failed = settled.find((outcome): outcome is PromiseRejectedResult => outcome.status === "rejected");
  if (failed) throw failed.reason as unknown;
}

function isEmbedder(value: EmbedderConfig | Embedder | undefined): value is Embedder {
  return value !== undefined && "embeddings" in value;
}

function isStore(value: StoreConfig | MemoryStore | undefined): value is MemoryStore {
  return value !== undefined && "denseSearch" in value;
}
