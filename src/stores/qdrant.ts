/**
 * The Qdrant adapter of the MemoryStore port, for memories that outgrow one machine.
 *
 * Layout (see qdrant-layout.ts): one collection; each memory is one point whose id is a v5-style UUID
 * of (namespace, entry id), with a named dense vector `dense` (cosine), a named sparse vector `lexical`
 * (client-side BM25 saturated term frequencies, plain dot product) and the entry as payload, plus the
 * indices of its lexical terms (`lexical_terms`) so that a search can count its namespace's idf.
 * Namespace settings are one vector-less point per namespace (`record: "settings"`) in the same
 * collection, so a namespace's data lives in one tenant and `clearNamespace` is one filtered delete.
 * Each ingest source has one vector-less lease point (`record: "lease"`, no namespace: no memory
 * read, stats, clearNamespace or deleteExpired reaches it), taken, renewed and freed by conditional
 * upserts (qdrant-lease.ts), so ingests of one source on several machines run one after the other.
 * The embedding spec and layout version live in the collection's own `metadata`. The cluster settings
 * (shards, replicationFactor, writeConsistencyFactor) apply only when the adapter creates the
 * collection; an existing one that differs is logged (`qdrant_settings_differ`), never changed or refused.
 * Opened `readOnly`, the adapter sends reading requests only: it never creates the collection or a
 * payload index (an absent one is a ReadOnlyStoreError), and every write operation is refused first.
 *
 * Every request that reads or deletes entries carries a `must` condition on the namespace (the type
 * NamespaceScopedFilter makes that structural). `stats()` is the one cross-namespace read: it counts
 * memories per namespace and returns no entry; `deleteExpired()` without a namespace the one
 * cross-namespace delete (StoreWidePruneFilter), of expired memories only.
 *
 * Round trips: every query goes through a QueryBatcher (qdrant-query-batch.ts), so the searches a
 * round's views ask at once travel as one `/points/query/batch` request; the HTTP client keeps its
 * connections alive with Nagle's algorithm off (core/http-client.ts).
 *
 * Expiry: entry reads (get, the searches, list) add `must_not: expiresAtMs <= now` with `now` from the
 * adapter's clock, so an expired point is never returned though it stays stored until `deleteExpired`.
 *
 * Honest caveats:
 * - Atomicity: a batch of up to UPSERT_POINTS_PER_REQUEST points is one upsert request with `wait: true`,
 *   acknowledged only once applied; a larger one is several requests, and when one fails the points
 *   of the call that did not exist before are deleted again (ids that existed keep what the sent
 *   requests wrote; see upsertInRequests). Qdrant has no multi-point transactions, though: it applies
 *   a large request in chunks (readers can see part of a batch for a moment), and in a sharded
 *   collection each shard applies its share on its own, so a failing shard or replica can leave part of
 *   a request written while the call reports a StoreError. A single point is never half-written (its
 *   vectors and payload go together), the write-ahead log replays an acknowledged request after a
 *   crash, and re-running the same upsert repairs a partial one (point ids are deterministic).
 *   Validation rejects a bad batch before any request is sent.
 * - The origin lease assumes the ingesting machines' clocks agree to within the takeover window
 *   (LEASE_TAKEOVER_MS less one renewal), and, on a replicated collection, that writes sent with
 *   `ordering: strong` reach every replica in one order (qdrant-lease.ts).
 * - `delete` and `clearNamespace` count and then delete (two requests): a concurrent writer can make
 *   the returned count differ from what was removed.
 * - IDF is counted per namespace by the adapter (exact counts of the namespace's memory points, and of
 *   those holding each query term), never by Qdrant's `idf` modifier, which counts the whole collection:
 *   another namespace's writes would move this one's scores and tell it which words they hold. The
 *   counts and the query are separate requests, so a write of the same namespace in between can leave
 *   a search's idf a write behind. The counts are kept between questions (qdrant-cache.ts, with the
 *   vocabulary and the settings): this process's writes drop them at once, but another process's
 *   write moves this one's idf and planner only once `namespaceCacheMs` (default 5 s) has passed.
 *   Document lengths are normalised against a constant (DEFAULT_AVG_DOC_LENGTH), not the namespace's
 *   average, so scores still differ from sqlite's; and with the b the collection recorded when it was
 *   created (0.75 if it records none), since a written vector keeps the b it was written with.
 * - Dense search is Qdrant's HNSW (approximate on large namespaces; Qdrant switches to exact scans
 *   for small filtered sets), where sqlite's is exact.
 */
import type { Schemas } from "@qdrant/js-client-rest";
import { z } from "zod";
import { EmbedderMismatchError, parseOrThrow, ReadOnlyStoreError, StoreError, ValidationError } from "../core/errors.js";
import { log } from "../core/log.js";
import type { MemoryEntry } from "../memory/entry.js";
import { BM25_B, inverseDocumentFrequency } from "../text/bm25.js";
import { encodeSparse, encodeSparseQuery, queryTermIndices, type SparseVector } from "../text/sparse.js";
import { lexicalTerms } from "../text/tokenizer.js";
import { lexicalDocument } from "./lexical-document.js";
import { SharedLeases, type ReleaseLease } from "./origin-lease.js";
import { QdrantLeaseBook } from "./qdrant-lease.js";
import { QdrantReadCache, readCacheOf } from "./qdrant-cache.js";
import { QueryBatcher } from "./qdrant-query-batch.js";
import { QdrantRest, type QdrantTraffic } from "./qdrant-rest.js";
import { byRecency, compareText, pageOf, type ListPosition } from "./list-cursor.js";
import { isEmptyFilter, NamespaceSettingsSchema, type FilteredSearchOptions, type ListOptions, type ListPage, type MemoryFilter, type MemoryRecord, type MemoryStore, type NamespaceSettings, type ScoredEntry, type SearchOptions, type SearchPreparation, type Vocabulary } from "./port.js";
import { EmbeddingSpecSchema, type EmbeddingSpec } from "../text/embedder.js";
import { checkWriteConsistency, DEFAULT_NAMESPACE_CACHE_MS, DEFAULT_QDRANT_COLLECTION, QdrantCacheFields, QdrantClusterFields, QdrantServerFields } from "./qdrant-fields.js";
import {
  clusterSettingDifferences,
  COLLECTION_METADATA_KEY,
  CollectionMetadataSchema,
  createCollectionBody,
  DENSE_VECTOR,
  entryFromPayload,
  expiredMemoryFilter,
  LAYOUT_VERSION,
  LEXICAL_VECTOR,
  lexicalTermFilter,
  liveMemoryFilter,
  memoryPayload,
  memoryPointId,
  namespaceFilter,
  PAYLOAD,
  PAYLOAD_INDEXES,
  passesClientCheck,
  settingsPointId,
  supersedesAnyCondition,
  translateFilter,
  type ClusterSetting,
  type ClusterSettings,
  type NamespaceScopedFilter,
  type StoreWidePruneFilter,
  type TranslatedFilter,
} from "./qdrant-layout.js";
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
} from "./validation.js";

export const QdrantStoreOptionsSchema = z
  .strictObject({
    ...QdrantServerFields,
    collection: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,255}$/, "collection must be 1-255 letters, digits, '_' or '-'")
      .default(DEFAULT_QDRANT_COLLECTION)
      .describe("The collection all namespaces share"),
    embedding: EmbeddingSpecSchema.describe("The embedder the vectors are made with; the collection refuses another"),
    timeoutMs: z
      .number()
      .int()
      .min(1)
      .max(3_600_000)
      .default(30_000)
      .describe("Bound of one whole request (connecting, waiting for a connection, the answer's last byte): past it, a StoreError"),
    clock: ClockSchema,
    readOnly: z
      .boolean()
      .default(false)
      .describe("Use an existing collection without ever creating or altering it: every write operation throws ReadOnlyStoreError"),
    namespaceCacheMs: QdrantCacheFields.namespaceCacheMs.default(DEFAULT_NAMESPACE_CACHE_MS),
    ...QdrantClusterFields,
  })
  .superRefine(checkWriteConsistency);
export type QdrantStoreOptions = z.input<typeof QdrantStoreOptionsSchema>;

/** Page size of internal scrolls (document lookups, id lookups). */
const SCROLL_PAGE = 256;
/**
 * Points per upsert request: 256 points of 512-d vectors are ~2.5 MB of JSON, far under Qdrant's
 * default request limit (service.max_request_size_mb, 32 MB), also at 3072-d (~15 MB).
 */
export const UPSERT_POINTS_PER_REQUEST = 256;
/** Most values a vocabulary or stats facet returns per field (facets rank by count: beyond it, the rarest are left out). */
const FACET_LIMIT = 10_000;
/** Upper bound of over-fetching when hits need a client-side location check. */
const MAX_CANDIDATES = 10_000;

/**
 * Opens (creating when absent) the collection and checks it was built by the same embedder.
 * Throws EmbedderMismatchError on another model or dimension, StoreError when the server fails or
 * the collection is not one of ours. With `readOnly` only reading requests are sent: an absent
 * collection, or one lacking a payload index, is a ReadOnlyStoreError instead of being created.
 */
export async function openQdrantStore(options: QdrantStoreOptions): Promise<QdrantMemoryStore> {
  const { config, client, cluster } = connect(options);
  const bm25B = await closingOnFailure(client, () => ensureCollection(client, config.collection, config.embedding, cluster, config.readOnly));
  return new QdrantMemoryStore(client, config.collection, config.embedding, config.clock ?? Date.now, config.readOnly, cachedReads(config), bm25B);
}

/**
 * A store in a collection this call creates, for a run that must leave the server as it found it (an
 * evaluation's temporary store): an existing collection of that name is refused, never opened, so the
 * store's `drop()` can only delete what it made. When opening fails once the collection is created, it
 * is dropped again before the error is thrown. (A collection created by someone else between the
 * existence check and the create makes the create fail, and is left alone.)
 */
export async function createQdrantStore(options: QdrantStoreOptions): Promise<QdrantMemoryStore> {
  const { config, client, cluster } = connect(options);
  const { collection, embedding } = config;
  if (config.readOnly) throw new ValidationError("qdrant.readOnly", "a store in a new collection writes from the start: it cannot be read-only");
  const bm25B = await closingOnFailure(client, () => createCollectionOfItsOwn(client, collection, embedding, cluster));
  return new QdrantMemoryStore(client, collection, embedding, config.clock ?? Date.now, false, cachedReads(config), bm25B);
}

/** Creates the collection, refusing one that exists; drops it again when opening it then fails. Returns its b (ensureCollection). */
async function createCollectionOfItsOwn(client: QdrantRest, collection: string, embedding: EmbeddingSpec, cluster: ClusterSettings): Promise<number> {
  const send = sender(collection);
  if (await send(() => client.collectionExists(collection))) {
    throw new StoreError("open", `collection "${collection}" already exists: a new store needs a collection of its own`);
  }
  await send(() => client.createCollection(collection, createCollectionBody(embedding, cluster)));
  try {
    return await ensureCollection(client, collection, embedding, cluster, false);
  } catch (error) {
    await deleteCollection(client, collection, "open").catch((dropError: unknown) =>
      // The open's own failure is what the caller must see; the collection left behind is logged beside it.
      log.error("qdrant_collection_not_dropped", { collection, error: String(dropError) }),
    );
    throw error;
  }
}

/** Runs an open's requests; when they fail, the client's connections are closed before the error goes on (no store holds them). */
async function closingOnFailure<T>(client: QdrantRest, open: () => Promise<T>): Promise<T> {
  try {
    return await open();
  } catch (error) {
    client.close();
    throw error;
  }
}

/** The process's kept reads of the collection, and how long they are used. */
function cachedReads(config: z.output<typeof QdrantStoreOptionsSchema>): CachedReads {
  return { cache: readCacheOf(config.url, config.collection), ttlMs: config.namespaceCacheMs };
}

/** The checked options, a client for them, and the cluster settings a created collection gets. */
function connect(options: QdrantStoreOptions): { config: z.output<typeof QdrantStoreOptionsSchema>; client: QdrantRest; cluster: ClusterSettings } {
  const config = parseOrThrow(QdrantStoreOptionsSchema, options, "qdrant");
  const client = new QdrantRest({ url: config.url, apiKey: config.apiKey, timeoutMs: config.timeoutMs });
  const cluster: ClusterSettings = {
    shards: config.shards,
    replicationFactor: config.replicationFactor,
    writeConsistencyFactor: config.writeConsistencyFactor,
  };
  return { config, client, cluster };
}

/** Where a store keeps its namespaces' reads (qdrant-cache.ts), and for how long it uses them. */
export interface CachedReads {
  cache: QdrantReadCache;
  ttlMs: number;
}

export class QdrantMemoryStore implements MemoryStore {
  readonly kind = "qdrant" as const;
  private closed = false;
  /** Ingest leases of sources, held on the server (qdrant-lease.ts). */
  private readonly leases: SharedLeases;
  /** Every query goes through it: those asked in one turn of the event loop share a request. */
  private readonly queries: QueryBatcher;

  constructor(
    private readonly client: QdrantRest,
    readonly collection: string,
    readonly embedding: EmbeddingSpec,
    /** Epoch ms deciding what has expired (read once per call and sent in the request's filter) and when a lease lapses. */
    private readonly clock: () => number = Date.now,
    /** Refuses every write operation before any request is sent. */
    readonly readOnly = false,
    /** Vocabulary, settings and idf counts kept between questions; by default none (every question reads them). */
    private readonly reads: CachedReads = { cache: new QdrantReadCache(), ttlMs: 0 },
    /** BM25's length normalisation the collection's sparse vectors are written with: its own, recorded when it was created. */
    private readonly bm25B = BM25_B,
  ) {
    this.queries = new QueryBatcher((searches) => this.client.queryBatch(collection, searches));
    this.leases = new SharedLeases(new QdrantLeaseBook(client, collection, clock, (operation, call) => this.send(operation, call)), "qdrant");
  }

  async upsert(namespace: string, records: readonly MemoryRecord[]): Promise<void> {
    const ns = this.beginWrite("upsert", namespace);
    const validated = validateRecords(ns, records, this.embedding.dimension);
    if (!validated.length) return;
    const points: Schemas["PointStruct"][] = validated.map(({ entry, vector }) => {
      // The encoders already give what Qdrant requires: unique, sorted 32-bit indices, positive weights.
      const lexical = encodeSparse(lexicalTerms(lexicalDocument(entry)), { b: this.bm25B });
      // A text with no indexable token gets no lexical vector at all (Qdrant allows a named vector to be absent).
      const vectors: Record<string, Schemas["Vector"]> = { [DENSE_VECTOR]: Array.from(vector) };
      if (lexical.indices.length) vectors[LEXICAL_VECTOR] = lexical;
      return { id: memoryPointId(ns, entry.id), vector: vectors, payload: { ...memoryPayload(entry, lexical.indices) } };
    });
    await this.writing(ns, async () => {
      if (points.length <= UPSERT_POINTS_PER_REQUEST) await this.send("upsert", () => this.client.upsert(this.collection, { points }));
      else await this.upsertInRequests(ns, points);
    });
  }

  /**
   * A call too large for one request is sent in several. Qdrant has no transaction across them, so
   * the adapter notes which points existed before and, when a request fails, deletes the points of
   * this call that did not: new ids are removed, ids that existed keep whatever the sent requests
   * gave them (re-running the write repairs them; their previous content is not kept).
   */
  private async upsertInRequests(ns: string, points: Schemas["PointStruct"][]): Promise<void> {
    const existed = await this.existingPointIds(ns, points.map((point) => point.id));
    try {
      for (let start = 0; start < points.length; start += UPSERT_POINTS_PER_REQUEST) {
        const part = points.slice(start, start + UPSERT_POINTS_PER_REQUEST);
        await this.send("upsert", () => this.client.upsert(this.collection, { points: part }));
      }
    } catch (error) {
      const fresh = points.map((point) => point.id).filter((id) => !existed.has(String(id)));
      await this.deletePointIds(ns, fresh).catch((undoError: unknown) =>
        // The write's own failure is what the caller must see; a failed undo is logged beside it.
        log.error("qdrant_upsert_undo_failed", { collection: this.collection, namespace: ns, points: fresh.length, error: String(undoError) }),
      );
      throw error;
    }
  }

  /** Which of these memory point ids of `ns` are stored now. */
  private async existingPointIds(ns: string, ids: readonly Schemas["ExtendedPointId"][]): Promise<Set<string>> {
    const found = new Set<string>();
    for (let start = 0; start < ids.length; start += SCROLL_PAGE) {
      const slice = ids.slice(start, start + SCROLL_PAGE);
      const filter = namespaceFilter(ns, "memory", [{ has_id: slice }]);
      const page = await this.send("upsert", () =>
        this.client.scroll(this.collection, { filter, limit: slice.length, with_payload: false, with_vector: false }),
      );
      for (const point of page.points) found.add(String(point.id));
    }
    return found;
  }

  private async deletePointIds(ns: string, ids: readonly Schemas["ExtendedPointId"][]): Promise<void> {
    for (let start = 0; start < ids.length; start += SCROLL_PAGE) {
      await this.deleteWhere("upsert", namespaceFilter(ns, "memory", [{ has_id: ids.slice(start, start + SCROLL_PAGE) }]));
    }
  }

  async delete(namespace: string, ids: readonly string[]): Promise<number> {
    const ns = this.beginWrite("delete", namespace);
    const unique = validateIds(ids);
    if (!unique.length) return 0;
    const filter = namespaceFilter(ns, "memory", [{ has_id: unique.map((id) => memoryPointId(ns, id)) }]);
    return this.writing(ns, async () => {
      const existing = await this.count("delete", filter);
      if (existing) await this.deleteWhere("delete", filter);
      return existing;
    });
  }

  async clearNamespace(namespace: string): Promise<number> {
    const ns = this.beginWrite("clearNamespace", namespace);
    return this.writing(ns, async () => {
      const existing = await this.count("clearNamespace", namespaceFilter(ns, "memory"));
      await this.deleteWhere("clearNamespace", namespaceFilter(ns, "any"));
      return existing;
    });
  }

  async get(namespace: string, ids: readonly string[]): Promise<MemoryEntry[]> {
    const ns = this.begin("get", namespace);
    const unique = validateIds(ids);
    if (!unique.length) return [];
    const found = new Map<string, MemoryEntry>();
    const now = this.clock();
    for (let start = 0; start < unique.length; start += SCROLL_PAGE) {
      const slice = unique.slice(start, start + SCROLL_PAGE);
      const filter = liveMemoryFilter(ns, now, [{ has_id: slice.map((id) => memoryPointId(ns, id)) }]);
      const page = await this.send("get", () =>
        this.client.scroll(this.collection, { filter, limit: slice.length, with_payload: true, with_vector: false }),
      );
      for (const point of page.points) {
        const entry = this.entryOf("get", point.payload, ns);
        found.set(entry.id, entry);
      }
    }
    return unique.flatMap((id) => {
      const entry = found.get(id);
      return entry ? [entry] : [];
    });
  }

  async supersedersOf(namespace: string, ids: readonly string[]): Promise<MemoryEntry[]> {
    const ns = this.begin("supersedersOf", namespace);
    const unique = validateIds(ids);
    if (!unique.length) return [];
    const filter = liveMemoryFilter(ns, this.clock(), [supersedesAnyCondition(unique)]);
    const entries: MemoryEntry[] = [];
    await this.scrollAll("supersedersOf", filter, true, (payload) => entries.push(this.entryOf("supersedersOf", payload, ns)));
    return entries.sort(byRecency);
  }

  async denseSearch(namespace: string, vector: readonly number[], options: SearchOptions): Promise<ScoredEntry[]> {
    const ns = this.begin("denseSearch", namespace);
    const query = Array.from(validateVector(vector, this.embedding.dimension, "vector"));
    const { k, filter } = validateSearchOptions(options);
    return this.queryScored("denseSearch", ns, translateFilter(filter), k, { query, using: DENSE_VECTOR });
  }

  async lexicalSearch(namespace: string, query: string, options: SearchOptions): Promise<ScoredEntry[]> {
    const ns = this.begin("lexicalSearch", namespace);
    const text = validateQuery(query);
    const { k, filter } = validateSearchOptions(options);
    // Tokens become sparse indices: the user's text never reaches Qdrant as query syntax.
    const terms = queryTermIndices(lexicalTerms(text));
    if (!terms.length) return [];
    const sparse = await this.namespaceIdf(ns, terms);
    if (!sparse.indices.length) return [];
    return this.queryScored("lexicalSearch", ns, translateFilter(filter), k, { query: sparse, using: LEXICAL_VECTOR });
  }

  /**
   * The query vector: each term weighted by its idf in this namespace alone, from exact counts (the
   * namespace's memory points, and those holding each term), all sent at once (the client's connection
   * pool bounds how many are in flight). Every stored point counts, expired ones not yet pruned too,
   * as sqlite counts its stored rows: kept simple, and only this namespace's own writes move it. A
   * term no point of the namespace holds is left out: it could match nothing here.
   */
  private async namespaceIdf(ns: string, terms: readonly number[]): Promise<SparseVector> {
    const { cache, ttlMs } = this.reads;
    const [rows = 0, ...holding] = await Promise.all([
      cache.size(ns, ttlMs, () => this.count("lexicalSearch", namespaceFilter(ns, "memory"))),
      ...terms.map((term) => cache.holding(ns, term, ttlMs, () => this.count("lexicalSearch", lexicalTermFilter(ns, term)))),
    ]);
    const idfByTerm = new Map<number, number>();
    terms.forEach((term, i) => {
      const count = holding[i] ?? 0;
      if (count > 0) idfByTerm.set(term, inverseDocumentFrequency(rows, count));
    });
    return encodeSparseQuery(idfByTerm);
  }

  async filteredSearch(namespace: string, filter: MemoryFilter, options: FilteredSearchOptions): Promise<ScoredEntry[]> {
    const ns = this.begin("filteredSearch", namespace);
    const conditions = validateFilter(filter);
    const k = validateK(options?.k);
    const query = options.vector === undefined ? undefined : Array.from(validateVector(options.vector, this.embedding.dimension, "vector"));
    if (isEmptyFilter(conditions)) return [];
    const translated = translateFilter(conditions);
    if (query) return this.queryScored("filteredSearch", ns, translated, k, { query, using: DENSE_VECTOR });
    // Newest first carries the ranking; every hit satisfies the filter equally (score 1, as in sqlite).
    return (await this.newestFirst("filteredSearch", ns, translated, k, this.clock())).map((entry) => ({ entry, score: 1 }));
  }

  /**
   * A scroll with `order_by` timestampMs desc. Qdrant pages such a scroll by value only (no offset, no
   * next_page_offset) and cannot order ties by id, so a page after the cursor is: the live matches at
   * the cursor's exact timestamp with a greater id (fetched whole, sorted here), then the newest
   * matches strictly older than it (whose own boundary tie newestFirst resolves the same way).
   */
  async list(namespace: string, options: ListOptions): Promise<ListPage> {
    const ns = this.begin("list", namespace);
    const { limit, filter, after } = validateListOptions(options);
    const now = this.clock();
    const translated = translateFilter(filter);
    // One entry more than the page: it tells whether another page follows.
    const wanted = limit + 1;
    const tied = after ? await this.tiedAfter(ns, translated, after, now) : [];
    if (tied.length >= wanted) return pageOf(tied, limit);
    const older = after ? withCondition(translated, { key: PAYLOAD.timestampMs, range: { lt: after.timestampMs } }) : translated;
    return pageOf([...tied, ...(await this.newestFirst("list", ns, older, wanted - tied.length, now))], limit);
  }

  async deleteExpired(namespace?: string): Promise<number> {
    this.assertWritable("deleteExpired");
    const ns = namespace === undefined ? undefined : validateNamespace(namespace);
    const filter = expiredMemoryFilter(ns, this.clock());
    // Without a namespace, every namespace's kept reads go: expired points count in idf and vocabulary until pruned.
    return this.writing(ns, async () => {
      const expired = await this.count("deleteExpired", filter);
      if (expired) await this.deleteWhere("deleteExpired", filter);
      return expired;
    });
  }

  async vocabulary(namespace: string): Promise<Vocabulary> {
    const ns = this.begin("vocabulary", namespace);
    const kept = await this.reads.cache.vocabulary(ns, this.reads.ttlMs, () => this.readVocabulary(ns));
    // A copy: the kept one is shared by every caller.
    return { persons: [...kept.persons], entities: [...kept.entities], locations: [...kept.locations] };
  }

  /** The namespace's names as the facets of its memories give them (three requests, sent at once). */
  private async readVocabulary(ns: string): Promise<Vocabulary> {
    const filter = namespaceFilter(ns, "memory");
    const [persons, entities, locations] = await Promise.all(
      [PAYLOAD.persons, PAYLOAD.entities, PAYLOAD.location].map((key) => this.facetValues("vocabulary", key, filter)),
    );
    return { persons: distinctNames(persons ?? []), entities: distinctNames(entities ?? []), locations: distinctNames(locations ?? []) };
  }

  async documentVersions(namespace: string, documentIds: readonly string[]): Promise<Record<string, number>> {
    const ns = this.begin("documentVersions", namespace);
    const ids = validateDocumentIds(documentIds);
    const versions: Record<string, number> = {};
    if (!ids.length) return versions;
    const filter = namespaceFilter(ns, "memory", [{ key: PAYLOAD.documentId, match: { any: ids } }]);
    await this.scrollAll("documentVersions", filter, ["source"], (payload) => {
      const source = SourcePayloadSchema.safeParse(payload);
      if (!source.success || source.data.source.documentId === undefined) return;
      const { documentId, version } = source.data.source;
      // An entry without a version counts as version 1, the first.
      versions[documentId] = Math.max(versions[documentId] ?? 0, version ?? 1);
    });
    return versions;
  }

  async documentEntryIds(namespace: string, documentId: string): Promise<string[]> {
    const ns = this.begin("documentEntryIds", namespace);
    const id = validateDocumentId(documentId);
    const filter = namespaceFilter(ns, "memory", [{ key: PAYLOAD.documentId, match: { value: id } }]);
    const ids: string[] = [];
    await this.scrollAll("documentEntryIds", filter, [PAYLOAD.id], (payload) => {
      const parsed = IdPayloadSchema.safeParse(payload);
      if (parsed.success) ids.push(parsed.data.id);
    });
    return ids.sort(compareText);
  }

  async originEntryIds(namespace: string, origin: string): Promise<string[]> {
    const ns = this.begin("originEntryIds", namespace);
    const filter = namespaceFilter(ns, "memory", [{ key: PAYLOAD.sourceOrigin, match: { value: validateOrigin(origin) } }]);
    const ids: string[] = [];
    await this.scrollAll("originEntryIds", filter, [PAYLOAD.id], (payload) => {
      const parsed = IdPayloadSchema.safeParse(payload);
      if (parsed.success) ids.push(parsed.data.id);
    });
    return ids.sort(compareText);
  }

  async getSettings(namespace: string): Promise<NamespaceSettings | undefined> {
    const ns = this.begin("getSettings", namespace);
    const kept = await this.reads.cache.settings(ns, this.reads.ttlMs, () => this.readSettings(ns));
    return kept && { ...kept };
  }

  private async readSettings(ns: string): Promise<NamespaceSettings | undefined> {
    const page = await this.send("getSettings", () =>
      this.client.scroll(this.collection, { filter: namespaceFilter(ns, "settings"), limit: 1, with_payload: true, with_vector: false }),
    );
    const point = page.points[0];
    if (!point) return undefined;
    const parsed = SettingsPayloadSchema.safeParse(point.payload);
    if (!parsed.success) throw new StoreError("getSettings", `settings point of namespace "${ns}" has an invalid payload`);
    return parsed.data.settings;
  }

  async setSettings(namespace: string, settings: NamespaceSettings): Promise<void> {
    const ns = this.beginWrite("setSettings", namespace);
    const parsed = validateSettings(settings);
    const point: Schemas["PointStruct"] = {
      id: settingsPointId(ns),
      vector: {},
      payload: { [PAYLOAD.record]: "settings", [PAYLOAD.namespace]: ns, [PAYLOAD.settings]: parsed },
    };
    await this.writing(ns, () => this.send("setSettings", () => this.client.upsert(this.collection, { points: [point] })));
  }

  /** Held on the server, so ingests of the source in other processes wait too (qdrant-lease.ts). */
  async leaseOrigin(origin: string): Promise<ReleaseLease> {
    this.assertOpen("leaseOrigin");
    // Nothing to hold a source against where nothing can be written: the ingest's write is refused by name.
    if (this.readOnly) return async () => {};
    return this.leases.acquire(origin);
  }

  /** Nothing to make ready here: the server indexes points as they are written, and ranks BM25 itself. */
  async prepareSearch(namespace: string): Promise<SearchPreparation> {
    this.begin("prepareSearch", namespace);
    return { termsHeld: false, vectorIndex: "not-indexed" };
  }

  async stats(): Promise<{ namespaces: Record<string, number> }> {
    this.assertOpen("stats");
    // The one cross-namespace read: counts per namespace, no entry leaves the server.
    const result = await this.send("stats", () =>
      this.client.facet(this.collection, {
        key: PAYLOAD.namespace,
        filter: { must: [{ key: PAYLOAD.record, match: { value: "memory" } }] },
        limit: FACET_LIMIT,
        exact: true,
      }),
    );
    // fromEntries defines own properties, so a namespace named "__proto__" is counted like any other.
    const namespaces: Record<string, number> = Object.fromEntries(
      result.hits.flatMap((hit) => (typeof hit.value === "string" ? [[hit.value, hit.count] as const] : [])),
    );
    return { namespaces };
  }

  /** The HTTP requests this store sent so far and the seconds Qdrant says it spent on them (for benchmarks). */
  traffic(): QdrantTraffic {
    return this.client.traffic();
  }

  async close(): Promise<void> {
    // Later calls are refused; the kept-alive connections are closed (idle ones would also time out).
    this.closed = true;
    this.client.close();
  }

  /**
   * Deletes the whole collection, every namespace's memories with it, and closes the store. For a
   * collection made for one run (createQdrantStore); refused on a read-only store. Returns whether the
   * server had the collection to delete (false: someone dropped it first, which leaves it gone all the same).
   */
  async drop(): Promise<boolean> {
    this.assertWritable("drop");
    this.closed = true;
    this.reads.cache.forget();
    try {
      return await deleteCollection(this.client, this.collection, "drop");
    } finally {
      this.client.close();
    }
  }

  // -------------------------------------------------------------------------------------------

  private assertOpen(operation: string): void {
    if (this.closed) throw new StoreError(operation, "store is closed");
  }

  /** Refuses calls after close and, on a read-only store, writes. */
  private assertWritable(operation: string): void {
    this.assertOpen(operation);
    if (this.readOnly) throw new ReadOnlyStoreError(operation);
  }

  private beginWrite(operation: string, namespace: string): string {
    this.assertWritable(operation);
    return validateNamespace(namespace);
  }

  /** Refuses calls after close and validates the namespace every operation starts with. */
  private begin(operation: string, namespace: string): string {
    this.assertOpen(operation);
    return validateNamespace(namespace);
  }

  private async send<T>(operation: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw wrapFailure(operation, this.collection, error);
    }
  }

  private entryOf(operation: string, payload: unknown, namespace: string): MemoryEntry {
    const entry = entryFromPayload(payload);
    // The namespace check is belt and braces: the request filter already pinned it.
    if (!entry || entry.namespace !== namespace) {
      throw new StoreError(operation, `collection "${this.collection}" returned a point that is not a valid memory of namespace "${namespace}"`);
    }
    return entry;
  }

  /**
   * A write to one namespace, or (undefined) to any: what is kept of it is dropped before the write is
   * sent and again once it is done, failed or not, so no read made meanwhile is kept (qdrant-cache.ts).
   */
  private async writing<T>(namespace: string | undefined, write: () => Promise<T>): Promise<T> {
    this.reads.cache.forget(namespace);
    try {
      return await write();
    } finally {
      this.reads.cache.forget(namespace);
    }
  }

  private async count(operation: string, filter: NamespaceScopedFilter | StoreWidePruneFilter): Promise<number> {
    return this.send(operation, () => this.client.count(this.collection, { filter, exact: true }));
  }

  private async deleteWhere(operation: string, filter: NamespaceScopedFilter | StoreWidePruneFilter): Promise<void> {
    await this.send(operation, () => this.client.deletePoints(this.collection, { filter }));
  }

  /**
   * The k newest live matches, ties on timestamp broken by entry id (as list promises). Qdrant's
   * order_by leaves ties in no particular order, so when the k-th hit's timestamp may continue past
   * the page, every match with exactly that timestamp is fetched and the tie resolved here.
   */
  private async newestFirst(operation: string, namespace: string, translated: TranslatedFilter, k: number, now: number): Promise<MemoryEntry[]> {
    const filter = liveMemoryFilter(namespace, now, translated.conditions);
    const newest = await this.collectChecked(k, translated, async (limit) => {
      const page = await this.send(operation, () =>
        this.client.scroll(this.collection, {
          filter,
          limit,
          with_payload: true,
          with_vector: false,
          order_by: { key: PAYLOAD.timestampMs, direction: "desc" },
        }),
      );
      return page.points.map((point) => this.entryOf(operation, point.payload, namespace));
    });
    const boundary = newest[k - 1];
    if (!boundary) return newest.sort(byRecency);
    const tied = await this.liveAt(operation, namespace, translated, boundary.timestampMs, now);
    const newer = newest.filter((entry) => entry.timestampMs > boundary.timestampMs);
    return [...newer, ...tied].sort(byRecency).slice(0, k);
  }

  /** The live matches at the cursor's timestamp that come after it (greater id), in id order. */
  private async tiedAfter(namespace: string, translated: TranslatedFilter, after: ListPosition, now: number): Promise<MemoryEntry[]> {
    const tied = await this.liveAt("list", namespace, translated, after.timestampMs, now);
    return tied.filter((entry) => compareText(entry.id, after.id) > 0).sort(byRecency);
  }

  /** Every live match with exactly this timestamp (any order). */
  private async liveAt(operation: string, namespace: string, translated: TranslatedFilter, timestampMs: number, now: number): Promise<MemoryEntry[]> {
    const at = withCondition(translated, { key: PAYLOAD.timestampMs, range: { gte: timestampMs, lte: timestampMs } });
    const entries: MemoryEntry[] = [];
    await this.scrollAll(operation, liveMemoryFilter(namespace, now, at.conditions), true, (payload) => {
      const entry = this.entryOf(operation, payload, namespace);
      if (passesClientCheck(entry, translated)) entries.push(entry);
    });
    return entries;
  }

  /** Dense or sparse nearest-neighbour query under the namespace filter, best first. */
  private async queryScored(
    operation: string,
    namespace: string,
    translated: TranslatedFilter,
    k: number,
    search: { query: number[] | Schemas["SparseVector"]; using: string },
  ): Promise<ScoredEntry[]> {
    const filter = liveMemoryFilter(namespace, this.clock(), translated.conditions);
    return this.collectChecked(k, translated, async (limit) => {
      const response = await this.send(operation, () =>
        this.queries.query({ ...search, filter, limit, with_payload: true, with_vector: false }),
      );
      return response.map((point) => ({ entry: this.entryOf(operation, point.payload, namespace), score: point.score }));
    });
  }

  /**
   * Fetches `k` hits, or more when some must pass the client-side location check: the limit grows
   * until `k` hits pass or the server runs out of candidates.
   */
  private async collectChecked<T extends MemoryEntry | ScoredEntry>(
    k: number,
    translated: TranslatedFilter,
    fetch: (limit: number) => Promise<T[]>,
  ): Promise<T[]> {
    if (translated.locationNeedle === undefined) return (await fetch(k)).slice(0, k);
    let limit = Math.min(MAX_CANDIDATES, Math.max(k * 2, k + 16));
    for (;;) {
      const candidates = await fetch(limit);
      const passing = candidates.filter((hit) => passesClientCheck("entry" in hit ? hit.entry : hit, translated));
      if (passing.length >= k || candidates.length < limit || limit >= MAX_CANDIDATES) return passing.slice(0, k);
      limit = Math.min(MAX_CANDIDATES, limit * 4);
    }
  }

  /** Every point matching `filter`, page by page (id order), handing each payload to `visit`. */
  private async scrollAll(
    operation: string,
    filter: NamespaceScopedFilter,
    fields: string[] | true,
    visit: (payload: unknown) => void,
  ): Promise<void> {
    let offset: Schemas["ExtendedPointId"] | undefined;
    do {
      const page = await this.send(operation, () =>
        this.client.scroll(this.collection, {
          filter,
          limit: SCROLL_PAGE,
          with_payload: fields,
          with_vector: false,
          ...(offset !== undefined ? { offset } : {}),
        }),
      );
      for (const point of page.points) visit(point.payload);
      const next = page.next_page_offset;
      offset = typeof next === "string" || typeof next === "number" ? next : undefined;
    } while (offset !== undefined);
  }

  /** Distinct string values of a keyword field under the filter. */
  private async facetValues(operation: string, key: string, filter: NamespaceScopedFilter): Promise<string[]> {
    const result = await this.send(operation, () =>
      this.client.facet(this.collection, { key, filter, limit: FACET_LIMIT, exact: true }),
    );
    return result.hits.flatMap((hit) => (typeof hit.value === "string" ? [hit.value] : []));
  }
}

// ---------------------------------------------------------------------------------------------
// Collection bootstrap

/** A cluster parameter as the server reports it; anything malformed reads as unreported, since it only feeds a warning. */
const ReportedCountSchema = z.number().int().min(1).optional().catch(undefined);

/** The parts of `GET /collections/{name}` the adapter relies on. */
const CollectionInfoSchema = z.object({
  config: z.object({
    params: z.object({
      vectors: z.unknown(),
      sparse_vectors: z.record(z.string(), z.object({ modifier: z.string().nullish() }).loose()).nullish(),
      shard_number: ReportedCountSchema,
      replication_factor: ReportedCountSchema,
      write_consistency_factor: ReportedCountSchema,
    }),
    metadata: z.record(z.string(), z.unknown()).nullish(),
  }),
  payload_schema: z.record(z.string(), z.unknown()),
});

const DenseVectorConfigSchema = z.object({ size: z.number(), distance: z.string() });

async function ensureCollection(
  client: QdrantRest,
  collection: string,
  embedding: EmbeddingSpec,
  cluster: ClusterSettings,
  readOnly: boolean,
): Promise<number> {
  const send = sender(collection);
  const exists = await send(() => client.collectionExists(collection));
  if (!exists && readOnly) {
    throw new ReadOnlyStoreError("open", `no collection "${collection}" on this Qdrant, and a read-only store never creates one`);
  }
  if (!exists) await createCollection(client, collection, embedding, cluster);

  const info = CollectionInfoSchema.safeParse(await send(() => client.getCollection(collection)));
  if (!info.success) throw new StoreError("open", `collection "${collection}": unexpected collection info from the server`);
  const bm25B = checkCollection(collection, info.data, embedding);
  // Compared on every open, not only on reuse: another process may have won the race to create it.
  warnOnClusterDifferences(collection, info.data.config.params, cluster);

  // Creating indexes is idempotent server-side, but only missing ones are sent: a re-open costs nothing,
  // and a collection whose first open died half-way is repaired.
  const missing = PAYLOAD_INDEXES.filter((index) => info.data.payload_schema[index.field_name] === undefined);
  if (missing.length && readOnly) {
    // Like an older sqlite schema: the reads rely on these indexes (order_by needs the range index).
    throw new ReadOnlyStoreError(
      "migrate",
      `collection "${collection}" lacks the payload index of ${missing.map((index) => index.field_name).join(", ")}: ` +
        "open it once writable (without readOnly, --read-only or RECALLGRAPH_READ_ONLY) to create them, then read-only again",
    );
  }
  for (const index of missing) await send(() => client.createPayloadIndex(collection, index));
  return bm25B;
}

/** Deletes a collection; true when the server had it to delete. */
async function deleteCollection(client: QdrantRest, collection: string, operation: string): Promise<boolean> {
  try {
    return await client.deleteCollection(collection);
  } catch (error) {
    throw wrapFailure(operation, collection, error);
  }
}

/** Runs one bootstrap request, its failure a StoreError of `open`. */
function sender(collection: string): <T>(call: () => Promise<T>) => Promise<T> {
  return async (call) => {
    try {
      return await call();
    } catch (error) {
      throw wrapFailure("open", collection, error);
    }
  };
}

async function createCollection(client: QdrantRest, collection: string, embedding: EmbeddingSpec, cluster: ClusterSettings): Promise<void> {
  try {
    await client.createCollection(collection, createCollectionBody(embedding, cluster));
  } catch (error) {
    // Another process may have created it between the two calls; anything else is a failure.
    const nowExists = await sender(collection)(() => client.collectionExists(collection));
    if (!nowExists) throw wrapFailure("open", collection, error);
  }
}

/**
 * The collection is one of ours, of this layout, built by this embedder, with both vectors as created.
 * Returns the b its sparse vectors were written with, which its later writes keep.
 */
function checkCollection(collection: string, info: z.infer<typeof CollectionInfoSchema>, embedding: EmbeddingSpec): number {
  const { config } = info;
  const operation = "open";
  const metadata = CollectionMetadataSchema.safeParse(config.metadata?.[COLLECTION_METADATA_KEY]);
  if (!metadata.success) {
    throw new StoreError(operation, `collection "${collection}" exists but was not created by recallgraph (no metadata.${COLLECTION_METADATA_KEY})`);
  }
  const layout = metadata.data.layoutVersion;
  if (layout !== LAYOUT_VERSION) {
    // A collection is never rewritten in place: an older one's points lack what this layout reads.
    const remedy =
      layout < LAYOUT_VERSION
        ? "ingest the memories again into a new collection (name it with QDRANT_COLLECTION or the store's `collection` option)"
        : "use a recallgraph version that reads it";
    throw new StoreError(operation, `collection "${collection}" uses recallgraph layout ${layout}, this version reads layout ${LAYOUT_VERSION}: ${remedy}`);
  }
  const stored = metadata.data.embedding;
  if (stored.model !== embedding.model || stored.dimension !== embedding.dimension) {
    throw new EmbedderMismatchError(stored, embedding);
  }
  const vectors = z.record(z.string(), z.unknown()).safeParse(config.params.vectors);
  const dense = DenseVectorConfigSchema.safeParse(vectors.success ? vectors.data[DENSE_VECTOR] : undefined);
  if (!dense.success || dense.data.size !== embedding.dimension || dense.data.distance !== "Cosine") {
    throw new StoreError(operation, `collection "${collection}": vector "${DENSE_VECTOR}" is missing or not ${embedding.dimension}-d cosine`);
  }
  // The query vector carries the namespace's idf: Qdrant's idf modifier would count it twice, collection-wide.
  const lexical = config.params.sparse_vectors?.[LEXICAL_VECTOR];
  if (!lexical || (lexical.modifier ?? "none") !== "none") {
    throw new StoreError(operation, `collection "${collection}": sparse vector "${LEXICAL_VECTOR}" is missing or has a modifier (it must have none)`);
  }
  return metadata.data.bm25B;
}

/** What an operator can do about each setting, for the warning. */
const HOW_TO_CHANGE: Record<ClusterSetting, string> = {
  shards: "fixed when the collection is created: changing it means migrating to a new collection",
  replicationFactor: "an operator can change it with PATCH /collections/{name} (params.replication_factor) and then replicate the shards",
  writeConsistencyFactor: "an operator can change it with PATCH /collections/{name} (params.write_consistency_factor)",
};

/**
 * Settings asked for that an existing collection does not have are logged, not refused: its data is
 * as usable as before, and whether to migrate or update it is the operator's decision.
 */
function warnOnClusterDifferences(collection: string, params: z.infer<typeof CollectionInfoSchema>["config"]["params"], asked: ClusterSettings): void {
  const differences = clusterSettingDifferences(asked, params);
  if (!differences.length) return;
  log.warn("qdrant_settings_differ", {
    collection,
    settings: differences.map((difference) => ({ ...difference, change: HOW_TO_CHANGE[difference.setting] })),
  });
}

// ---------------------------------------------------------------------------------------------
// Payload shapes read back, names, errors

const SourcePayloadSchema = z.object({
  source: z.object({ documentId: z.string().optional(), version: z.number().optional() }),
});
const IdPayloadSchema = z.object({ id: z.string() });
const SettingsPayloadSchema = z.object({ settings: NamespaceSettingsSchema });

/** The filter with one more server-side condition (the client-side check unchanged). */
function withCondition(translated: TranslatedFilter, condition: Schemas["Condition"]): TranslatedFilter {
  return { ...translated, conditions: [...translated.conditions, condition] };
}

/**
 * Vocabulary names as sqlite lists them: one per case-insensitive name (trimmed, lower-cased), the
 * smallest spelling kept, ordered by the folded name.
 */
function distinctNames(names: readonly string[]): string[] {
  const byFolded = new Map<string, string>();
  for (const name of names) {
    const spelling = name.trim();
    const folded = spelling.toLowerCase();
    if (!folded) continue;
    const kept = byFolded.get(folded);
    if (kept === undefined || compareText(spelling, kept) < 0) byFolded.set(folded, spelling);
  }
  return [...byFolded.entries()].sort(([a], [b]) => compareText(a, b)).map(([, spelling]) => spelling);
}

/** Turns a client or server failure into a StoreError naming the operation (and the server's own message, or the client's: a timeout, an oversized answer). */
function wrapFailure(operation: string, collection: string, error: unknown): StoreError {
  if (error instanceof StoreError) return error;
  const message = error instanceof Error ? error.message || error.name : String(error);
  return new StoreError(operation, `collection "${collection}": ${message}`, { cause: error });
}
