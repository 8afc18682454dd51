import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { MemoryStore } from "../stores/port.js";
import type { Embedder } from "../text/embedder.js";
import { withQueryVectorCache } from "../text/query-vector-cache.js";

/**
 * What the nodes work with. Not part of the state or the configuration: these are live objects
 * (connections, models), handed to the graph when it is built.
 */
export interface GraphDependencies {
  store: MemoryStore;
  embedder: Embedder;
  /** The chat model for planning, reflection and rerank; without one the rules run. */
  model?: BaseChatModel;
}

/** What a run is about to touch: the namespaces it reads, or the one it writes. */
export interface NamespaceAccess {
  namespaces: readonly string[];
  mode: "read" | "write";
}

/**
 * Refuses (throws) a run whose caller may not touch these namespaces. The served graphs bind
 * namespaces to the server's authenticated callers with one; a library caller chooses its namespaces
 * itself and needs none.
 */
export type NamespaceGuard = (access: NamespaceAccess, config: RunnableConfig | undefined) => void;

/** Dependencies given directly, or a function that opens them on first use (the LangGraph server's case). */
export type DependencySource = GraphDependencies | (() => Promise<GraphDependencies>);

/**
 * One memoised accessor, so every node shares the same store, embedder and model. The embedder
 * remembers recent query vectors, so views of one round that need the question's vector embed it once.
 */
export function dependencyAccessor(source: DependencySource): () => Promise<GraphDependencies> {
  const shared = (dependencies: GraphDependencies): GraphDependencies => ({ ...dependencies, embedder: withQueryVectorCache(dependencies.embedder) });
  if (typeof source !== "function") {
    const ready = Promise.resolve(shared(source));
    return () => ready;
  }
  return openedOnce(async () => shared(await source()));
}

/**
 * `open`, called once and its result shared by every caller; a failure is not kept, so the next caller
 * tries again (a store that was down at the first run is opened when it is back).
 */
export function openedOnce<T>(open: () => Promise<T>): () => Promise<T> {
  let opening: Promise<T> | undefined;
  return () => {
    opening ??= open().catch((error: unknown) => {
      opening = undefined;
      throw error;
    });
    return opening;
  };
}
