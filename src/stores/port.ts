import { z } from "zod";
import { DocumentIdSchema, type MemoryEntry } from "../memory/entry.js";
import type { EmbeddingSpec } from "../text/embedder.js";
import type { ReleaseLease } from "./origin-lease.js";
import { TimeRangeSchema } from "../time/types.js";

/**
 * Exact metadata conditions, combined with AND. Within `persons` and `entities` any one name matches
 * (case-insensitive, whole name); `location` matches case-insensitively as a substring; `documentId`
 * matches the entry's `source.documentId` exactly.
 */
export const MemoryFilterSchema = z.strictObject({
  persons: z.array(z.string().min(1)).optional().describe("Only entries carrying any of these persons (whole name, any case)"),
  entities: z.array(z.string().min(1)).optional().describe("Only entries carrying any of these entities (whole name, any case)"),
  location: z.string().min(1).optional().describe("Only entries whose location contains this text (any case)"),
  timeRange: TimeRangeSchema.optional().describe("Only entries whose timestamp falls in this range (start inclusive, end exclusive)"),
  documentId: DocumentIdSchema.optional().describe("Only entries written from this source document (exact, case-sensitive)"),
});
export type MemoryFilter = z.infer<typeof MemoryFilterSchema>;

/**
 * The folding behind the whole-name, case-insensitive rule of `persons` and `entities`: trimmed and
 * lower-cased. Every adapter applies it to the stored names and to the filter's names alike.
 */
export function foldName(name: string): string {
  return name.trim().toLowerCase();
}

/** True when the filter sets no condition (a symbolic search with it returns nothing). */
export function isEmptyFilter(filter: MemoryFilter | undefined): boolean {
  if (!filter) return true;
  return (
    !filter.persons?.length &&
    !filter.entities?.length &&
    !filter.location &&
    filter.documentId === undefined &&
    filter.timeRange?.startMs === undefined &&
    filter.timeRange?.endMs === undefined
  );
}

/** One memory to write and its dense vector. */
export interface MemoryRecord {
  entry: MemoryEntry;
  vector: number[];
}

/** A search hit: the entry and the view's own score (cosine for dense, BM25 for lexical; higher is better). */
export interface ScoredEntry {
  entry: MemoryEntry;
  score: number;
}

export interface SearchOptions {
  k: number;
  filter?: MemoryFilter;
}

export interface FilteredSearchOptions {
  k: number;
  /** When given, matches are ranked by dense similarity to it; otherwise newest first. */
  vector?: number[];
}

/** Most entries one `list` page holds. */
export const MAX_LIST_LIMIT = 1000;

export interface ListOptions {
  /** Conditions every listed entry meets; empty or absent lists the whole namespace. */
  filter?: MemoryFilter;
  /** Page size, 1 to MAX_LIST_LIMIT. */
  limit: number;
  /** A previous page's `nextCursor`, to continue after it; absent starts at the newest entry. */
  cursor?: string;
}

export interface ListPage {
  /** Newest first (timestampMs descending, then id ascending). */
  entries: MemoryEntry[];
  /** Present when more entries follow: pass it back as `cursor`. Opaque; absent on the last page. */
  nextCursor?: string;
}

/** Retrieval settings stored with a namespace; unset fields fall back to the graph's configuration. */
export const NamespaceSettingsSchema = z.strictObject({
  semanticTopK: z.number().int().min(1).max(1000).optional().describe("Dense hits per query"),
  lexicalTopK: z.number().int().min(1).max(1000).optional().describe("BM25 hits per query"),
  symbolicTopK: z.number().int().min(1).max(1000).optional().describe("Hits of the exact conditions per query"),
  finalK: z.number().int().min(1).max(1000).optional().describe("Results returned"),
  denseMinScore: z.number().min(-1).max(1).optional().describe("Absolute cosine below which a dense hit is dropped"),
  lexicalMinRelative: z.number().min(0).max(1).optional().describe("A BM25 hit below the best score times this is dropped"),
});
export type NamespaceSettings = z.infer<typeof NamespaceSettingsSchema>;

/** Names a namespace already knows, for the planner to recognise in questions. */
export interface Vocabulary {
  persons: string[];
  entities: string[];
  locations: string[];
}

/** How a namespace's vector index was made ready: loaded from its saved file, built, already current, or none (searched exactly, or by the server). */
export type IndexBuildResult = "current" | "loaded" | "built" | "not-indexed";

/** What `prepareSearch` made ready in this process. */
export interface SearchPreparation {
  /** The namespace's BM25 terms are held in memory (and saved beside a store file), not ranked from the store's own full-text index. */
  termsHeld: boolean;
  vectorIndex: IndexBuildResult;
}

/**
 * The one port every store adapter implements. Every operation takes a namespace first and never
 * reads or writes outside it (`deleteExpired()` without one is the deliberate store-wide prune).
 * Writes validate the whole batch before touching anything.
 *
 * Expiry: an entry whose `expiresAtMs` is at or before the store's clock is gone for get, the searches
 * and list, though it keeps its rows until `deleteExpired` removes them. The bookkeeping reads
 * (vocabulary, documentVersions, documentEntryIds, stats) still count such an entry: they describe
 * what is stored, and a document's replacement must find and delete its expired chunks too.
 */
export interface MemoryStore {
  /** The adapter's name, as stats and messages show it ("sqlite", "qdrant"). */
  readonly kind: string;
  readonly embedding: EmbeddingSpec;

  /**
   * Inserts or replaces (by id) every entry and all of its index rows, all or nothing, however many
   * records one call holds (sqlite: one transaction; Qdrant: see its adapter's atomicity caveat, a
   * failed call's new points are removed). Entries must belong to `namespace`.
   */
  upsert(namespace: string, records: readonly MemoryRecord[]): Promise<void>;
  /** Removes entries and every index row of them; returns how many existed. */
  delete(namespace: string, ids: readonly string[]): Promise<number>;
  /** Removes every entry of the namespace (and its settings); returns how many existed. */
  clearNamespace(namespace: string): Promise<number>;
  /** Entries by id, in the order asked, skipping ids that do not exist in this namespace. */
  get(namespace: string, ids: readonly string[]): Promise<MemoryEntry[]>;
  /**
   * The live entries of the namespace whose `supersedes` names any of `ids`, newest first (timestampMs
   * descending, then id): who replaced them. An index lookup in every adapter; another namespace's
   * entries never answer, whatever ids they name.
   */
  supersedersOf(namespace: string, ids: readonly string[]): Promise<MemoryEntry[]>;

  /** Cosine similarity search, best first. */
  denseSearch(namespace: string, vector: readonly number[], options: SearchOptions): Promise<ScoredEntry[]>;
  /** BM25 over the project's tokenizer (the adapter tokenizes `query`; its text is never query syntax), best first. */
  lexicalSearch(namespace: string, query: string, options: SearchOptions): Promise<ScoredEntry[]>;
  /** Entries matching every condition of `filter`; an empty filter returns nothing. */
  filteredSearch(namespace: string, filter: MemoryFilter, options: FilteredSearchOptions): Promise<ScoredEntry[]>;
  /**
   * One page of the namespace's entries matching `filter` (an empty filter lists all), newest first.
   * Paging is stable: following `nextCursor` visits every entry once, even when timestamps tie.
   */
  list(namespace: string, options: ListOptions): Promise<ListPage>;
  /** Removes, from every index, the entries whose expiry has passed, in one namespace or (omitted) all; returns how many. */
  deleteExpired(namespace?: string): Promise<number>;

  /** Known persons, entities and locations of the namespace. */
  vocabulary(namespace: string): Promise<Vocabulary>;
  /** Highest stored version of each document id in the namespace (ids with no entries are absent). */
  documentVersions(namespace: string, documentIds: readonly string[]): Promise<Record<string, number>>;
  /** Ids of every entry of a document in the namespace (any version). */
  documentEntryIds(namespace: string, documentId: string): Promise<string[]>;
  /**
   * Ids of every entry an ingest read from `origin` (`source.origin`) into the namespace, expired ones
   * included, sorted: what re-ingesting the source may retire, found without reading the namespace.
   */
  originEntryIds(namespace: string, origin: string): Promise<string[]>;

  getSettings(namespace: string): Promise<NamespaceSettings | undefined>;
  setSettings(namespace: string, settings: NamespaceSettings): Promise<void>;

  /**
   * Holds the lease of one ingest source (`origin`, see ingest/origin.ts) until the returned function is
   * called; a second caller waits for it. An ingest that replaces a source holds it from its first read
   * to its last delete, so two ingests of one source run one after the other. sqlite keeps the lease in
   * its file, Qdrant on the server (other processes and machines wait too). The returned function
   * throws a StoreError when the lease lapsed and another ingest took it over meanwhile.
   */
  leaseOrigin(origin: string): Promise<ReleaseLease>;

  /**
   * Makes the namespace's search structures ready now instead of at its first search, and saves them
   * for the next opening where the adapter keeps them (sqlite: its BM25 terms and, with an HNSW index,
   * the index, beside the store file). A process that writes and exits (the CLI's ingest) calls it so
   * the next one loads them instead of reading every entry again. Qdrant's server indexes as it writes.
   */
  prepareSearch(namespace: string): Promise<SearchPreparation>;

  /** Entry counts per namespace. */
  stats(): Promise<{ namespaces: Record<string, number>; bytes?: number }>;
  close(): Promise<void>;
}
