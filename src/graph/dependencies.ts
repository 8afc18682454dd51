import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { MemoryStore } from "../stores/port.js";
import type { Embedder } from "../text/embedder.js";

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

/** Dependencies given directly, or a function that opens them on first use (the LangGraph server's case). */
export type DependencySource = GraphDependencies | (() => Promise<GraphDependencies>);

/** One memoised accessor, so every node shares the same store, embedder and model. */
export function dependencyAccessor(source: DependencySource): () => Promise<GraphDependencies> {
  if (typeof source !== "function") {
    const ready = Promise.resolve(source);
    return () => ready;
  }
  let opening: Promise<GraphDependencies> | undefined;
  return () => {
    opening ??= source().catch((error: unknown) => {
      opening = undefined; // let the next run try again instead of caching the failure
      throw error;
    });
    return opening;
  };
}
