/**
 * The embedded default MemoryStore: one sqlite file (or `:memory:`) holding the entries, an FTS5 index
 * of their tokens (BM25), a sqlite-vec index of their vectors (cosine), and name indexes for filters.
 *
 * Guarantees:
 * - One `upsert` call is one transaction over every entry row and every index row of them, however
 *   many records it holds: a failure anywhere (validation runs before, but a disk error or a crash can
 *   strike inside) leaves no part of the call. writeMemories relies on this to write a whole ingest at
 *   once; 100k records of 512-d commit in one transaction in ~13 s (see writeMemories for memory).
 * - Every statement that reads or deletes entries is bound to one namespace.
 * - The embedding spec that built the store is recorded; opening with another is an EmbedderMismatchError.
 * - Opened `readOnly`, the file is never written: no schema step, no pragma that writes, and every
 *   write operation is a ReadOnlyStoreError naming it (read-only.ts: how a WAL file is read that way).
 *
 * Honest caveats:
 * - BM25 statistics (document frequency, average length) come from the whole file, all namespaces
 *   together, as FTS5 keeps one index: another namespace's texts can shift scores, never results.
 * - Dense search is exact by default, and its cost grows linearly with the namespace: vec0 KNN is a
 *   brute-force scan of the namespace's partition (see vectors.ts), with no SIMD in this sqlite-vec build
 *   (~0.8 µs per 512-d row); an in-memory copy scanned by usearch's SIMD kernel returns the same rows,
 *   distances and tie order about 3x faster, within `vectorCacheMiB` (vector-search.ts, exact-vectors.ts).
 *   Approximate search is opt-in (`vectorIndex: "hnsw"`, namespaces of `hnswMinEntries` or more): an HNSW
 *   index per namespace, saved beside the file and kept consistent through the change log (vector-search.ts).
 * - better-sqlite3 is synchronous: calls run on the caller's thread, one at a time.
 */
import type Database from "better-sqlite3";
import { z } from "zod";
import { errorMessage, parseOrThrow, ReadOnlyStoreError, RecallGraphError, StoreError } from "../../core/errors.js";
import type { MemoryEntry } from "../../memory/entry.js";
import { pageOf } from "../list-cursor.js";
import { foldName, isEmptyFilter, NamespaceSettingsSchema, type FilteredSearchOptions, type ListOptions, type ListPage, type MemoryFilter, type MemoryRecord, type IndexBuildResult, type MemoryStore, type NamespaceSettings, type ScoredEntry, type SearchOptions, type SearchPreparation, type Vocabulary } from "../port.js";
import { EmbeddingSpecSchema, type EmbeddingSpec } from "../../text/embedder.js";
import {
  ClockSchema,
  validateDocumentId,
  validateDocumentIds,
  validateFilter,
  validateIds,
  validateK,
  validateListOptions,
  validateNamespace,
  validateOrigin,
  validateQuery,
  validateRecords,
  validateSearchOptions,
  validateSettings,
  validateVector,
} from "../validation.js";
import { EntryChanges } from "./entry-changes.js";
import { FilterMatches, membershipTest } from "./filter-matches.js";
import { filterParts, filterSql, LIVE_ENTRY_SQL, nameCountParts, newestFirstDrive, type FilterSql, type NameDrive, type RowidSql } from "./filter-sql.js";
import { jsonOrUndefined, ParsedEntries } from "./parsed-entries.js";
import { ftsColumns, ftsColumnsOfJson, namespaceTerm, queryTerms } from "./fts-terms.js";
import { BM25_B } from "../../text/bm25.js";
import { LexicalIndex, type LexicalIndexCounters } from "./lexical-index.js";
import { DEFAULT_LEXICAL_CACHE_ENTRIES, LexicalIndexFields } from "./lexical-index-fields.js";
import { hasVectorBookkeeping, mapForVectorScans, openDatabase, ORIGIN_OF_BODY, storeId, type SqliteDatabase } from "./schema.js";
import { termsFolder } from "./store-file.js";
import { freshCounters, VectorSearch, VectorSearchOptionsSchema, type VectorSearchCounters } from "./vector-search.js";
import { SharedLeases, type ReleaseLease } from "../origin-lease.js";
import { SqliteLeaseBook } from "./origin-leases.js";
import { cosineFromUnitL2, unitVectorBlob } from "./vectors.js";

export const SqliteStoreOptionsSchema = z.strictObject({
  path: z.string({ error: "path is required" }).min(1, "path must not be empty").describe("A file path (created when absent, WAL mode) or :memory:"),
  embedding: EmbeddingSpecSchema.describe("The embedder the vectors are made with; the file refuses another"),
  clock: ClockSchema,
  readOnly: z
    .boolean()
    .default(false)
    .describe("Open an existing store file without ever writing it: every write operation throws ReadOnlyStoreError"),
  ...VectorSearchOptionsSchema.shape,
  lexicalCacheEntries: LexicalIndexFields.lexicalCacheEntries.default(DEFAULT_LEXICAL_CACHE_ENTRIES),
  bm25B: LexicalIndexFields.bm25B.default(BM25_B),
});
export type SqliteStoreOptions = z.input<typeof SqliteStoreOptionsSchema>;

/**
 * Filtered dense search measures the filter's matches one by one (a point lookup each) while they are
 * few, and otherwise post-filters a KNN over the namespace. Measured at 100k 512-d rows: a point lookup
 * costs ~11 µs as a statement of its own, a row of a KNN pass ~0.8 µs, so one by one wins below ~1/14
 * of the namespace. All of a filter's lookups go in one statement, ~3.5 µs each at 100k (the share was
 * not measured again); past SQLite's 2 GB memory map, as at a million rows, ~12 µs, since each lookup
 * walks its vector chunk's overflow pages through reads.
 */
const DIRECT_DISTANCE_SHARE = 1 / 16;
const DIRECT_DISTANCE_MIN = 512;
/**
 * With vectors in memory, a filter's matches are scanned on their own (copied out, then one SIMD pass)
 * while they are at most this share of the namespace; beyond it, copying them costs more than the
 * widened KNN, which then needs at most 8k rows to find k of them.
 */
const IN_MEMORY_SUBSET_MAX_SHARE = 1 / 4;
/** vec0's own ceiling on k. */
const VEC0_MAX_K = 4096;
/**
 * Unfiltered searches skip a namespace's expired, unpruned entries by over-fetching past them while
 * they are at most this many; beyond it they take the filtered path (the index joined, expired ones
 * excluded in SQL), slower but exact whatever has piled up before a `deleteExpired`.
 */
const EXPIRED_SKIP_MAX = 1024;
/**
 * Filters whose matches are kept per store: a few speakers and time windows a run of questions keeps
 * asking, each condition's matches apart and their intersection (three for a speaker in a window).
 */
const FILTER_MATCHES_KEPT = 128;
/** Parsed entries kept per store: a few MB, more than the entries a run of questions over one namespace keeps loading. */
const PARSED_ENTRIES_LIMIT = 8192;

/**
 * Opens (creating when absent) a sqlite store. Throws EmbedderMismatchError when it was built by another
 * embedder. With `readOnly` the file must exist at the current schema version (else ReadOnlyStoreError).
 */
export async function openSqliteStore(options: SqliteStoreOptions): Promise<SqliteMemoryStore> {
  const config = parseOrThrow(SqliteStoreOptionsSchema, options, "sqlite");
  const { db, file } = openDatabase(config.path, config.embedding, { readOnly: config.readOnly });
  try {
    const vectors = await VectorSearch.open({ db, dimension: config.embedding.dimension, file, readOnly: config.readOnly }, config);
    if (!vectors.searchesInMemory) mapForVectorScans(db, file);
    return new SqliteMemoryStore(db, file, config.embedding, config.clock ?? Date.now, config.readOnly, vectors, config.lexicalCacheEntries, config.bm25B);
  } catch (error) {
    db.close();
    throw new StoreError("open", `"${config.path}": ${errorMessage(error)}`, { cause: error });
  }
}

interface RowidRow {
  rowid: number;
}
interface EntryJsonRow {
  rowid: number;
  entry_json: string;
}
interface DistanceRow {
  rowid: number;
  distance: number;
}
interface ScoreRow {
  rowid: number;
  score: number;
}

/** A record ready to write: everything that can fail outside SQLite is computed before the transaction. */
interface PreparedRecord {
  entry: MemoryEntry;
  vectorBlob: Buffer;
  terms: { text: string; tags: string };
  names: { kind: "person" | "entity" | "location"; nameLower: string; name: string }[];
}

export class SqliteMemoryStore implements MemoryStore {
  readonly kind = "sqlite" as const;
  private closed = false;
  private readonly statements: ReturnType<typeof prepareStatements>;
  /** BM25 over one namespace at a time (lexical-index.ts), from its terms in memory or FTS5's matches. */
  private readonly lexical: LexicalIndex;
  /** The namespaces' generations (entry-changes.ts), which decide when kept filter matches are stale; absent without the change log. */
  private readonly changes: EntryChanges | undefined;
  /** Filters' matches kept between searches (filter-matches.ts). */
  private readonly filterMatches = new FilterMatches(FILTER_MATCHES_KEPT);
  /** Entries parsed from their rows (parsed-entries.ts): each row's JSON validated once. */
  private readonly parsed = new ParsedEntries(PARSED_ENTRIES_LIMIT);
  /** Ingest leases of sources, kept in the file (origin-leases.ts). */
  private readonly leases: SharedLeases;
  /** Statements built from filters, by SQL text: a filter has few shapes, each is prepared once. */
  private readonly filterStatements = new Map<string, Database.Statement<unknown[], unknown>>();

  /** Use openSqliteStore. */
  constructor(
    private readonly db: SqliteDatabase,
    /** The database file, empty for `:memory:`. */
    readonly file: string,
    readonly embedding: EmbeddingSpec,
    /** Epoch ms deciding what has expired, read once per call. */
    private readonly clock: () => number = Date.now,
    /** Refuses every write operation (the connection is read-only too: this makes the refusal typed and first). */
    readonly readOnly = false,
    /** Where nearest-neighbour lookups run (vector-search.ts); absent, sqlite-vec answers them all. */
    private readonly vectors?: VectorSearch,
    /** Entries whose terms lexical search may keep in memory (lexical-index.ts); 0, every search ranks FTS5's matches. */
    lexicalCacheEntries = DEFAULT_LEXICAL_CACHE_ENTRIES,
    /** BM25's length normalisation (lexical-index-fields.ts). */
    bm25B = BM25_B,
  ) {
    this.statements = prepareStatements(db);
    this.leases = new SharedLeases(new SqliteLeaseBook(db), "sqlite");
    // Without the change log (a read-only file an older version wrote), no terms are kept in memory: every search ranks FTS5's matches.
    this.changes = hasVectorBookkeeping(db) ? new EntryChanges(db) : undefined;
    const id = file ? storeId(db) : undefined;
    const savedTerms = id === undefined ? undefined : { folder: termsFolder(file), storeId: id, readOnly };
    this.lexical = new LexicalIndex(db, this.changes, ftsColumnsOfJson, lexicalCacheEntries, bm25B, savedTerms);
  }

  async upsert(namespace: string, records: readonly MemoryRecord[]): Promise<void> {
    return this.write("upsert", () => {
      const ns = validateNamespace(namespace);
      const prepared = validateRecords(ns, records, this.embedding.dimension, unitVectorBlob).map(
        ({ entry, vector }): PreparedRecord => ({ entry, vectorBlob: vector, terms: ftsColumns(entry), names: indexedNames(entry) }),
      );
      if (!prepared.length) return;
      const s = this.statements;
      const nsTerm = namespaceTerm(ns);
      this.db
        .transaction(() => {
          for (const { entry, vectorBlob, terms, names } of prepared) {
            const row = [entry.timestampMs, entry.source?.documentId ?? null, entry.source?.version ?? null, entry.expiresAtMs ?? null] as const;
            const existing = s.rowidOf.get(ns, entry.id);
            let rowid: number;
            if (existing) {
              rowid = existing.rowid;
              this.deleteIndexRows(rowid);
              s.updateEntry.run(...row, rowid);
            } else {
              rowid = Number(s.insertEntry.run(ns, entry.id, ...row).lastInsertRowid);
            }
            s.upsertBody.run(rowid, JSON.stringify(entry));
            s.insertTerms.run(rowid, nsTerm, terms.text, terms.tags);
            s.insertVector.run(BigInt(rowid), ns, vectorBlob);
            for (const name of names) s.insertName.run(ns, name.kind, name.nameLower, rowid, name.name);
            for (const supersededId of entry.supersedes ?? []) s.insertSupersedes.run(ns, supersededId, rowid);
          }
        })
        .immediate();
      this.vectors?.afterWrite(ns);
    });
  }

  async delete(namespace: string, ids: readonly string[]): Promise<number> {
    return this.write("delete", () => {
      const ns = validateNamespace(namespace);
      const unique = validateIds(ids);
      const s = this.statements;
      const removed = this.db
        .transaction(() => {
          let count = 0;
          for (const id of unique) {
            const existing = s.rowidOf.get(ns, id);
            if (!existing) continue;
            this.deleteEntryRows(existing.rowid);
            count += 1;
          }
          return count;
        })
        .immediate();
      if (removed) this.afterErase(ns);
      return removed;
    });
  }

  async clearNamespace(namespace: string): Promise<number> {
    return this.write("clearNamespace", () => {
      const ns = validateNamespace(namespace);
      const s = this.statements;
      const cleared = this.db
        .transaction(() => {
          const rowids = s.namespaceRowids.all(ns);
          // FTS5 and vec0 rows go one by one: both delete by rowid, neither can join on the namespace.
          for (const rowid of rowids) {
            s.deleteTerms.run(rowid);
            s.deleteVector.run(BigInt(rowid));
            s.deleteBody.run(rowid);
          }
          s.deleteNamespaceNames.run(ns);
          s.deleteNamespaceSupersedes.run(ns);
          s.deleteNamespaceEntries.run(ns);
          s.deleteSettings.run(ns);
          return rowids.length;
        })
        .immediate();
      if (cleared) this.afterErase(ns);
      return cleared;
    });
  }

  async get(namespace: string, ids: readonly string[]): Promise<MemoryEntry[]> {
    return this.run("get", () => {
      const ns = validateNamespace(namespace);
      const unique = validateIds(ids);
      if (!unique.length) return [];
      const rows = this.statements.entriesByIds.all(ns, JSON.stringify(unique), this.clock());
      const byId = new Map(rows.map((row) => [row.id, this.parseEntry("get", row.entry_json, row.rowid, ns)]));
      return unique.flatMap((id) => {
        const entry = byId.get(id);
        return entry ? [entry] : [];
      });
    });
  }

  async supersedersOf(namespace: string, ids: readonly string[]): Promise<MemoryEntry[]> {
    return this.run("supersedersOf", () => {
      const ns = validateNamespace(namespace);
      const unique = validateIds(ids);
      if (!unique.length) return [];
      const rows = this.statements.superseders.all(ns, JSON.stringify(unique), ns, this.clock());
      return rows.map((row) => this.parseEntry("supersedersOf", row.entry_json, row.rowid, ns));
    });
  }

  async denseSearch(namespace: string, vector: readonly number[], options: SearchOptions): Promise<ScoredEntry[]> {
    return this.run("denseSearch", () => {
      const ns = validateNamespace(namespace);
      const query = unitVectorBlob(validateVector(vector, this.embedding.dimension, "vector"), "vector");
      const { k, filter } = validateSearchOptions(options);
      const now = this.clock();
      const nearest = isEmptyFilter(filter) ? this.nearestLive(ns, query, k, now) : this.nearestMatching(ns, query, k, filter, now);
      return this.scored("denseSearch", ns, nearest.map((hit) => ({ rowid: hit.rowid, score: cosineFromUnitL2(hit.distance) })));
    });
  }

  async lexicalSearch(namespace: string, query: string, options: SearchOptions): Promise<ScoredEntry[]> {
    return this.run("lexicalSearch", () => {
      const ns = validateNamespace(namespace);
      const text = validateQuery(query);
      const { k, filter } = validateSearchOptions(options);
      const terms = queryTerms(text);
      if (!terms.length) return [];
      const now = this.clock();
      // One read transaction: the rows, the namespace's statistics and the filter's matches come from one snapshot.
      const hits = this.db.transaction(() => this.lexical.ranked(ns, terms, this.liveAndMatching(ns, filter, now), k))();
      return this.scored("lexicalSearch", ns, hits);
    });
  }

  async filteredSearch(namespace: string, filter: MemoryFilter, options: FilteredSearchOptions): Promise<ScoredEntry[]> {
    return this.run("filteredSearch", () => {
      const ns = validateNamespace(namespace);
      const conditions = validateFilter(filter);
      const k = validateK(options?.k);
      const query =
        options.vector === undefined ? undefined : unitVectorBlob(validateVector(options.vector, this.embedding.dimension, "vector"), "vector");
      if (isEmptyFilter(conditions)) return [];
      const now = this.clock();
      if (query) {
        const nearest = this.nearestMatching(ns, query, k, conditions, now);
        return this.scored("filteredSearch", ns, nearest.map((hit) => ({ rowid: hit.rowid, score: cosineFromUnitL2(hit.distance) })));
      }
      const { where, params } = filterSql(ns, conditions, now, this.newestFirstDrive(ns, conditions, k));
      const rows = this.filterStatement<RowidRow>(
        `SELECT e.rowid AS rowid FROM entries AS e WHERE ${where} ORDER BY e.timestamp_ms DESC, e.rowid DESC LIMIT ?`,
      ).all(...params, k);
      // Newest first carries the ranking; every hit satisfies the filter equally.
      return this.scored("filteredSearch", ns, rows.map((row) => ({ rowid: row.rowid, score: 1 })));
    });
  }

  async list(namespace: string, options: ListOptions): Promise<ListPage> {
    return this.run("list", () => {
      const ns = validateNamespace(namespace);
      const { limit, filter, after } = validateListOptions(options);
      const { where, params } = filterSql(ns, filter, this.clock(), this.newestFirstDrive(ns, filter, limit + 1));
      // After the cursor in (timestamp desc, id asc) order; the `<=` lets the time index bound the scan.
      const position = after ? " AND e.timestamp_ms <= ? AND (e.timestamp_ms < ? OR e.id > ?)" : "";
      const positionParams = after ? [after.timestampMs, after.timestampMs, after.id] : [];
      // One row more than the page: it tells whether another page follows.
      const rowids = this.filterStatement<RowidRow>(
        `SELECT e.rowid AS rowid FROM entries AS e WHERE ${where}${position} ORDER BY e.timestamp_ms DESC, e.id LIMIT ?`,
      )
        .all(...params, ...positionParams, limit + 1)
        .map((row) => row.rowid);
      const byRowid = this.entriesByRowid("list", ns, rowids);
      return pageOf(rowids.flatMap((rowid) => byRowid.get(rowid) ?? []), limit);
    });
  }

  async leaseOrigin(origin: string): Promise<ReleaseLease> {
    if (this.closed) throw new StoreError("leaseOrigin", "store is closed");
    // Nothing to hold a source against where nothing can be written: the ingest's write is refused by name.
    if (this.readOnly) return async () => {};
    return this.leases.acquire(origin);
  }

  async deleteExpired(namespace?: string): Promise<number> {
    return this.write("deleteExpired", () => {
      const ns = namespace === undefined ? undefined : validateNamespace(namespace);
      const now = this.clock();
      const s = this.statements;
      const pruned = this.db
        .transaction(() => {
          const rowids = ns === undefined ? s.expiredEverywhere.all(now) : s.expiredInNamespace.all(ns, now, -1);
          for (const rowid of rowids) this.deleteEntryRows(rowid);
          return rowids.length;
        })
        .immediate();
      if (pruned) this.afterErase(ns);
      return pruned;
    });
  }

  async vocabulary(namespace: string): Promise<Vocabulary> {
    return this.run("vocabulary", () => {
      const ns = validateNamespace(namespace);
      const vocabulary: Vocabulary = { persons: [], entities: [], locations: [] };
      const lists = { person: vocabulary.persons, entity: vocabulary.entities, location: vocabulary.locations };
      for (const row of this.statements.vocabulary.all(ns)) lists[row.kind].push(row.name);
      return vocabulary;
    });
  }

  async documentVersions(namespace: string, documentIds: readonly string[]): Promise<Record<string, number>> {
    return this.run("documentVersions", () => {
      const ns = validateNamespace(namespace);
      const ids = validateDocumentIds(documentIds);
      const versions: Record<string, number> = {};
      if (!ids.length) return versions;
      for (const row of this.statements.documentVersions.all(ns, JSON.stringify(ids))) versions[row.document_id] = row.version;
      return versions;
    });
  }

  async documentEntryIds(namespace: string, documentId: string): Promise<string[]> {
    return this.run("documentEntryIds", () => {
      const ns = validateNamespace(namespace);
      const id = validateDocumentId(documentId);
      return this.statements.documentEntryIds.all(ns, id);
    });
  }

  async originEntryIds(namespace: string, origin: string): Promise<string[]> {
    return this.run("originEntryIds", () => {
      const ns = validateNamespace(namespace);
      return this.statements.originEntryIds.all(validateOrigin(origin), ns);
    });
  }

  async getSettings(namespace: string): Promise<NamespaceSettings | undefined> {
    return this.run("getSettings", () => {
      const ns = validateNamespace(namespace);
      const row = this.statements.getSettings.get(ns);
      if (row === undefined) return undefined;
      const parsed = NamespaceSettingsSchema.safeParse(jsonOrUndefined(row));
      if (!parsed.success) throw new StoreError("getSettings", `settings of namespace "${ns}" are corrupt`);
      return parsed.data;
    });
  }

  async setSettings(namespace: string, settings: NamespaceSettings): Promise<void> {
    return this.write("setSettings", () => {
      const ns = validateNamespace(namespace);
      const parsed = validateSettings(settings);
      this.statements.setSettings.run(ns, JSON.stringify(parsed));
    });
  }

  async stats(): Promise<{ namespaces: Record<string, number>; bytes?: number }> {
    return this.run("stats", () => {
      // fromEntries defines own properties, so a namespace named "__proto__" is counted like any other.
      const namespaces: Record<string, number> = Object.fromEntries(this.statements.namespaceCounts.all().map((row) => [row.namespace, row.count]));
      if (!this.file) return { namespaces };
      const pageCount = Number(this.db.pragma("page_count", { simple: true }));
      const pageSize = Number(this.db.pragma("page_size", { simple: true }));
      return { namespaces, bytes: pageCount * pageSize };
    });
  }

  /**
   * Reads the namespace's terms into memory now, for lexical search (lexical-index.ts), instead of in
   * the background after its first search; false when FTS5 keeps answering (beyond lexicalCacheEntries,
   * or an entry that cannot be read).
   */
  async buildLexicalIndex(namespace: string): Promise<boolean> {
    const ns = await this.run("buildLexicalIndex", () => validateNamespace(namespace));
    return this.lexical.build(ns);
  }

  /**
   * With `vectorIndex: "hnsw"`: makes the namespace's HNSW index ready now (loads its saved file, or
   * builds it, waiting for a build under way) instead of at its first search. "not-indexed" when the
   * namespace is searched exactly (another kind, fewer than `hnswMinEntries` entries, no usearch).
   */
  async buildVectorIndex(namespace: string): Promise<IndexBuildResult> {
    const ns = await this.run("buildVectorIndex", () => validateNamespace(namespace));
    return this.vectors ? this.vectors.buildIndex(ns) : "not-indexed";
  }

  /** Both of the above, each saved beside the file for the next opening if it holds what the saved one does not. */
  async prepareSearch(namespace: string): Promise<SearchPreparation> {
    const ns = await this.run("prepareSearch", () => validateNamespace(namespace));
    const termsHeld = await this.lexical.prepare(ns);
    const vectorIndex = this.vectors ? await this.vectors.prepare(ns) : "not-indexed";
    return { termsHeld, vectorIndex };
  }

  /** What the in-memory lexical terms did so far (for tests and stats); zeros when every search ranks FTS5's matches. */
  lexicalIndexCounters(): Readonly<LexicalIndexCounters> {
    return { ...this.lexical.counters };
  }

  /** What the in-memory vector structures did so far (indexes loaded, built, saved; exact copies read; catch-ups). */
  vectorSearchCounters(): Readonly<VectorSearchCounters> {
    return { ...(this.vectors?.counters ?? freshCounters()) };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      // First: it saves unsaved indexes, which records the generation read from the still-open database.
      this.vectors?.close();
      this.lexical.close();
      this.filterMatches.clear();
      this.parsed.clear();
      this.db.close();
    } catch (error) {
      throw new StoreError("close", errorMessage(error), { cause: error });
    }
  }

  // -------------------------------------------------------------------------------------------

  /** Runs one operation: refused after close; anything but our own errors becomes a StoreError naming it. */
  private run<T>(operation: string, body: () => T): Promise<T> {
    try {
      if (this.closed) throw new StoreError(operation, "store is closed");
      return Promise.resolve(body());
    } catch (error) {
      if (error instanceof RecallGraphError) return Promise.reject(error);
      return Promise.reject(new StoreError(operation, `sqlite: ${errorMessage(error)}`, { cause: error }));
    }
  }

  /** Runs a write operation, refused before it looks at its input when the store is read-only. */
  private write<T>(operation: string, body: () => T): Promise<T> {
    if (this.readOnly && !this.closed) return Promise.reject(new ReadOnlyStoreError(operation));
    return this.run(operation, body);
  }

  /** Removes an entry: its row, its body and every index row of it. */
  /**
   * After entries are deleted: the connection's secure_delete has zeroed their rows' pages, but their
   * words stay in FTS5's index segments until those merge, and the old page images stay in the WAL
   * until a checkpoint. Merging the index (milliseconds at 20k entries) and checkpointing (best effort:
   * another connection's open read keeps the WAL) leave a forgotten memory's text in neither; the
   * namespace's saved terms are saved anew without its words, or removed (lexical-index.ts).
   */
  private afterErase(namespace: string | undefined): void {
    this.vectors?.afterWrite(namespace);
    this.lexical.afterErase(namespace);
    this.db.exec("INSERT INTO entry_terms (entry_terms) VALUES ('optimize')");
    this.db.pragma("wal_checkpoint(TRUNCATE)");
  }

  private deleteEntryRows(rowid: number): void {
    this.deleteIndexRows(rowid);
    this.statements.deleteBody.run(rowid);
    this.statements.deleteEntry.run(rowid);
  }

  /**
   * Rowids of the namespace's entries expired at `now` but not yet pruned, when at most `max` of them
   * (usually none: one lookup in the partial expiry index); undefined when there are more.
   */
  private expiredRowids(namespace: string, now: number, max: number): Set<number> | undefined {
    const rowids = this.statements.expiredInNamespace.all(namespace, now, max + 1);
    return rowids.length > max ? undefined : new Set(rowids);
  }

  /** Removes every index row of one entry (terms, vector, names); the caller removes or rewrites the entry row. */
  private deleteIndexRows(rowid: number): void {
    const s = this.statements;
    s.deleteTerms.run(rowid);
    s.deleteVector.run(BigInt(rowid));
    s.deleteNames.run(rowid);
    s.deleteSupersedes.run(rowid);
  }

  /** The prepared statement of `sql`, kept; `plucked`, it answers each row's first column alone (a statement of its own). */
  private filterStatement<Row>(sql: string, plucked = false): Database.Statement<unknown[], Row> {
    const key = plucked ? `pluck ${sql}` : sql;
    let statement = this.filterStatements.get(key);
    if (!statement) {
      statement = this.db.prepare<unknown[], unknown>(sql);
      if (plucked) statement.pluck();
      this.filterStatements.set(key, statement);
    }
    // Rows are shaped by the SQL text, which this class writes: the caller names the shape it selected.
    return statement as Database.Statement<unknown[], Row>;
  }

  /**
   * Which rowids a search of the namespace may return: not expired (usually none are), and meeting the
   * filter. With many expired entries, the filter and the clock are asked of SQL together.
   */
  private liveAndMatching(namespace: string, filter: MemoryFilter | undefined, now: number): (rowid: number) => boolean {
    if (isEmptyFilter(filter)) {
      const expired = this.expiredRowids(namespace, now, EXPIRED_SKIP_MAX);
      if (expired) return (rowid) => !expired.has(rowid);
    }
    const kept = this.keptMatches(namespace, filter, now);
    if (kept) return membershipTest(kept);
    const matching = new Set(this.matchingRowids(filterSql(namespace, filter, now)));
    return (rowid) => matching.has(rowid);
  }

  /**
   * The live entries of the namespace meeting a non-empty filter, from its matches kept between searches
   * while the namespace is unchanged (filter-matches.ts), the few expired ones left out; undefined when
   * there is no change log to tell staleness by, or too many entries have expired to list.
   */
  private keptMatches(namespace: string, filter: MemoryFilter | undefined, now: number): ReadonlySet<number> | undefined {
    if (!this.changes || isEmptyFilter(filter)) return undefined;
    const expired = this.expiredRowids(namespace, now, EXPIRED_SKIP_MAX);
    if (!expired) return undefined;
    const generation = this.changes.generation(namespace);
    const kept = (part: RowidSql) => this.filterMatches.get(JSON.stringify([part.sql, part.params]), generation, () => this.selectedRowids(part));
    const parts = filterParts(namespace, filter);
    const [only] = parts;
    const matches =
      parts.length === 1 && only
        ? kept(only)
        : this.filterMatches.get(JSON.stringify(parts), generation, () => intersection(parts.map(kept)));
    if (expired.size === 0) return matches;
    return new Set([...matches].filter((rowid) => !expired.has(rowid)));
  }

  /**
   * What should drive a read of the namespace's newest `wanted` entries meeting `filter`: its names'
   * index rows, or the time index when the names are carried by so large a share of the namespace that
   * walking it newest first meets `wanted` of them sooner (filter-sql.ts, newestFirstDrive).
   */
  private newestFirstDrive(namespace: string, filter: MemoryFilter | undefined, wanted: number): NameDrive {
    const parts = nameCountParts(namespace, filter);
    if (parts.length === 0) return "names";
    const counts = parts.map((part) => this.filterStatement<number>(part.sql, true).get(...part.params) ?? 0);
    return newestFirstDrive(counts, this.entryCount(namespace), wanted);
  }

  /** The rowids of the entries a filter's SQL selects. */
  private matchingRowids({ where, params }: FilterSql): number[] {
    return this.selectedRowids({ sql: `SELECT e.rowid AS rowid FROM entries AS e WHERE ${where}`, params });
  }

  private selectedRowids({ sql, params }: RowidSql): number[] {
    // Plucked, one number per row: a speaker's 75k matches at a million memories read in ~11-15 ms, where an object per row took ~35-65.
    return this.filterStatement<number>(sql, true).all(...params);
  }

  /**
   * The k nearest vectors of the namespace, expired ones included: exact (usearch's kernel or vec0's KNN
   * inside the namespace's partition, the same rows either way) unless an HNSW index serves the namespace.
   */
  private nearestInNamespace(namespace: string, query: Buffer, k: number): DistanceRow[] {
    return this.vectors?.nearest(namespace, query, k) ?? this.statements.knn.all(query, k, namespace);
  }

  /**
   * Exact k nearest live entries of the namespace: a KNN of k plus the few expired ones, those dropped
   * (at most that many of the hits can be expired); with many expired, the filtered path instead.
   */
  private nearestLive(namespace: string, query: Buffer, k: number, now: number): DistanceRow[] {
    const expired = this.expiredRowids(namespace, now, Math.min(EXPIRED_SKIP_MAX, VEC0_MAX_K - k));
    if (!expired) return this.nearestMatching(namespace, query, k, undefined, now);
    return withoutRowids(this.nearestInNamespace(namespace, query, k + expired.size), expired, k);
  }

  /**
   * Exact k nearest among the namespace's entries that satisfy `filter`. Few matches: their distances
   * one by one (a point lookup each). Many: a KNN over the namespace, the hits checked against the
   * filter (its kept matches, else SQL), widened until k pass; that is exact, since every match outside
   * the nearest `width` is farther than every one inside. Matches are counted first, never all loaded into memory. With the
   * namespace's vectors in memory (vector-search.ts), the matches, unless most of the namespace, are
   * scanned on their own instead: the same hits, ties ordered as the path above would order them.
   */
  private nearestMatching(namespace: string, query: Buffer, k: number, filter: MemoryFilter | undefined, now: number): DistanceRow[] {
    const { where, params } = filterSql(namespace, filter, now);
    const kept = this.keptMatches(namespace, filter, now);
    const matches = kept?.size ?? this.filterStatement<{ count: number }>(`SELECT count(*) AS count FROM entries AS e WHERE ${where}`).get(...params)?.count ?? 0;
    if (!matches) return [];
    const namespaceSize = matches > DIRECT_DISTANCE_MIN ? this.entryCount(namespace) : 0;
    const oneByOne = matches <= Math.max(DIRECT_DISTANCE_MIN, namespaceSize * DIRECT_DISTANCE_SHARE);
    // In memory, the matches themselves are scanned unless they are most of the namespace (then the
    // widened KNN below needs few extra rows), with the tie order of the path the store would take.
    if (oneByOne || matches <= namespaceSize * IN_MEMORY_SUBSET_MAX_SHARE) {
      const matching = () => (kept ? [...kept] : this.matchingRowids({ where, params }));
      const inMemory = this.vectors?.nearestAmong(namespace, query, k, matching, oneByOne ? "rowid" : "vec0");
      if (inMemory) return inMemory;
    }
    if (!oneByOne) {
      const matchingAmong = this.matchingAmong(kept, { where, params });
      // Expect k matches among the nearest k * size / matches; ask for twice that so one pass nearly always suffices.
      const expectedWidth = Math.ceil((2 * k * namespaceSize) / matches);
      for (let width = Math.min(VEC0_MAX_K, Math.max(k * 4, expectedWidth)); ; width = Math.min(VEC0_MAX_K, width * 4)) {
        // With kept matches the in-memory search checks its candidates itself (an index reads fewer vectors so).
        const among = kept && { width, accepts: membershipTest(kept) };
        const hits = (among && this.vectors?.nearest(namespace, query, k, among)) ?? matchingAmong(this.nearestInNamespace(namespace, query, width));
        if (hits.length >= k || width >= namespaceSize) return hits.slice(0, k);
        if (width === VEC0_MAX_K) break;
      }
      // vec0 looks no further than 4096 rows: the matches are far from the query, measure them all.
    }
    // One statement for all the matches: a statement per match costs as much again in calls as the distances.
    const rowids = kept ? [...kept] : this.matchingRowids({ where, params });
    const distances = this.statements.distancesTo.all(query, JSON.stringify(rowids));
    return distances.sort((a, b) => a.distance - b.distance || a.rowid - b.rowid).slice(0, k);
  }

  /**
   * The hits, in order, that meet the filter: checked against its kept matches, or else in SQL (the
   * hits drive a CROSS JOIN, each checked against the filter, not the whole namespace scanned).
   */
  private matchingAmong(kept: ReadonlySet<number> | undefined, { where, params }: FilterSql): (hits: readonly DistanceRow[]) => DistanceRow[] {
    if (kept) return (hits) => hits.filter((hit) => kept.has(hit.rowid));
    const passingAmong = this.filterStatement<RowidRow>(
      `SELECT e.rowid AS rowid FROM json_each(?) AS hit CROSS JOIN entries AS e ON e.rowid = hit.value WHERE ${where}`,
    );
    return (hits) => {
      const passing = new Set(passingAmong.all(JSON.stringify(hits.map((hit) => hit.rowid)), ...params).map((row) => row.rowid));
      return hits.filter((hit) => passing.has(hit.rowid));
    };
  }

  /** The namespace's entries, counted once per generation when the change log says when to count again. */
  private entryCount(namespace: string): number {
    return this.changes?.entryCount(namespace) ?? this.statements.namespaceSize.get(namespace) ?? 0;
  }

  /** Loads the entries of ranked rowids, keeping order and scores. */
  private scored(operation: string, namespace: string, ranked: readonly ScoreRow[]): ScoredEntry[] {
    const byRowid = this.entriesByRowid(operation, namespace, ranked.map((hit) => hit.rowid));
    return ranked.flatMap((hit) => {
      const entry = byRowid.get(hit.rowid);
      // A hit whose entry row is not in this namespace (impossible while the indexes are consistent) is dropped, never leaked.
      return entry === undefined ? [] : [{ entry, score: hit.score }];
    });
  }

  /**
   * The entries of these rowids that belong to the namespace, by rowid: those parsed while the namespace
   * stood at its current generation (unchanged since, so unread), the others read and parsed.
   */
  private entriesByRowid(operation: string, namespace: string, rowids: readonly number[]): Map<number, MemoryEntry> {
    const byRowid = new Map<number, MemoryEntry>();
    if (!rowids.length) return byRowid;
    const generation = this.changes?.generation(namespace);
    const unread: number[] = [];
    for (const rowid of rowids) {
      const entry = generation === undefined ? undefined : this.parsed.unchanged(rowid, generation);
      if (entry?.namespace === namespace) byRowid.set(rowid, entry);
      else unread.push(rowid);
    }
    if (!unread.length) return byRowid;
    for (const row of this.statements.bodiesByRowids.all(JSON.stringify(unread), namespace)) {
      byRowid.set(row.rowid, this.parseEntry(operation, row.entry_json, row.rowid, namespace, generation));
    }
    return byRowid;
  }

  private parseEntry(operation: string, json: string, rowid: number, namespace: string, generation?: number): MemoryEntry {
    const entry = this.parsed.parse(rowid, json, generation);
    if (entry === undefined || entry.namespace !== namespace) {
      throw new StoreError(operation, `entry row ${rowid} of namespace "${namespace}" is corrupt`);
    }
    return entry;
  }
}

/** The rowids every set holds, walking the smallest. */
function intersection(sets: readonly ReadonlySet<number>[]): number[] {
  const [smallest, ...others] = [...sets].sort((a, b) => a.size - b.size);
  return smallest ? [...smallest].filter((rowid) => others.every((set) => set.has(rowid))) : [];
}

/** The first `k` hits whose rowid is not in `skipped`, in order. */
function withoutRowids<Hit extends RowidRow>(hits: readonly Hit[], skipped: ReadonlySet<number>, k: number): Hit[] {
  return hits.filter((hit) => !skipped.has(hit.rowid)).slice(0, k);
}

/** The person, entity and location rows of an entry (deduplicated case-insensitively, first spelling kept). */
function indexedNames(entry: MemoryEntry): PreparedRecord["names"] {
  const names: PreparedRecord["names"] = [];
  const seen = new Set<string>();
  const add = (kind: PreparedRecord["names"][number]["kind"], name: string, nameLower: string): void => {
    const key = `${kind}\u0000${nameLower}`;
    if (!nameLower || seen.has(key)) return;
    seen.add(key);
    names.push({ kind, nameLower, name: name.trim() });
  };
  for (const person of entry.persons) add("person", person, foldName(person));
  for (const entity of entry.entities) add("entity", entity, foldName(entity));
  if (entry.location !== undefined) add("location", entry.location, entry.location.toLowerCase());
  return names;
}

function prepareStatements(db: SqliteDatabase) {
  return { ...writeStatements(db), ...readStatements(db), ...namespaceStatements(db) };
}

/** Upserting and deleting entries across their tables: body, terms, vector and names. */
function writeStatements(db: SqliteDatabase) {
  return {
    rowidOf: db.prepare<[string, string], RowidRow>("SELECT rowid FROM entries WHERE namespace = ? AND id = ?"),
    insertEntry: db.prepare<[string, string, number, string | null, number | null, number | null]>(
      "INSERT INTO entries (namespace, id, timestamp_ms, document_id, document_version, expires_at_ms) VALUES (?, ?, ?, ?, ?, ?)",
    ),
    updateEntry: db.prepare<[number, string | null, number | null, number | null, number]>(
      "UPDATE entries SET timestamp_ms = ?, document_id = ?, document_version = ?, expires_at_ms = ? WHERE rowid = ?",
    ),
    deleteEntry: db.prepare<[number]>("DELETE FROM entries WHERE rowid = ?"),
    upsertBody: db.prepare<[number, string]>("INSERT OR REPLACE INTO entry_bodies (rowid, entry_json) VALUES (?, ?)"),
    deleteBody: db.prepare<[number]>("DELETE FROM entry_bodies WHERE rowid = ?"),
    insertTerms: db.prepare<[number, string, string, string]>(
      "INSERT INTO entry_terms (rowid, namespace_term, text_terms, tag_terms) VALUES (?, ?, ?, ?)",
    ),
    deleteTerms: db.prepare<[number]>("DELETE FROM entry_terms WHERE rowid = ?"),
    insertVector: db.prepare<[bigint, string, Buffer]>("INSERT INTO entry_vectors (rowid, namespace, embedding) VALUES (?, ?, ?)"),
    deleteVector: db.prepare<[bigint]>("DELETE FROM entry_vectors WHERE rowid = ?"),
    insertName: db.prepare<[string, string, string, number, string]>(
      "INSERT OR IGNORE INTO entry_names (namespace, kind, name_lower, entry_rowid, name) VALUES (?, ?, ?, ?, ?)",
    ),
    deleteNames: db.prepare<[number]>("DELETE FROM entry_names WHERE entry_rowid = ?"),
    insertSupersedes: db.prepare<[string, string, number]>(
      "INSERT OR IGNORE INTO entry_supersedes (namespace, superseded_id, entry_rowid) VALUES (?, ?, ?)",
    ),
    deleteSupersedes: db.prepare<[number]>("DELETE FROM entry_supersedes WHERE entry_rowid = ?"),
    deleteNamespaceSupersedes: db.prepare<[string]>("DELETE FROM entry_supersedes WHERE namespace = ?"),
    namespaceRowids: db.prepare<[string], number>("SELECT rowid FROM entries WHERE namespace = ?").pluck(),
    deleteNamespaceNames: db.prepare<[string]>("DELETE FROM entry_names WHERE namespace = ?"),
    deleteNamespaceEntries: db.prepare<[string]>("DELETE FROM entries WHERE namespace = ?"),
    // Both walk the partial expiry index, which holds only entries that have an expiry. A limit of -1 is none.
    expiredInNamespace: db.prepare<[namespace: string, now: number, limit: number], number>(
      "SELECT rowid FROM entries WHERE namespace = ? AND expires_at_ms <= ? LIMIT ?",
    ).pluck(),
    expiredEverywhere: db.prepare<[now: number], number>("SELECT rowid FROM entries WHERE expires_at_ms <= ?").pluck(),
  };
}

/** Fetching entries by id and searching: lexical, nearest vectors, direct distances. */
function readStatements(db: SqliteDatabase) {
  return {
    entriesByIds: db.prepare<[namespace: string, idsJson: string, now: number], EntryJsonRow & { id: string }>(
      `SELECT e.rowid AS rowid, e.id AS id, b.entry_json AS entry_json FROM entries AS e JOIN entry_bodies AS b ON b.rowid = e.rowid
        WHERE e.namespace = ? AND e.id IN (SELECT value FROM json_each(?)) AND ${LIVE_ENTRY_SQL}`,
    ),
    // The namespace condition re-checks every hit of every index against the record of truth.
    // CROSS JOIN keeps the k rowids as the outer loop: otherwise the planner walks the whole namespace.
    bodiesByRowids: db.prepare<[rowidsJson: string, namespace: string], EntryJsonRow>(
      `SELECT e.rowid AS rowid, b.entry_json AS entry_json
         FROM json_each(?) AS wanted CROSS JOIN entries AS e ON e.rowid = wanted.value JOIN entry_bodies AS b ON b.rowid = e.rowid
        WHERE e.namespace = ?`,
    ),
    namespaceSize: db.prepare<[string], number>("SELECT count(*) FROM entries WHERE namespace = ?").pluck(),
    // Both sides pinned to the namespace: a row of another namespace naming the same id is never reached.
    superseders: db.prepare<[namespace: string, idsJson: string, namespace: string, now: number], EntryJsonRow>(
      `SELECT DISTINCT e.rowid AS rowid, b.entry_json AS entry_json
         FROM entry_supersedes AS s JOIN entries AS e ON e.rowid = s.entry_rowid JOIN entry_bodies AS b ON b.rowid = e.rowid
        WHERE s.namespace = ? AND s.superseded_id IN (SELECT value FROM json_each(?)) AND e.namespace = ? AND ${LIVE_ENTRY_SQL}
        ORDER BY e.timestamp_ms DESC, e.id`,
    ),
    knn: db.prepare<[Buffer, number, string], DistanceRow>(
      "SELECT rowid, distance FROM entry_vectors WHERE embedding MATCH ? AND k = ? AND namespace = ? ORDER BY distance",
    ),
    distancesTo: db.prepare<[Buffer, string], DistanceRow>(
      // CROSS JOIN: the wanted rowids drive, each a point lookup, never a scan of the vectors.
      "SELECT v.rowid AS rowid, vec_distance_l2(v.embedding, ?) AS distance FROM json_each(?) AS wanted CROSS JOIN entry_vectors AS v ON v.rowid = wanted.value",
    ),
  };
}

/** What is known about a namespace besides its entries: names, document versions, settings, counts. */
function namespaceStatements(db: SqliteDatabase) {
  return {
    vocabulary: db.prepare<[string], { kind: "person" | "entity" | "location"; name: string }>(
      "SELECT kind, name FROM namespace_names WHERE namespace = ? ORDER BY kind, name_lower",
    ),
    // An entry without a version counts as version 1, the first (as in the Qdrant adapter).
    documentVersions: db.prepare<[string, string], { document_id: string; version: number }>(
      `SELECT document_id, max(coalesce(document_version, 1)) AS version FROM entries
        WHERE namespace = ? AND document_id IN (SELECT value FROM json_each(?)) GROUP BY document_id`,
    ),
    documentEntryIds: db.prepare<[string, string], string>("SELECT id FROM entries WHERE namespace = ? AND document_id = ? ORDER BY id").pluck(),
    // CROSS JOIN keeps the origin index first: a source's few entries, not the namespace's many.
    originEntryIds: db
      .prepare<[string, string], string>(`SELECT e.id FROM entry_bodies b CROSS JOIN entries e ON e.rowid = b.rowid WHERE ${ORIGIN_OF_BODY} = ? AND e.namespace = ? ORDER BY e.id`)
      .pluck(),
    getSettings: db.prepare<[string], string>("SELECT settings_json FROM namespace_settings WHERE namespace = ?").pluck(),
    setSettings: db.prepare<[string, string]>(
      "INSERT INTO namespace_settings (namespace, settings_json) VALUES (?, ?) ON CONFLICT (namespace) DO UPDATE SET settings_json = excluded.settings_json",
    ),
    deleteSettings: db.prepare<[string]>("DELETE FROM namespace_settings WHERE namespace = ?"),
    namespaceCounts: db.prepare<[], { namespace: string; count: number }>("SELECT namespace, count(*) AS count FROM entries GROUP BY namespace"),
  };
}

