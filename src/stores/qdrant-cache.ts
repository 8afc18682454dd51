/**
 * What the Qdrant adapter keeps of a namespace between questions, so that a question costs its
 * searches and not the reads around them: the vocabulary the planner matches names against (three
 * facet requests), the namespace's settings (a scroll), and the counts its lexical idf is made of
 * (the namespace's size and, per query term, the points holding it: one count request each).
 *
 * Kept once per process for each server and collection, so every store this process opens on a
 * collection shares it. Any write or delete this process makes to a namespace, through any of those
 * stores, drops what is kept of it, before the write is sent and again once it is done (so what a
 * read running beside the write saw is not kept either). Writes by other processes cannot be seen
 * from here: a kept value is used for at most the store's `namespaceCacheMs` after it was read
 * (default 5 s, QdrantStoreOptionsSchema says why), so another process's write reaches this one's
 * planner and idf that much later; 0 keeps nothing. Concurrent reads of the same value share one
 * request; a failed read is not kept.
 */
import { RecentMap } from "../core/recent-map.js";
import type { NamespaceSettings, Vocabulary } from "./port.js";

/** Namespaces kept per collection (the least recently used go first): a multi-tenant server asks of many. */
const MAX_NAMESPACES = 1_000;
/** Term counts kept per namespace: the distinct words of recent questions. */
const MAX_TERMS = 10_000;
/** Collections kept per process. */
const MAX_COLLECTIONS = 100;

interface Kept<T> {
  value: Promise<T>;
  /** When the read was sent, on the cache's own monotonic clock (not the adapter's, which decides expiry). */
  readAt: number;
}

/** One namespace's kept reads. Forgetting the namespace drops this object, so a read still in flight lands in a discarded one. */
class NamespaceReads {
  vocabulary: Kept<Vocabulary> | undefined;
  settings: Kept<NamespaceSettings | undefined> | undefined;
  size: Kept<number> | undefined;
  readonly holding = new RecentMap<number, Kept<number>>(MAX_TERMS);
}

/** Where one kept value lives. */
interface Slot<T> {
  get(): Kept<T> | undefined;
  set(kept: Kept<T> | undefined): void;
}

/** The value read within `ttlMs` before `now`, or a read started now (kept unless it fails). */
async function reuse<T>(slot: Slot<T>, now: number, ttlMs: number, read: () => Promise<T>): Promise<T> {
  if (ttlMs <= 0) return read();
  const kept = slot.get();
  if (kept && now - kept.readAt <= ttlMs) return kept.value;
  const fresh: Kept<T> = { value: read(), readAt: now };
  slot.set(fresh);
  try {
    return await fresh.value;
  } catch (error) {
    if (slot.get() === fresh) slot.set(undefined);
    throw error;
  }
}

export class QdrantReadCache {
  private readonly namespaces = new RecentMap<string, NamespaceReads>(MAX_NAMESPACES);

  /** `now`: milliseconds on a clock that only moves forward (tests move their own). */
  constructor(private readonly now: () => number = () => performance.now()) {}

  vocabulary(namespace: string, ttlMs: number, read: () => Promise<Vocabulary>): Promise<Vocabulary> {
    const reads = this.of(namespace);
    return reuse({ get: () => reads.vocabulary, set: (kept) => (reads.vocabulary = kept) }, this.now(), ttlMs, read);
  }

  settings(namespace: string, ttlMs: number, read: () => Promise<NamespaceSettings | undefined>): Promise<NamespaceSettings | undefined> {
    const reads = this.of(namespace);
    return reuse({ get: () => reads.settings, set: (kept) => (reads.settings = kept) }, this.now(), ttlMs, read);
  }

  /** How many memory points the namespace holds. */
  size(namespace: string, ttlMs: number, read: () => Promise<number>): Promise<number> {
    const reads = this.of(namespace);
    return reuse({ get: () => reads.size, set: (kept) => (reads.size = kept) }, this.now(), ttlMs, read);
  }

  /** How many of the namespace's memory points hold a lexical term. */
  holding(namespace: string, term: number, ttlMs: number, read: () => Promise<number>): Promise<number> {
    const { holding } = this.of(namespace);
    return reuse({ get: () => holding.get(term), set: (kept) => (kept ? holding.set(term, kept) : holding.delete(term)) }, this.now(), ttlMs, read);
  }

  /** Drops what is kept of the namespace, or of every namespace. */
  forget(namespace?: string): void {
    if (namespace === undefined) this.namespaces.clear();
    else this.namespaces.delete(namespace);
  }

  private of(namespace: string): NamespaceReads {
    let reads = this.namespaces.get(namespace);
    if (!reads) {
      reads = new NamespaceReads();
      this.namespaces.set(namespace, reads);
    }
    return reads;
  }
}

const caches = new RecentMap<string, QdrantReadCache>(MAX_COLLECTIONS);

/** The process's cache of a collection on a server (one per URL and collection name). */
export function readCacheOf(url: string, collection: string): QdrantReadCache {
  const key = JSON.stringify([new URL(url).href, collection]);
  let cache = caches.get(key);
  if (!cache) {
    cache = new QdrantReadCache();
    caches.set(key, cache);
  }
  return cache;
}
