/**
 * Where the sqlite store's nearest-neighbour lookups run: the one place that chooses between
 * - an HNSW index (hnsw-index.ts), when the store is configured with `vectorIndex: "hnsw"` and the
 *   namespace holds at least `hnswMinEntries` entries: approximate, sub-millisecond at 100k;
 * - an in-memory copy searched exactly by usearch's SIMD kernel (exact-vectors.ts): the same answers as
 *   sqlite-vec, ties and distances included, about 3x faster; the default, within a memory budget;
 * - sqlite-vec's own KNN (the caller's fallback, `undefined` from `nearest`): when usearch is missing,
 *   the budget is 0 or too small for the namespace, or an index is not ready yet.
 *
 * Consistency. Every in-memory structure records the namespace generation it matches (schema.ts: the
 * triggers bump it and log the changed rowid in the transaction that writes the rows). Before each
 * search, and after each write of this store, a structure behind the store's generation re-reads the
 * rowids logged since its own (remove, then add back what the store now holds): writes of this process,
 * of another process, and writes a crash kept in the file but not in a saved index alike. A structure
 * the log no longer reaches back for (VECTOR_CHANGE_WINDOW) is dropped: an exact copy is re-read, an
 * index rebuilt, and until then the search is exact. One namespace, one structure: nothing is shared.
 *
 * Index lifecycle (hnsw). On first search of a large namespace the saved index is loaded (restart) and
 * caught up; when there is none, or it belongs to another store file or shape, a build starts in the
 * background, in slices of a few hundred vectors between which the event loop runs (searches meanwhile
 * are exact), and the index is saved when done. It is saved again when the store closes with changes
 * unsaved, and after VECTOR_CHANGE_WINDOW / 2 of them, so a crash never leaves it further behind than
 * the log reaches. A read-only store loads and catches up an index in memory but never builds or saves one.
 */
import { z } from "zod";
import { describeError, log } from "../../core/log.js";
import { nextTurn } from "../../core/next-turn.js";
import type { IndexBuildResult } from "../port.js";
import { ExactVectors, type TieOrder, type VectorHit } from "./exact-vectors.js";
import { HnswIndex, type HnswBuildParameters, type IndexIdentity, type IndexShape } from "./hnsw-index.js";
import { savedFilesLock } from "./saved-files.js";
import { indexFolder } from "./store-file.js";
import { hasVectorBookkeeping, storeId, VECTOR_CHANGE_WINDOW, type SqliteDatabase } from "./schema.js";
import { loadUsearch, type Usearch } from "./usearch.js";
import { VectorRows, type StoredVector } from "./vector-rows.js";
import { DEFAULT_HNSW_MIN_ENTRIES, DEFAULT_VECTOR_CACHE_MIB, VectorSearchFields } from "./vector-search-fields.js";
import { floatsOfBlob, vec0L2 } from "./vectors.js";

/**
 * How the index is built for 512-d sentence embeddings, chosen with bench/vector-index.ts (results in
 * bench/results/vector-index.json): usearch's default connectivity (16), and 64 candidates while adding,
 * half usearch's default, which built a 100k index 3.4x faster for a recall@10 of 0.9975 instead of 0.999.
 */
export const DEFAULT_HNSW_BUILD: HnswBuildParameters = { connectivity: 16, expansionAdd: 64 };

/**
 * How wide a search looks by default: 256 candidates at 100k entries, doubling with each tenfold growth
 * (128 at 10k, 512 at 1M), never under 64. Recall falls as a namespace grows, so a fixed width is either
 * too narrow for a large one or wasted on a small one. On the benchmark's questions (short, far from
 * every memory, many near-ties) 256 held 0.995 of the exact top 10 at 100k and 0.914 at 1M, where 512
 * held 0.98 (bench/results/vector-index.json: 3.2 ms a search at 100k 256 wide, 4.3 ms 512 wide).
 */
const SEARCH_WIDTH_AT_100K = 256;
const MIN_SEARCH_WIDTH = 64;

/**
 * An i8 index's distances are coarse, so the true neighbours it proposes for re-ranking sit further
 * down its candidates: it searches half as wide again. On the speed benchmark's kept store of a million
 * memories (i8, the same 100 questions), 512 held 0.961 of the exact top 10 (0.949 on another build of
 * the index) and 768 held 0.984, for the same CPU time a question (46 ms against 45).
 */
const I8_WIDTH_FACTOR = 1.5;

/** The parameters a namespace's index is built with: the given ones, else the defaults. */
export function buildParameters(options: Pick<VectorSearchOptions, "hnsw">): HnswBuildParameters {
  return options.hnsw ? { connectivity: options.hnsw.connectivity, expansionAdd: options.hnsw.expansionAdd } : DEFAULT_HNSW_BUILD;
}

/** Candidates a search of an index of `entries` vectors looks at: the given `hnsw.expansionSearch`, else a width that follows the size. */
export function searchWidth(options: Pick<VectorSearchOptions, "hnsw" | "hnswScalarKind">, entries: number): number {
  if (options.hnsw) return options.hnsw.expansionSearch;
  const width = Math.max(MIN_SEARCH_WIDTH, SEARCH_WIDTH_AT_100K * 2 ** Math.log10(Math.max(1, entries) / 100_000));
  return Math.round(options.hnswScalarKind === "i8" ? width * I8_WIDTH_FACTOR : width);
}

export const VectorSearchOptionsSchema = z.strictObject({
  vectorIndex: VectorSearchFields.vectorIndex.default("exact"),
  hnswMinEntries: VectorSearchFields.hnswMinEntries.default(DEFAULT_HNSW_MIN_ENTRIES),
  // Unset: the default build, and a search width that follows the namespace's size (searchWidth).
  hnsw: VectorSearchFields.hnsw.optional(),
  hnswScalarKind: VectorSearchFields.hnswScalarKind.default("f32"),
  vectorCacheMiB: VectorSearchFields.vectorCacheMiB.default(DEFAULT_VECTOR_CACHE_MIB),
});
export type VectorSearchOptions = z.output<typeof VectorSearchOptionsSchema>;

/** What one namespace's dense search would use now, and what happened to its index so far (for tests and stats). */
export interface VectorSearchCounters {
  /** Indexes loaded from their files. */
  loaded: number;
  /** Indexes built from the store's vectors. */
  built: number;
  /** Indexes saved to their files. */
  saved: number;
  /** Exact in-memory copies read from the store. */
  copied: number;
  /** Structures brought up to date from the change log. */
  caughtUp: number;
  /** Vectors read back from the store to re-rank an index's candidates (i8). */
  reranked: number;
}

/** Counters before anything happened (and of a store with no in-memory search). */
export function freshCounters(): VectorSearchCounters {
  return { loaded: 0, built: 0, saved: 0, copied: 0, caughtUp: 0, reranked: 0 };
}

/** Which of a search's nearest vectors it keeps: those `accepts` passes among the `width` nearest. */
export interface CandidateFilter {
  width: number;
  accepts: (rowid: number) => boolean;
}

/**
 * Candidates a re-ranked (i8) index proposes per hit wanted, re-ranked by their full-precision vectors.
 * On the speed benchmark's 100k memories (512-d, hashing embedder) an i8 index's own top 10 held 0.81 of
 * the exact top 10; its top 20 re-ranked, 0.949; its top 40, 0.985; its top 80, 0.989 (f32's own: 0.998).
 */
const RERANK_FACTOR = 4;

/** Vectors per build slice: a few hundred milliseconds of usearch insertion at 1M entries, then the event loop runs. */
const BUILD_SLICE_CHUNKS = 8;
/**
 * Chunks of 64 vectors read per page into an exact copy: each vector of a page is copied out of its row
 * before it goes into the copy, so a page of 64 chunks holds 8 MB of 512-d vectors twice, not 134 MB.
 */
const COPY_PAGE_CHUNKS = 64;

interface Versioned {
  /** The namespace generation the structure matches. */
  generation: number;
}
interface ExactState extends Versioned {
  vectors: ExactVectors;
}
interface IndexState extends Versioned {
  index: HnswIndex;
  /** Changes applied since the last save (or the build). */
  unsaved: number;
}

interface Context {
  db: SqliteDatabase;
  dimension: number;
  /** The store file, empty for `:memory:` (indexes then live in memory only). */
  file: string;
  readOnly: boolean;
}

export class VectorSearch {
  readonly counters = freshCounters();
  private readonly exact = new Map<string, ExactState>();
  private readonly indexes = new Map<string, IndexState>();
  private readonly builds = new Map<string, Promise<IndexBuildResult>>();
  private closed = false;

  private constructor(
    private readonly context: Context,
    private readonly options: VectorSearchOptions,
    /** Undefined: usearch cannot load here, or the file lacks the bookkeeping; every search goes to sqlite-vec. */
    private readonly engine: { usearch: Usearch; rows: VectorRows; storeId: string | undefined } | undefined,
  ) {}

  static async open(context: Context, options: VectorSearchOptions): Promise<VectorSearch> {
    const wanted = options.vectorCacheMiB > 0 || options.vectorIndex === "hnsw";
    const usearch = wanted ? await loadUsearch() : undefined;
    if (!usearch || !hasVectorBookkeeping(context.db)) return new VectorSearch(context, options, undefined);
    // Without a file (`:memory:`) or an id (nothing to check saved files against), indexes live in memory only.
    const id = context.file ? storeId(context.db) : undefined;
    return new VectorSearch(context, options, { usearch, rows: new VectorRows(context.db, context.dimension), storeId: id });
  }

  /** False when every dense search is sqlite-vec's own (no usearch here, or neither a vector cache nor an index configured). */
  get searchesInMemory(): boolean {
    return this.engine !== undefined;
  }

  /**
   * The k nearest vectors of the namespace to a unit query (as vec0 stores it), best first, with vec0's
   * L2 distances; undefined when sqlite-vec must answer. Exact unless an HNSW index serves the namespace.
   * With `among`, the k nearest of those it accepts among the namespace's `width` nearest.
   */
  nearest(namespace: string, queryBlob: Buffer, k: number, among?: CandidateFilter): VectorHit[] | undefined {
    if (!this.engine || this.closed) return undefined;
    try {
      return this.nearestInMemory(namespace, floatsOfBlob(queryBlob), k, among);
    } catch (error) {
      // A failing in-memory path degrades to sqlite-vec, never to an error; what it held is re-read next time.
      this.forget(namespace, "vector_search_failed", error);
      return undefined;
    }
  }

  /**
   * The k nearest of the namespace's vectors among `rowids` (the matches of a filter, read only when
   * needed), exact, ties in the given order; undefined when sqlite-vec or the namespace's HNSW index
   * must answer (an index's filtered searches widen over the index instead).
   */
  nearestAmong(namespace: string, queryBlob: Buffer, k: number, rowids: () => number[], ties: TieOrder): VectorHit[] | undefined {
    if (!this.engine || this.closed) return undefined;
    try {
      const size = this.sizeOf(namespace);
      if (this.indexed(size)) return undefined;
      return this.currentExact(namespace, size)?.vectors.nearestAmong(floatsOfBlob(queryBlob), rowids(), k, ties);
    } catch (error) {
      this.forget(namespace, "vector_search_failed", error);
      return undefined;
    }
  }

  /** Brings every loaded structure of the namespace (of all namespaces, when omitted) up to date with the store, after a write. */
  afterWrite(namespace?: string): void {
    if (!this.engine || this.closed) return;
    try {
      this.refreshAll(namespace);
    } catch (error) {
      // The write itself has committed: the structures are dropped, and rebuilt from the store when next needed.
      this.forget(namespace, "vector_refresh_failed", error);
    }
  }

  private nearestInMemory(namespace: string, query: Float32Array, k: number, among: CandidateFilter | undefined): VectorHit[] | undefined {
    const size = this.sizeOf(namespace);
    if (this.indexed(size)) {
      const index = this.currentIndex(namespace);
      if (index) return this.fromIndex(namespace, index, query, k, among);
      // While an index is being built (writable stores build one), the namespace is left to sqlite-vec
      // rather than copied into memory too: the index already holds its vectors.
      if (!this.context.readOnly) {
        this.exact.delete(namespace);
        return undefined;
      }
    }
    const exact = this.currentExact(namespace, size)?.vectors;
    if (!among) return exact?.nearest(query, k);
    return exact
      ?.nearest(query, among.width)
      .filter((hit) => among.accepts(hit.rowid))
      .slice(0, k);
  }

  /**
   * The k nearest by the index, of those `among` accepts among its `width` nearest when given. A
   * re-ranked index's order only proposes: the first k x RERANK_FACTOR of its candidates that pass are
   * measured by their stored vectors and the best k kept. The filter is asked first, so a filtered
   * search reads as few vectors as an unfiltered one, not every candidate of the widened search.
   */
  private fromIndex(namespace: string, index: HnswIndex, query: Float32Array, k: number, among: CandidateFilter | undefined): VectorHit[] {
    const factor = index.reranked ? RERANK_FACTOR : 1;
    const width = searchWidth(this.options, index.size);
    const candidates = among
      ? index.search(query, among.width * factor, width).filter((hit) => among.accepts(hit.rowid))
      : index.search(query, k * factor, width);
    const proposed = candidates.slice(0, k * factor);
    return index.reranked ? this.reranked(namespace, query, proposed, k) : proposed.slice(0, k);
  }

  /**
   * The k best of a re-ranked index's candidates by their stored vectors, measured and ordered as vec0
   * measures and orders them: the scores exact search would give, only the candidates approximate.
   */
  private reranked(namespace: string, query: Float32Array, candidates: readonly VectorHit[], k: number): VectorHit[] {
    const rowids = candidates.map((hit) => hit.rowid);
    this.counters.reranked += rowids.length;
    return this.requireEngine()
      .rows.vectorsOf(namespace, rowids)
      .map(({ rowid, order, vector }) => ({ rowid, order, distance: vec0L2(vector, 0, query) }))
      .sort((a, b) => a.distance - b.distance || a.order - b.order)
      .slice(0, k)
      .map(({ rowid, distance }) => ({ rowid, distance }));
  }

  private refreshAll(namespace: string | undefined): void {
    for (const [name, state] of this.exact) if (namespace === undefined || name === namespace) this.refreshExact(name, state);
    for (const [name, state] of this.indexes) {
      if (namespace !== undefined && name !== namespace) continue;
      if (!this.refreshIndex(name, state)) continue;
      // Saved before the log could pass it by: a crash then costs a catch-up, never a rebuild.
      if (state.unsaved >= VECTOR_CHANGE_WINDOW / 2) this.save(name, state);
    }
  }

  /**
   * Makes the namespace's index ready now: loads it or builds it (waiting for a build under way).
   * "not-indexed" when the namespace is searched exactly (kind "exact", too few entries, no usearch).
   */
  async buildIndex(namespace: string): Promise<IndexBuildResult> {
    if (!this.engine || this.closed || !this.indexed(this.sizeOf(namespace))) return "not-indexed";
    const loadedBefore = this.counters.loaded;
    if (this.currentIndex(namespace)) return this.counters.loaded > loadedBefore ? "loaded" : "current";
    return (await this.builds.get(namespace)) ?? "not-indexed";
  }

  /** Makes the namespace's index ready, as `buildIndex`, and saves it now if it holds changes its file does not. */
  async prepare(namespace: string): Promise<IndexBuildResult> {
    const result = await this.buildIndex(namespace);
    const state = this.indexes.get(namespace);
    if (state && state.unsaved > 0 && !this.closed) this.save(namespace, state);
    return result;
  }

  /** Saves unsaved indexes and stops builds; the store closes the database after. */
  close(): void {
    if (this.closed) return;
    for (const [namespace, state] of this.indexes) if (state.unsaved > 0) this.save(namespace, state);
    this.closed = true;
    this.exact.clear();
    this.indexes.clear();
  }

  // ------------------------------------------------------------------------------------------

  /** Drops the in-memory structures of a namespace (all, when omitted) after a failure, and says so. */
  private forget(namespace: string | undefined, event: string, error: unknown): void {
    log.warn(event, { namespace, reason: describeError(error), fallback: "sqlite-vec" });
    for (const map of [this.exact, this.indexes]) {
      if (namespace === undefined) map.clear();
      else map.delete(namespace);
    }
  }

  private indexed(size: number): boolean {
    return this.options.vectorIndex === "hnsw" && size >= this.options.hnswMinEntries;
  }

  /**
   * Entries of the namespace: those of its loaded structure, brought up to date (one vector per entry),
   * or else counted (entry-changes.ts keeps the count while the generation stays).
   */
  private sizeOf(namespace: string): number {
    const index = this.indexes.get(namespace);
    if (index && this.refreshIndex(namespace, index)) return index.index.size;
    const exact = this.exact.get(namespace);
    if (exact && this.refreshExact(namespace, exact)) return exact.vectors.size;
    return this.requireEngine().rows.changes.entryCount(namespace);
  }

  /** The namespace's exact copy, up to date; read from the store when absent and the budget allows. */
  private currentExact(namespace: string, size: number): ExactState | undefined {
    const budget = this.options.vectorCacheMiB * 1024 * 1024;
    let state = this.exact.get(namespace);
    if (state && !this.refreshExact(namespace, state)) state = undefined;
    if (!state) {
      // A copy takes 4 bytes per float and two numbers per entry; more than the budget, and sqlite-vec answers.
      if (size * (this.context.dimension * 4 + 16) > budget) return undefined;
      state = this.copy(namespace, size);
    }
    // Most recently used last: Map keeps insertion order, which eviction walks from the front.
    this.exact.delete(namespace);
    this.exact.set(namespace, state);
    this.evictBeyond(budget);
    return state;
  }

  private copy(namespace: string, size: number): ExactState {
    const { usearch, rows } = this.requireEngine();
    const vectors = new ExactVectors(usearch, this.context.dimension, Math.max(64, size));
    // One read transaction: the generation and the vectors come from the same snapshot.
    const generation = this.context.db.transaction(() => {
      for (let after = 0; ; ) {
        const page = rows.page(namespace, after, COPY_PAGE_CHUNKS);
        for (const stored of page.vectors) vectors.set(stored.rowid, stored.order, stored.vector);
        if (page.nextAfterChunk === undefined) break;
        after = page.nextAfterChunk;
      }
      return rows.changes.generation(namespace);
    })();
    this.counters.copied += 1;
    return { vectors, generation };
  }

  private evictBeyond(budget: number): void {
    let total = 0;
    for (const state of this.exact.values()) total += state.vectors.bytes;
    for (const [namespace, state] of this.exact) {
      if (total <= budget || this.exact.size === 1) break;
      total -= state.vectors.bytes;
      this.exact.delete(namespace);
    }
  }

  /** Applies the logged changes to the exact copy; false (and dropped) when the log no longer reaches back. */
  private refreshExact(namespace: string, state: ExactState): boolean {
    const caughtUp = this.catchUp(namespace, state, (changed, present) => {
      for (const rowid of changed) state.vectors.delete(rowid);
      for (const stored of present) state.vectors.set(stored.rowid, stored.order, stored.vector);
    });
    if (!caughtUp) this.exact.delete(namespace);
    return caughtUp;
  }

  /** Applies the logged changes to the index; false (and dropped, to be rebuilt) when the log no longer reaches back. */
  private refreshIndex(namespace: string, state: IndexState): boolean {
    const caughtUp = this.catchUp(namespace, state, (changed, present) => {
      state.index.remove(changed);
      addAll(state.index, present, 0);
      state.unsaved += changed.length;
    });
    if (!caughtUp) this.indexes.delete(namespace);
    return caughtUp;
  }

  /**
   * Reads, in one snapshot, the store's generation, the rowids logged since the structure's and their
   * current vectors, and hands them to `apply`. True when the structure is now current.
   */
  private catchUp(namespace: string, state: Versioned, apply: (changed: number[], present: StoredVector[]) => void): boolean {
    const { rows } = this.requireEngine();
    const update = this.context.db.transaction(() => {
      const generation = rows.changes.generation(namespace);
      if (generation === state.generation) return { generation, changed: [], present: [] };
      const changed = rows.changes.changedSince(namespace, state.generation, generation);
      return changed && { generation, changed, present: rows.vectorsOf(namespace, changed) };
    })();
    if (!update) return false;
    if (update.changed.length) {
      apply(update.changed, update.present);
      this.counters.caughtUp += 1;
    }
    state.generation = update.generation;
    return true;
  }

  /** The namespace's index, up to date: loaded from its file on first use, else a build started (undefined meanwhile). */
  private currentIndex(namespace: string): HnswIndex | undefined {
    let state = this.indexes.get(namespace);
    if (state && !this.refreshIndex(namespace, state)) state = undefined;
    if (!state && !this.builds.has(namespace)) {
      state = this.load(namespace);
      if (state && !this.refreshIndex(namespace, state)) state = undefined;
      if (state) this.indexes.set(namespace, state);
      else if (!this.context.readOnly) this.startBuild(namespace);
    }
    return state?.index;
  }

  private load(namespace: string): IndexState | undefined {
    const { usearch } = this.requireEngine();
    const identity = this.identityOf(namespace);
    if (!identity) return undefined;
    const loaded = HnswIndex.load(usearch, indexFolder(this.context.file), identity, this.shape());
    if (!loaded) return undefined;
    this.counters.loaded += 1;
    log.info("vector_index_loaded", { namespace, entries: loaded.index.size, generation: loaded.generation });
    return { index: loaded.index, generation: loaded.generation, unsaved: 0 };
  }

  private startBuild(namespace: string): void {
    const build = this.build(namespace)
      .catch((error: unknown): IndexBuildResult => {
        log.warn("vector_index_build_failed", { namespace, reason: describeError(error) });
        return "not-indexed";
      })
      .finally(() => this.builds.delete(namespace));
    this.builds.set(namespace, build);
  }

  /**
   * Builds the namespace's index from the store's vectors, slice by slice. Writes between slices are
   * caught up at the end from the generation the build started at; a vector met twice (rewritten into a
   * later chunk meanwhile) is added once, its current value coming with the catch-up.
   */
  private async build(namespace: string): Promise<IndexBuildResult> {
    const { usearch, rows } = this.requireEngine();
    const index = HnswIndex.create(usearch, this.context.dimension, this.shape());
    const state: IndexState = { index, generation: rows.changes.generation(namespace), unsaved: 0 };
    const started = performance.now();
    for (let after: number | undefined = 0; after !== undefined; ) {
      await nextTurn();
      if (this.closed) return "not-indexed";
      const page = rows.page(namespace, after, BUILD_SLICE_CHUNKS);
      addAll(
        index,
        page.vectors.filter((stored) => !index.contains(stored.rowid)),
        0,
      );
      after = page.nextAfterChunk;
    }
    if (this.closed || !this.refreshIndex(namespace, state)) return "not-indexed";
    this.indexes.set(namespace, state);
    this.counters.built += 1;
    log.info("vector_index_built", { namespace, entries: index.size, ms: Math.round(performance.now() - started) });
    this.save(namespace, state);
    return "built";
  }

  private save(namespace: string, state: IndexState): void {
    const identity = this.identityOf(namespace);
    if (!identity || this.context.readOnly) return;
    try {
      state.index.save(indexFolder(this.context.file), identity, state.generation, savedFilesLock(this.context.db));
      state.unsaved = 0;
      this.counters.saved += 1;
    } catch (error) {
      // The index stays usable in memory; the next opening catches the saved one up, or rebuilds.
      log.warn("vector_index_save_failed", { namespace, reason: describeError(error) });
    }
  }

  private shape(): IndexShape {
    return { parameters: buildParameters(this.options), scalarKind: this.options.hnswScalarKind };
  }

  /** What the namespace's saved index must match; undefined when indexes are not saved (no file, or no store id). */
  private identityOf(namespace: string): IndexIdentity | undefined {
    const id = this.engine?.storeId;
    return id === undefined ? undefined : { storeId: id, namespace, dimension: this.context.dimension };
  }

  private requireEngine(): NonNullable<VectorSearch["engine"]> {
    if (!this.engine) throw new Error("vector search without usearch");
    return this.engine;
  }
}

/** Adds stored vectors to an index in one call. */
function addAll(index: HnswIndex, vectors: readonly StoredVector[], threads: number): void {
  if (!vectors.length) return;
  const dimension = vectors[0]?.vector.length ?? 0;
  const matrix = new Float32Array(vectors.length * dimension);
  vectors.forEach((stored, row) => matrix.set(stored.vector, row * dimension));
  index.add(
    vectors.map((stored) => stored.rowid),
    matrix,
    threads,
  );
}
