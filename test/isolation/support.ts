/** One recallgraph per property: an in-memory sqlite store (or a given one), the small hashing embedder, no model. */
import { openRecallGraph, type RecallGraph } from "../../src/library/open-recallgraph.js";
import type { MemoryStore } from "../../src/stores/port.js";
import { openSqliteStore } from "../../src/stores/sqlite/store.js";
import type { Embedder } from "../../src/text/embedder.js";
import { createEmbedder } from "../../src/text/embedders/create-embedder.js";

export function isolationEmbedder(): Embedder {
  return createEmbedder({ provider: "hash", dimension: 64 });
}

export async function openIsolationMemory(openStore?: (embedder: Embedder) => Promise<MemoryStore>): Promise<RecallGraph> {
  const embedder = isolationEmbedder();
  const store = openStore ? await openStore(embedder) : await openSqliteStore({ path: ":memory:", embedding: embedder.spec });
  return openRecallGraph({ store, embedder, model: null });
}

/** The port's reads that take a namespace first: the views, the planner's vocabulary, the re-check. */
const NAMESPACED_READS = new Set(["get", "denseSearch", "lexicalSearch", "filteredSearch", "list", "vocabulary", "documentVersions", "documentEntryIds", "originEntryIds", "getSettings"]);

/**
 * The store, recording the namespace of every namespaced read: a graph that reads another namespace and
 * only drops its hits at the end (finalize guards too) still shows here.
 */
export function recordingStore(store: MemoryStore, read: Set<string>): MemoryStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof property !== "string" || !NAMESPACED_READS.has(property) || typeof value !== "function") return value;
      return (namespace: string, ...rest: unknown[]) => {
        read.add(namespace);
        return Reflect.apply(value, target, [namespace, ...rest]);
      };
    },
  });
}
