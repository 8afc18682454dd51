/**
 * Exact dense search over an in-memory copy of a namespace's vectors, with usearch's SIMD kernel,
 * returning exactly what sqlite-vec's KNN returns: the same rows, in the same order, with the same
 * distances, ties included.
 *
 * How: usearch ranks every vector by its float32 dot product with the query (measured 3.3x faster than
 * vec0's scalar scan); the best `k + margin` are then measured again the way vec0 measures (vec0L2:
 * its float32 L2, bit for bit) and sorted as vec0 sorts (distance, then vec0's tie order). That is the
 * exact top k when every vector left out is certainly farther than the k-th: the dot products of the two
 * kernels differ by at most DOT_ERROR_BOUND for unit vectors, so it holds once the last candidate's dot
 * product is more than that bound below the k-th's cosine. When it does not (near-ties at the boundary,
 * many duplicates) the margin widens, up to the whole namespace.
 *
 * The copy costs 4 bytes per dimension per entry (200 MB for 100k 512-d vectors) on top of SQLite's
 * pages; vector-search.ts keeps all copies under one budget.
 */
import type { Usearch } from "./usearch.js";
import { vec0L2 } from "./vectors.js";

/** How exact ties are ordered: vec0's KNN order (chunk, then slot), or ascending rowid. */
export type TieOrder = "vec0" | "rowid";

/** A KNN hit as vec0 reports it: the entry's rowid and its L2 distance to the query. */
export interface VectorHit {
  rowid: number;
  distance: number;
}

/**
 * Largest difference between the two float32 evaluations of the cosine of unit vectors of up to 1024
 * dimensions, by the classic n·u bound on a float32 sum (u = 2^-24): vec0's sequential sum of squared
 * differences errs by at most (n + 5)·u relative, so its cosine (1 - L2²/2, with L2² ≤ 4) by 1.23e-4;
 * usearch's dot product, by n·u·Σ|aᵢbᵢ| ≤ 6.1e-5 (Cauchy-Schwarz); the stored vectors' lengths differ
 * from 1 by 2u. 2.5e-4 covers their sum, 1.85e-4, with room to spare.
 */
export const DOT_ERROR_BOUND = 2.5e-4;
/** Dimensions the bound above is derived for; larger vectors double-check more (the bound scales with n). */
const BOUND_DIMENSIONS = 1024;
/** Candidates beyond k measured again: the near-ties around the k-th of random 512-d data are a fraction of one. */
const MIN_MARGIN = 16;
/** Arrays grow by half again when full. */
const GROWTH = 1.5;

export class ExactVectors {
  /** The vectors, slot after slot; slots [0, size) are in use. */
  private matrix: Float32Array;
  private rowids: Float64Array;
  private orders: Float64Array;
  private readonly slotOf = new Map<number, number>();
  private readonly errorBound: number;

  constructor(
    private readonly usearch: Usearch,
    readonly dimension: number,
    capacity = 64,
  ) {
    this.matrix = new Float32Array(capacity * dimension);
    this.rowids = new Float64Array(capacity);
    this.orders = new Float64Array(capacity);
    this.errorBound = DOT_ERROR_BOUND * Math.max(1, dimension / BOUND_DIMENSIONS);
  }

  get size(): number {
    return this.slotOf.size;
  }

  /** Memory held, in bytes (what the budget counts). */
  get bytes(): number {
    return this.matrix.byteLength + this.rowids.byteLength + this.orders.byteLength;
  }

  /** Adds a vector, or replaces the one the rowid had (with its new vec0 position). */
  set(rowid: number, order: number, vector: Float32Array): void {
    let slot = this.slotOf.get(rowid);
    if (slot === undefined) {
      slot = this.slotOf.size;
      if (slot === this.rowids.length) this.grow();
      this.slotOf.set(rowid, slot);
    }
    this.matrix.set(vector, slot * this.dimension);
    this.rowids[slot] = rowid;
    this.orders[slot] = order;
  }

  /** Removes the rowid's vector, if held: the last slot moves into its place. */
  delete(rowid: number): void {
    const slot = this.slotOf.get(rowid);
    if (slot === undefined) return;
    this.slotOf.delete(rowid);
    const last = this.slotOf.size;
    if (slot !== last) {
      const moved = this.rowids[last] ?? 0;
      this.matrix.copyWithin(slot * this.dimension, last * this.dimension, (last + 1) * this.dimension);
      this.rowids[slot] = moved;
      this.orders[slot] = this.orders[last] ?? 0;
      this.slotOf.set(moved, slot);
    }
  }

  /** The k nearest held vectors of a unit query, exactly as vec0's KNN would list them. */
  nearest(query: Float32Array, k: number): VectorHit[] {
    const size = this.size;
    if (size === 0) return [];
    const wanted = Math.min(k, size);
    for (let candidates = Math.min(size, wanted + Math.max(MIN_MARGIN, wanted >> 2)); ; candidates = Math.min(size, candidates * 4)) {
      const { slots, lastDot } = this.bestByDot(query, candidates);
      const ranked = this.rankLikeVec0(slots, query);
      const kth = ranked[wanted - 1];
      if (candidates === size || kth === undefined) return this.hits(ranked, wanted);
      // Every vector left out has a dot product of at most lastDot by usearch, so at most
      // lastDot + errorBound by vec0: certainly farther than the k-th when that is below its cosine.
      if (lastDot + this.errorBound < 1 - (kth.distance * kth.distance) / 2) return this.hits(ranked, wanted);
    }
  }

  /**
   * The k nearest of the given rowids' vectors (those held), exactly as vec0 would rank them, ties
   * broken by vec0's order or by rowid (the order of the store's one-by-one path). The matches are
   * copied into a scratch set first: a filter's few thousand matches cost less to copy and scan than
   * a KNN over the whole namespace widened until enough of them turn up.
   */
  nearestAmong(query: Float32Array, rowids: readonly number[], k: number, ties: TieOrder): VectorHit[] {
    const subset = new ExactVectors(this.usearch, this.dimension, Math.max(1, rowids.length));
    for (const rowid of rowids) {
      const slot = this.slotOf.get(rowid);
      if (slot === undefined) continue;
      const start = slot * this.dimension;
      subset.set(rowid, ties === "rowid" ? rowid : (this.orders[slot] ?? 0), this.matrix.subarray(start, start + this.dimension));
    }
    return subset.nearest(query, k);
  }

  /** The `count` slots of highest dot product with the query, by usearch, and the lowest dot product among them. */
  private bestByDot(query: Float32Array, count: number): { slots: number[]; lastDot: number } {
    // exactSearch reads the dataset from the start of its buffer for size * dimension floats (its
    // binding ignores a view's offset): the view must start at 0, which this subarray does.
    const dataset = this.matrix.subarray(0, this.size * this.dimension);
    // One thread: a single query is bound by memory bandwidth, and the machine's other core serves other calls.
    const matches = this.usearch.exactSearch(dataset, query, this.dimension, count, this.usearch.MetricKind.IP, 1);
    const slots: number[] = [];
    let lastDot = 1;
    for (let index = 0; index < matches.keys.length; index += 1) {
      slots.push(Number(matches.keys[index] ?? 0n));
      // usearch's "ip" distance is 1 - dot.
      lastDot = Math.min(lastDot, 1 - (matches.distances[index] ?? 0));
    }
    return { slots, lastDot };
  }

  /** The slots with vec0's distance to the query, in vec0's order: distance, then its tie order. */
  private rankLikeVec0(slots: readonly number[], query: Float32Array): { slot: number; distance: number }[] {
    const ranked = slots.map((slot) => ({ slot, distance: vec0L2(this.matrix, slot * this.dimension, query) }));
    return ranked.sort((a, b) => a.distance - b.distance || (this.orders[a.slot] ?? 0) - (this.orders[b.slot] ?? 0));
  }

  private hits(ranked: readonly { slot: number; distance: number }[], k: number): VectorHit[] {
    return ranked.slice(0, k).map(({ slot, distance }) => ({ rowid: this.rowids[slot] ?? 0, distance }));
  }

  private grow(): void {
    const capacity = Math.ceil(this.rowids.length * GROWTH) + 1;
    const matrix = new Float32Array(capacity * this.dimension);
    matrix.set(this.matrix);
    this.matrix = matrix;
    const rowids = new Float64Array(capacity);
    rowids.set(this.rowids);
    this.rowids = rowids;
    const orders = new Float64Array(capacity);
    orders.set(this.orders);
    this.orders = orders;
  }
}
