import type { MemoryEntry } from "../../src/memory/entry.js";
import { openSqliteStore } from "../../src/stores/sqlite/store.js";
import type { Embedder } from "../../src/text/embedder.js";
import { createHashEmbedder } from "../../src/text/embedders/create-embedder.js";
import { InProcessLeases, type ReleaseLease } from "../../src/stores/origin-lease.js";
import type { MemoryRecord, MemoryStore, NamespaceSettings, ScoredEntry, SearchPreparation, Vocabulary } from "../../src/stores/port.js";

/**
 * A minimal in-memory MemoryStore for the ingest tests: enough of the port (upsert, delete, get,
 * document versions and ids, stats, a first page of the list) to check what the write side writes.
 * Searches return nothing; the sqlite store's own tests cover search.
 */
export class RecordingStore implements MemoryStore {
  readonly kind = "recording";
  readonly embedding = testEmbedder.spec;
  readonly entries = new Map<string, Map<string, MemoryEntry>>();
  upserts = 0;
  private readonly leases = new InProcessLeases();

  private space(namespace: string): Map<string, MemoryEntry> {
    let space = this.entries.get(namespace);
    if (!space) {
      space = new Map();
      this.entries.set(namespace, space);
    }
    return space;
  }

  all(namespace: string): MemoryEntry[] {
    return [...this.space(namespace).values()];
  }

  async upsert(namespace: string, records: readonly MemoryRecord[]): Promise<void> {
    this.upserts += 1;
    for (const { entry } of records) {
      if (entry.namespace !== namespace) throw new Error("namespace mismatch");
      this.space(namespace).set(entry.id, entry);
    }
  }
  leaseOrigin(origin: string): Promise<ReleaseLease> {
    return this.leases.acquire(origin);
  }
  async delete(namespace: string, ids: readonly string[]): Promise<number> {
    let removed = 0;
    for (const id of ids) if (this.space(namespace).delete(id)) removed += 1;
    return removed;
  }
  async clearNamespace(namespace: string): Promise<number> {
    const n = this.space(namespace).size;
    this.entries.delete(namespace);
    return n;
  }
  async get(namespace: string, ids: readonly string[]): Promise<MemoryEntry[]> {
    return ids.flatMap((id) => this.space(namespace).get(id) ?? []);
  }
  async supersedersOf(namespace: string, ids: readonly string[]): Promise<MemoryEntry[]> {
    return this.all(namespace).filter((entry) => entry.supersedes?.some((id) => ids.includes(id)));
  }
  async denseSearch(): Promise<ScoredEntry[]> {
    return [];
  }
  async lexicalSearch(): Promise<ScoredEntry[]> {
    return [];
  }
  async filteredSearch(): Promise<ScoredEntry[]> {
    return [];
  }
  async list(namespace: string, options: { limit: number }): Promise<{ entries: MemoryEntry[] }> {
    return { entries: this.all(namespace).sort((a, b) => b.timestampMs - a.timestampMs).slice(0, options.limit) };
  }
  async deleteExpired(): Promise<number> {
    return 0;
  }
  async vocabulary(): Promise<Vocabulary> {
    return { persons: [], entities: [], locations: [] };
  }
  async documentVersions(namespace: string, documentIds: readonly string[]): Promise<Record<string, number>> {
    const versions: Record<string, number> = {};
    for (const entry of this.space(namespace).values()) {
      const id = entry.source?.documentId;
      if (id && documentIds.includes(id)) versions[id] = Math.max(versions[id] ?? 0, entry.source?.version ?? 0);
    }
    return versions;
  }
  async documentEntryIds(namespace: string, documentId: string): Promise<string[]> {
    return this.all(namespace).filter((entry) => entry.source?.documentId === documentId).map((entry) => entry.id);
  }
  async originEntryIds(namespace: string, origin: string): Promise<string[]> {
    return this.all(namespace)
      .filter((entry) => entry.source?.origin === origin)
      .map((entry) => entry.id)
      .sort();
  }
  async getSettings(): Promise<NamespaceSettings | undefined> {
    return undefined;
  }
  async setSettings(): Promise<void> {}
  async prepareSearch(): Promise<SearchPreparation> {
    return { termsHeld: false, vectorIndex: "not-indexed" };
  }
  async stats(): Promise<{ namespaces: Record<string, number> }> {
    return { namespaces: Object.fromEntries([...this.entries].map(([ns, space]) => [ns, space.size])) };
  }
  async close(): Promise<void> {}
}

/** The fast deterministic embedder: the write side needs vectors, not good ones. */
export const testEmbedder: Embedder = createHashEmbedder({ dimension: 64 });

/** A real sqlite store in memory, built for `testEmbedder`. */
export function openTestSqliteStore(): Promise<MemoryStore> {
  return openSqliteStore({ path: ":memory:", embedding: testEmbedder.spec });
}
