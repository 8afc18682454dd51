import type { MemoryEntry } from "../memory/entry.js";
import type { MemoryStore, ScoredEntry } from "../stores/port.js";

/**
 * The same store with its supersessions hidden: no entry says what it supersedes and nothing is
 * anyone's superseder. Retrieval over it is retrieval over the same entries and vectors as if no
 * builder had linked them, which is what a supersession measurement compares with, without writing
 * the corpus twice. Writes pass through unchanged.
 */
export function withSupersessionsHidden(store: MemoryStore): MemoryStore {
  const plain = (entry: MemoryEntry): MemoryEntry => {
    const { supersedes: _supersedes, supersessionReason: _reason, ...rest } = entry;
    return rest;
  };
  const plainHits = (hits: ScoredEntry[]): ScoredEntry[] => hits.map((hit) => ({ ...hit, entry: plain(hit.entry) }));
  const hidden: Partial<MemoryStore> = {
    supersedersOf: async () => [],
    get: async (namespace, ids) => (await store.get(namespace, ids)).map(plain),
    denseSearch: async (namespace, vector, options) => plainHits(await store.denseSearch(namespace, vector, options)),
    lexicalSearch: async (namespace, query, options) => plainHits(await store.lexicalSearch(namespace, query, options)),
    filteredSearch: async (namespace, filter, options) => plainHits(await store.filteredSearch(namespace, filter, options)),
  };
  return new Proxy(store, {
    get(target, property, receiver) {
      const own = typeof property === "string" ? hidden[property as keyof MemoryStore] : undefined;
      if (own !== undefined) return own;
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
