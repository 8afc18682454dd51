/**
 * One namespace's BM25 terms in memory (lexical-index.ts holds them and keeps them current), in typed
 * arrays: a JS array or Map per row and per term costs several times the numbers it holds, and a
 * namespace of a million memories holds some fifteen million postings.
 *
 * Each row sits in a slot: its rowid, its size D, and its distinct terms as ids into the namespace's
 * own term dictionary, end to end in one pool. Each term's posting holds the slots holding it with the
 * term's column-weighted count there. A posting's order does not matter: scores are summed per row,
 * term by term. A freed slot is reused by the next row added.
 *
 * The counts are float32: a count is a sum of whole column weights (schema.ts; the tests hold them
 * whole), so a whole number of at most a few tens of thousands (an entry's text and tags are bounded),
 * which float32 holds exactly: the scores are the bits a float64 count would give.
 */
import { BM25_K1, inverseDocumentFrequency, saturatedFrequency, type Bm25Statistics } from "../../text/bm25.js";
import type { LexicalFields } from "../lexical-document.js";
import { BM25_TAGS_WEIGHT, BM25_TEXT_WEIGHT } from "./schema.js";

/** The namespace_term column holds one term per row, which counts in a row's size D. */
const NAMESPACE_TERM_TOKENS = 1;
/** A new posting's room: most terms of a large vocabulary are held by one or two rows. */
const FIRST_POSTING_CAPACITY = 2;
const FIRST_SLOT_CAPACITY = 64;

export interface LexicalHit {
  rowid: number;
  score: number;
}

/** A typed array of `capacity` holding the first `length` values of `values`. */
function resized<T extends Int32Array | Float32Array | Float64Array>(values: T, length: number, capacity: number): T {
  const copy = new (values.constructor as new (capacity: number) => T)(capacity);
  copy.set(values.subarray(0, length));
  return copy;
}

/** The slots holding one term, each with the term's column-weighted count in that row. */
class Posting {
  slots = new Int32Array(FIRST_POSTING_CAPACITY);
  counts = new Float32Array(FIRST_POSTING_CAPACITY);
  length = 0;

  constructor(readonly term: string) {}

  add(slot: number, count: number): void {
    if (this.length === this.slots.length) this.resize(this.length * 2);
    this.slots[this.length] = slot;
    this.counts[this.length] = count;
    this.length += 1;
  }

  /** Drops the slots marked in `freed`, the others kept in order. */
  removeFreed(freed: Uint8Array): void {
    let kept = 0;
    for (let j = 0; j < this.length; j += 1) {
      const slot = this.slots[j] ?? 0;
      if (freed[slot] === 1) continue;
      this.slots[kept] = slot;
      this.counts[kept] = this.counts[j] ?? 0;
      kept += 1;
    }
    this.length = kept;
  }

  /** Gives back the room beyond its length (after a namespace is read whole, it grows no more for a while). */
  trim(): void {
    if (this.slots.length > this.length) this.resize(this.length);
  }

  private resize(capacity: number): void {
    this.slots = resized(this.slots, this.length, capacity);
    this.counts = resized(this.counts, this.length, capacity);
  }
}

export class NamespaceTerms {
  private readonly slotOf = new Map<number, number>();
  /** Slots used so far, held or freed: the per-slot arrays' length in use. */
  private slotCount = 0;
  private readonly freeSlots: number[] = [];
  private rowids = new Float64Array(FIRST_SLOT_CAPACITY);
  private lengths = new Int32Array(FIRST_SLOT_CAPACITY);
  /** Where each slot's term ids start in `pool`, and how many there are. */
  private termStarts = new Int32Array(FIRST_SLOT_CAPACITY);
  private termCounts = new Int32Array(FIRST_SLOT_CAPACITY);
  private pool = new Int32Array(FIRST_SLOT_CAPACITY * 8);
  private poolUsed = 0;
  /** Term ids in `pool` that belong to a held row; the rest is freed rows' runs, dropped by `compactPool`. */
  private poolLive = 0;
  private readonly termIds = new Map<string, number>();
  private readonly postings: (Posting | undefined)[] = [];
  private readonly freeTermIds: number[] = [];
  /** The held rows' sizes D added up. */
  private tokens = 0;

  constructor(public generation: number) {}

  get size(): number {
    return this.slotOf.size;
  }

  /** N and the token total of the rows held: the namespace's own, once all its rows are. */
  statistics(): Bm25Statistics {
    return { rows: this.size, tokens: this.tokens };
  }

  /** Holds a row from its text and tag columns (the terms fts-terms.ts writes). */
  set(rowid: number, columns: LexicalFields): void {
    const counts = new Map<string, number>();
    let tokens = NAMESPACE_TERM_TOKENS;
    // Column by column, instance by instance: bm25() adds the weights in this order.
    for (const [terms, weight] of [
      [columns.text, BM25_TEXT_WEIGHT],
      [columns.tags, BM25_TAGS_WEIGHT],
    ] as const) {
      for (const term of terms.split(" ")) {
        if (!term) continue;
        tokens += 1;
        counts.set(term, (counts.get(term) ?? 0) + weight);
      }
    }
    this.setCounts(rowid, tokens, counts);
  }

  /** Holds a row from its size D and its terms' column-weighted counts. */
  setCounts(rowid: number, tokens: number, counts: ReadonlyMap<string, number>): void {
    if (this.slotOf.has(rowid)) this.delete([rowid]);
    const slot = this.freeSlots.pop() ?? this.newSlot();
    this.slotOf.set(rowid, slot);
    this.rowids[slot] = rowid;
    this.lengths[slot] = tokens;
    this.tokens += tokens;
    this.reservePool(counts.size);
    this.termStarts[slot] = this.poolUsed;
    this.termCounts[slot] = counts.size;
    for (const [term, count] of counts) {
      const id = this.termId(term);
      this.pool[this.poolUsed++] = id;
      this.postings[id]?.add(slot, count);
    }
    this.poolLive += counts.size;
  }

  /** Drops the rows of these rowids that are held, each term's posting rewritten once for all of them. */
  delete(rowids: Iterable<number>): void {
    let freed: Uint8Array | undefined;
    const touched = new Set<number>();
    for (const rowid of rowids) {
      const slot = this.slotOf.get(rowid);
      if (slot === undefined) continue;
      freed ??= new Uint8Array(this.slotCount);
      freed[slot] = 1;
      const start = this.termStarts[slot] ?? 0;
      const count = this.termCounts[slot] ?? 0;
      for (let at = start; at < start + count; at += 1) touched.add(this.pool[at] ?? 0);
      this.poolLive -= count;
      this.termCounts[slot] = 0;
      this.tokens -= this.lengths[slot] ?? 0;
      this.slotOf.delete(rowid);
      this.freeSlots.push(slot);
    }
    if (!freed) return;
    for (const id of touched) this.removeFromPosting(id, freed);
  }

  /** Gives back the room the arrays grew into beyond what they hold. */
  trim(): void {
    for (const posting of this.postings) posting?.trim();
    this.compactPool(0);
  }

  /**
   * The k best accepted rows holding any of the terms, scored with the namespace's statistics (n is a
   * term's postings: every row of the namespace holding it is here), best first, ties by rowid. Term by
   * term, in the query's order, so each row's score adds its terms in bm25()'s order.
   */
  ranked(terms: readonly string[], statistics: Bm25Statistics, accept: (rowid: number) => boolean, k: number, b: number): LexicalHit[] {
    if (statistics.rows === 0) return [];
    const averageLength = statistics.tokens / statistics.rows;
    const scores = new Float64Array(this.slotCount);
    // Per slot: 0 not seen yet, 1 accepted, 2 rejected.
    const seen = new Uint8Array(this.slotCount);
    const accepted: number[] = [];
    for (const term of terms) {
      const id = this.termIds.get(term);
      const posting = id === undefined ? undefined : this.postings[id];
      if (!posting) continue;
      const { slots, counts, length } = posting;
      const idf = inverseDocumentFrequency(statistics.rows, length);
      for (let j = 0; j < length; j += 1) {
        const slot = slots[j] ?? 0;
        if (seen[slot] === 0) {
          const passes = accept(this.rowids[slot] ?? 0);
          seen[slot] = passes ? 1 : 2;
          if (passes) accepted.push(slot);
        }
        if (seen[slot] === 2) continue;
        scores[slot] = (scores[slot] ?? 0) + idf * saturatedFrequency(counts[j] ?? 0, this.lengths[slot] ?? 0, averageLength, BM25_K1, b);
      }
    }
    const best = bestSlots(accepted, k, (a, b) => (scores[b] ?? 0) - (scores[a] ?? 0) || (this.rowids[a] ?? 0) - (this.rowids[b] ?? 0));
    return best.map((slot) => ({ rowid: this.rowids[slot] ?? 0, score: scores[slot] ?? 0 }));
  }

  /** The term's id in the dictionary, added with an empty posting when new. */
  private termId(term: string): number {
    const known = this.termIds.get(term);
    if (known !== undefined) return known;
    const id = this.freeTermIds.pop() ?? this.postings.length;
    this.termIds.set(term, id);
    this.postings[id] = new Posting(term);
    return id;
  }

  private removeFromPosting(id: number, freed: Uint8Array): void {
    const posting = this.postings[id];
    if (!posting) return;
    posting.removeFreed(freed);
    if (posting.length > 0) return;
    this.termIds.delete(posting.term);
    this.postings[id] = undefined;
    this.freeTermIds.push(id);
  }

  /** A slot never used before, the per-slot arrays grown (by half) when full. */
  private newSlot(): number {
    const slot = this.slotCount;
    if (slot === this.rowids.length) {
      const capacity = Math.ceil(slot * 1.5);
      this.rowids = resized(this.rowids, slot, capacity);
      this.lengths = resized(this.lengths, slot, capacity);
      this.termStarts = resized(this.termStarts, slot, capacity);
      this.termCounts = resized(this.termCounts, slot, capacity);
    }
    this.slotCount += 1;
    return slot;
  }

  /** Room for `count` more term ids at the end of the pool: freed runs dropped when they are half of it, else the pool grown by half. */
  private reservePool(count: number): void {
    if (this.poolUsed + count <= this.pool.length) return;
    if (this.poolUsed - this.poolLive >= this.poolLive) this.compactPool(count);
    else this.pool = resized(this.pool, this.poolUsed, Math.ceil((this.poolUsed + count) * 1.5));
  }

  /** The held rows' term ids copied end to end into a pool with `room` to spare; freed rows' runs are dropped. */
  private compactPool(room: number): void {
    const pool = new Int32Array(this.poolLive + room);
    let used = 0;
    for (const slot of this.slotOf.values()) {
      const start = this.termStarts[slot] ?? 0;
      const count = this.termCounts[slot] ?? 0;
      pool.set(this.pool.subarray(start, start + count), used);
      this.termStarts[slot] = used;
      used += count;
    }
    this.pool = pool;
    this.poolUsed = used;
  }
}

/**
 * The k first of `slots` in the order `compare` gives (negative: a before b), in that order. A question's
 * words are held by thousands of rows of a large namespace and a search keeps a few dozen: a heap of the
 * k best so far (the worst of them on top) costs n log k, a sort of all of them n log n.
 */
function bestSlots(slots: readonly number[], k: number, compare: (a: number, b: number) => number): number[] {
  if (slots.length <= k) return [...slots].sort(compare);
  const heap: number[] = [];
  // A parent comes after its children in `compare`'s order: the root is the worst slot kept.
  const worse = (i: number, j: number) => compare(heap[i] ?? 0, heap[j] ?? 0) > 0;
  const swap = (i: number, j: number) => {
    const held = heap[i] ?? 0;
    heap[i] = heap[j] ?? 0;
    heap[j] = held;
  };
  for (const slot of slots) {
    if (heap.length < k) {
      heap.push(slot);
      for (let at = heap.length - 1; at > 0 && worse(at, (at - 1) >> 1); at = (at - 1) >> 1) swap(at, (at - 1) >> 1);
    } else if (k > 0 && compare(slot, heap[0] ?? 0) < 0) {
      heap[0] = slot;
      siftDown(k, worse, swap);
    }
  }
  return heap.sort(compare);
}

/** Moves the root of a heap of `size` down below every child that is worse than it. */
function siftDown(size: number, worse: (i: number, j: number) => boolean, swap: (i: number, j: number) => void): void {
  for (let at = 0; ; ) {
    const left = 2 * at + 1;
    let worst = at;
    if (left < size && worse(left, worst)) worst = left;
    if (left + 1 < size && worse(left + 1, worst)) worst = left + 1;
    if (worst === at) return;
    swap(at, worst);
    at = worst;
  }
}
