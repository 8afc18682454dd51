/**
 * One namespace's BM25 terms in memory (lexical-index.ts holds them and keeps them current), in typed
 * arrays: a JS array or Map per row and per term costs several times the numbers it holds, and a
 * namespace of a million memories holds some fifteen million postings.
 *
 * Each row sits in a slot: its rowid, its size D, and its distinct terms as ids into the namespace's
 * own term dictionary with its count there, end to end in one pool. Each term's posting holds the
 * slots holding it with the term's column-weighted count there and the row's size D. A posting's order
 * does not matter: a ranking's scores are added up again in the query's order (see `ranked`). A freed
 * slot is reused by the next row added. Measured (bench/lexical-memory.ts, the speed benchmark's short
 * memories, about a dozen distinct terms each): 253 bytes per entry at 100k, where arrays and Maps per
 * row and per term held 597; about 20 bytes per distinct term of a row, plus some 40 per row.
 *
 * The counts are float32: a count is a sum of whole column weights (schema.ts; the tests hold them
 * whole), so a whole number of at most a few tens of thousands (an entry's text and tags are bounded),
 * which float32 holds exactly: the scores are the bits a float64 count would give.
 */
import { z } from "zod";
import { StoreError } from "../../core/errors.js";
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

/**
 * The slots holding one term, each with the term's column-weighted count in that row and the row's size
 * D: a walk reads D beside the count rather than from the slot's own array, one random read fewer per
 * posting (at a million rows the walk waits on memory, not on arithmetic).
 */
class Posting {
  slots: Int32Array;
  counts: Float32Array;
  rowLengths: Int32Array;
  length = 0;
  /** The largest count and the smallest row size D ever held: with them a term's share of any row's score is bounded (kept through deletes: still a bound). */
  maxCount = 0;
  minRowLength = Number.POSITIVE_INFINITY;

  constructor(
    readonly term: string,
    capacity = FIRST_POSTING_CAPACITY,
  ) {
    this.slots = new Int32Array(capacity);
    this.counts = new Float32Array(capacity);
    this.rowLengths = new Int32Array(capacity);
  }

  add(slot: number, count: number, rowLength: number): void {
    if (this.length === this.slots.length) this.resize(Math.max(FIRST_POSTING_CAPACITY, this.length * 2));
    this.slots[this.length] = slot;
    this.counts[this.length] = count;
    this.rowLengths[this.length] = rowLength;
    this.length += 1;
    this.maxCount = Math.max(this.maxCount, count);
    this.minRowLength = Math.min(this.minRowLength, rowLength);
  }

  /** Drops the slots marked in `freed`, the others kept in order. */
  removeFreed(freed: Uint8Array): void {
    let kept = 0;
    for (let j = 0; j < this.length; j += 1) {
      const slot = this.slots[j] ?? 0;
      if (freed[slot] === 1) continue;
      this.slots[kept] = slot;
      this.counts[kept] = this.counts[j] ?? 0;
      this.rowLengths[kept] = this.rowLengths[j] ?? 0;
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
    this.rowLengths = resized(this.rowLengths, this.length, capacity);
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
  /** Each term's column-weighted count in the row, beside its id in `pool`. */
  private poolCounts = new Float32Array(FIRST_SLOT_CAPACITY * 8);
  private poolUsed = 0;
  /** Term ids in `pool` that belong to a held row; the rest is freed rows' runs, dropped by `compactPool`. */
  private poolLive = 0;
  private readonly termIds = new Map<string, number>();
  private readonly postings: (Posting | undefined)[] = [];
  private readonly freeTermIds: number[] = [];
  /** The held rows' sizes D added up. */
  private tokens = 0;
  /** A ranking's scratch (see `walk`): by slot, whether the row was seen and where its sum is; the sums, by place. */
  private placeOf = new Int32Array(0);
  private sums = new Float64Array(0);

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
      this.pool[this.poolUsed] = id;
      this.poolCounts[this.poolUsed] = count;
      this.poolUsed += 1;
      this.postings[id]?.add(slot, count, tokens);
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

  /**
   * The rows held, as bytes `fromSnapshot` reads back: a JSON header (the term dictionary, the row and
   * pair counts), then each row's rowid, size D and number of terms, then every row's term ids and
   * counts end to end. Postings are not written: they follow from the rows.
   */
  toSnapshot(): Buffer {
    const rows = this.slotOf.size;
    const rowids = new Float64Array(rows);
    const lengths = new Int32Array(rows);
    const termCounts = new Int32Array(rows);
    const ids = new Int32Array(this.poolLive);
    const counts = new Float32Array(this.poolLive);
    let row = 0;
    let pairs = 0;
    for (const slot of this.slotOf.values()) {
      const start = this.termStarts[slot] ?? 0;
      const count = this.termCounts[slot] ?? 0;
      rowids[row] = this.rowids[slot] ?? 0;
      lengths[row] = this.lengths[slot] ?? 0;
      termCounts[row] = count;
      ids.set(this.pool.subarray(start, start + count), pairs);
      counts.set(this.poolCounts.subarray(start, start + count), pairs);
      pairs += count;
      row += 1;
    }
    const header: SnapshotHeader = { rows, pairs, terms: this.postings.map((posting) => posting?.term ?? null) };
    return joinSections([Buffer.from(JSON.stringify(header)), rowids, lengths, termCounts, ids, counts]);
  }

  /**
   * The terms `toSnapshot` wrote, held as matching `generation`: its rows in slots in their order, each
   * posting sized once and filled in that order, as adding the rows one by one would leave them (at a
   * million rows, 0.8 s where adding them took 2.5). A StoreError names what does not add up in damaged bytes.
   */
  static fromSnapshot(bytes: Buffer, generation: number): NamespaceTerms {
    const [headerBytes, rowidBytes, lengthBytes, termCountBytes, idBytes, countBytes] = splitSections(bytes, 6);
    const header = SnapshotHeaderSchema.parse(JSON.parse(headerBytes?.toString("utf8") ?? ""));
    const terms = new NamespaceTerms(generation);
    terms.rowids = typedCopy(Float64Array, rowidBytes, header.rows);
    terms.lengths = typedCopy(Int32Array, lengthBytes, header.rows);
    terms.termCounts = typedCopy(Int32Array, termCountBytes, header.rows);
    terms.pool = typedCopy(Int32Array, idBytes, header.pairs);
    terms.poolCounts = typedCopy(Float32Array, countBytes, header.pairs);
    terms.restoreRows(header.rows, header.pairs);
    terms.restorePostings(header.terms);
    return terms;
  }

  /** Slots 0..rows-1 for the rows just copied in, their runs end to end in the pool. */
  private restoreRows(rows: number, pairs: number): void {
    this.termStarts = new Int32Array(rows);
    let start = 0;
    for (let slot = 0; slot < rows; slot += 1) {
      this.termStarts[slot] = start;
      start += this.termCounts[slot] ?? 0;
      this.tokens += this.lengths[slot] ?? 0;
      this.slotOf.set(this.rowids[slot] ?? 0, slot);
    }
    if (start !== pairs) throw new StoreError("lexicalIndex", `saved terms: the rows name ${start} terms, ${pairs} were written`);
    if (this.slotOf.size !== rows) throw new StoreError("lexicalIndex", `saved terms: ${rows - this.slotOf.size} rowids are written twice`);
    this.slotCount = rows;
    this.poolUsed = pairs;
    this.poolLive = pairs;
  }

  /** The dictionary by id and each term's posting, sized once from a count of its rows, filled in slot order. */
  private restorePostings(dictionary: ReadonlyArray<string | null>): void {
    const held = new Int32Array(dictionary.length);
    for (let at = 0; at < this.poolUsed; at += 1) {
      const id = this.pool[at] ?? -1;
      if (dictionary[id] === undefined || dictionary[id] === null) throw new StoreError("lexicalIndex", `saved terms: term id ${id}, which the dictionary does not hold`);
      held[id] = (held[id] ?? 0) + 1;
    }
    dictionary.forEach((term, id) => {
      if (term === null) {
        this.freeTermIds.push(id);
        return;
      }
      this.termIds.set(term, id);
      this.postings[id] = new Posting(term, held[id] ?? 0);
    });
    for (let slot = 0; slot < this.slotCount; slot += 1) {
      const start = this.termStarts[slot] ?? 0;
      const length = this.lengths[slot] ?? 0;
      for (let at = start; at < start + (this.termCounts[slot] ?? 0); at += 1) this.postings[this.pool[at] ?? 0]?.add(slot, this.poolCounts[at] ?? 0, length);
    }
  }

  /** Gives back the room the arrays grew into beyond what they hold. */
  trim(): void {
    for (const posting of this.postings) posting?.trim();
    this.compactPool(0);
  }

  /**
   * The k best accepted rows holding any of the terms, scored with the namespace's statistics (n is a
   * term's postings: every row of the namespace holding it is here), best first, ties by rowid.
   *
   * Terms are walked from the one that can add most to a row's score (its bound: idf x the saturated
   * frequency of its largest count in its shortest row) down. Once at least k rows are seen and the
   * bounds of the terms left add up to less than the k-th best score so far, no row not seen yet can
   * reach the k best: the terms left only add to the rows seen, whose `accept` is not asked again nor
   * kept among the candidates. The rows that can still be among the k best are then scored afresh from
   * their own terms, term by term in the query's order, so each score adds its terms in bm25()'s order:
   * the bits a walk of every row in that order gives.
   */
  ranked(terms: readonly string[], statistics: Bm25Statistics, accept: (rowid: number) => boolean, k: number, b: number): LexicalHit[] {
    if (statistics.rows === 0 || k <= 0) return [];
    const averageLength = statistics.tokens / statistics.rows;
    const query = this.queryTerms(terms, statistics.rows, averageLength, b);
    const order = [...query].sort((x, y) => y.bound - x.bound);
    // boundsFrom[i]: the most the terms from order[i] on can add to a row's score.
    const boundsFrom = new Float64Array(order.length + 1);
    for (let i = order.length - 1; i >= 0; i -= 1) boundsFrom[i] = (boundsFrom[i + 1] ?? 0) + (order[i]?.bound ?? 0);
    const walk = this.walk(averageLength, b, accept);
    try {
      let closed = false;
      for (const [i, term] of order.entries()) {
        const left = boundsFrom[i] ?? 0;
        // No score seen yet exceeds the bounds walked: while those of the terms left reach them, the k-th best is not looked for.
        const closable = walk.accepted.length >= k && surely(left, (boundsFrom[0] ?? 0) - left);
        closed ||= closable && surely(left, kthLargest(walk.sums, walk.accepted.length, k));
        walk.add(term, !closed);
      }
      const { accepted, sums } = walk;
      const threshold = accepted.length > k ? kthLargest(sums, accepted.length, k) : Number.NEGATIVE_INFINITY;
      const contenders: number[] = [];
      for (let at = 0; at < accepted.length; at += 1) if (!surely(sums[at] ?? 0, threshold)) contenders.push(at);
      // Contenders' sums (in the walk's order) replaced by their scores (in the query's).
      for (const at of contenders) sums[at] = this.score(accepted[at] ?? 0, query, averageLength, b);
      const rowidAt = (at: number) => this.rowids[accepted[at] ?? 0] ?? 0;
      const best = bestSlots(contenders, k, (x, y) => (sums[y] ?? 0) - (sums[x] ?? 0) || rowidAt(x) - rowidAt(y));
      return best.map((at) => ({ rowid: rowidAt(at), score: sums[at] ?? 0 }));
    } finally {
      walk.clear();
    }
  }

  /**
   * A walk of postings into the namespace's scratch arrays (one per namespace, reused: a search at a
   * million rows would otherwise allocate and fault in 12 MB), cleared after. Each accepted row gets the
   * next place in `accepted` and its sum that place in `sums`: postings list their rows in about the
   * order they were added, so the sums are read and written nearly in order, and the k-th best is looked
   * for over the accepted rows alone, end to end, not over sums scattered across every slot.
   */
  private walk(averageLength: number, b: number, accept: (rowid: number) => boolean) {
    if (this.placeOf.length < this.slotCount) {
      this.placeOf = new Int32Array(this.rowids.length);
      this.sums = new Float64Array(this.rowids.length);
    }
    const { placeOf, sums, rowids } = this;
    const accepted: number[] = [];
    const rejected: number[] = [];
    return {
      accepted,
      sums,
      /** Adds the term's share to the rows holding it: every such row when `open` (each new one asked `accept`), else only those seen. */
      add({ posting, idf }: QueryTerm, open: boolean): void {
        const { slots, counts, rowLengths, length } = posting;
        for (let j = 0; j < length; j += 1) {
          const slot = slots[j] ?? 0;
          // Per slot: 0 not seen yet, NOT_ACCEPTED, or the row's place in `accepted` plus one.
          let place = placeOf[slot] ?? 0;
          if (place === NOT_ACCEPTED) continue;
          if (place === 0) {
            if (!open) continue;
            if (!accept(rowids[slot] ?? 0)) {
              placeOf[slot] = NOT_ACCEPTED;
              rejected.push(slot);
              continue;
            }
            place = accepted.push(slot);
            placeOf[slot] = place;
          }
          sums[place - 1] = (sums[place - 1] ?? 0) + idf * saturatedFrequency(counts[j] ?? 0, rowLengths[j] ?? 0, averageLength, BM25_K1, b);
        }
      },
      clear(): void {
        for (const slot of accepted) placeOf[slot] = 0;
        for (const slot of rejected) placeOf[slot] = 0;
        sums.fill(0, 0, accepted.length);
      },
    };
  }

  /** The query's terms this namespace holds, in the query's order, each with its idf and bound. */
  private queryTerms(terms: readonly string[], rows: number, averageLength: number, b: number): QueryTerm[] {
    const query: QueryTerm[] = [];
    for (const term of terms) {
      const id = this.termIds.get(term);
      const posting = id === undefined ? undefined : this.postings[id];
      if (id === undefined || !posting) continue;
      const idf = inverseDocumentFrequency(rows, posting.length);
      const bound = idf * saturatedFrequency(posting.maxCount, posting.minRowLength, averageLength, BM25_K1, b);
      query.push({ id, posting, idf, bound });
    }
    return query;
  }

  /** A row's score from its own terms: the query's terms it holds, added in the query's order. */
  private score(slot: number, query: readonly QueryTerm[], averageLength: number, b: number): number {
    const start = this.termStarts[slot] ?? 0;
    const end = start + (this.termCounts[slot] ?? 0);
    const length = this.lengths[slot] ?? 0;
    let score = 0;
    for (const { id, idf } of query) {
      for (let at = start; at < end; at += 1) {
        if (this.pool[at] !== id) continue;
        score += idf * saturatedFrequency(this.poolCounts[at] ?? 0, length, averageLength, BM25_K1, b);
        break;
      }
    }
    return score;
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
      const capacity = Math.max(FIRST_SLOT_CAPACITY, Math.ceil(slot * 1.5));
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
    else {
      const capacity = Math.ceil((this.poolUsed + count) * 1.5);
      this.pool = resized(this.pool, this.poolUsed, capacity);
      this.poolCounts = resized(this.poolCounts, this.poolUsed, capacity);
    }
  }

  /** The held rows' term ids copied end to end into a pool with `room` to spare; freed rows' runs are dropped. */
  private compactPool(room: number): void {
    const pool = new Int32Array(this.poolLive + room);
    const poolCounts = new Float32Array(this.poolLive + room);
    let used = 0;
    for (const slot of this.slotOf.values()) {
      const start = this.termStarts[slot] ?? 0;
      const count = this.termCounts[slot] ?? 0;
      pool.set(this.pool.subarray(start, start + count), used);
      poolCounts.set(this.poolCounts.subarray(start, start + count), used);
      this.termStarts[slot] = used;
      used += count;
    }
    this.pool = pool;
    this.poolCounts = poolCounts;
    this.poolUsed = used;
  }
}

/** A walk's mark for a row `accept` refused (a place is never negative). */
const NOT_ACCEPTED = -1;

interface QueryTerm {
  id: number;
  posting: Posting;
  idf: number;
  /** The most this term adds to any row's score, up to rounding (which SLACK covers). */
  bound: number;
}

/**
 * The relative room left for rounding when scores summed in one order are compared with bounds summed in
 * another: their sums of a few terms differ by a few units in the 16th digit, this by a billionth.
 */
const SLACK = 1e-9;

/** Whether `most` (a bound of a row's score) is below `threshold` (the k-th best score so far) whatever the rounding. */
function surely(most: number, threshold: number): boolean {
  return most * (1 + SLACK) < threshold * (1 - SLACK);
}

/** The k-th largest of the first `count` of `scores` (at least k): a heap of the k largest, the least on top. */
function kthLargest(scores: Float64Array, count: number, k: number): number {
  const heap = new Float64Array(k);
  let size = 0;
  for (let at = 0; at < count; at += 1) {
    const value = scores[at] ?? 0;
    if (size < k) {
      let at = size;
      size += 1;
      for (; at > 0 && (heap[(at - 1) >> 1] ?? 0) > value; at = (at - 1) >> 1) heap[at] = heap[(at - 1) >> 1] ?? 0;
      heap[at] = value;
    } else if (value > (heap[0] ?? 0)) {
      let at = 0;
      for (;;) {
        const left = 2 * at + 1;
        if (left >= k) break;
        const child = left + 1 < k && (heap[left + 1] ?? 0) < (heap[left] ?? 0) ? left + 1 : left;
        if ((heap[child] ?? 0) >= value) break;
        heap[at] = heap[child] ?? 0;
        at = child;
      }
      heap[at] = value;
    }
  }
  return heap[0] ?? 0;
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

const SnapshotHeaderSchema = z.strictObject({
  rows: z.number().int().min(0).describe("Rows held"),
  pairs: z.number().int().min(0).describe("Term ids (with their counts) of all rows together"),
  terms: z.array(z.string().nullable()).describe("The term dictionary by id; null where an id is free"),
});
type SnapshotHeader = z.output<typeof SnapshotHeaderSchema>;

/** Sections end to end, each after its byte length (uint32, little-endian) and padded to 8 bytes, so any typed array can be read from it. */
function joinSections(sections: ReadonlyArray<Buffer | Int32Array | Float32Array | Float64Array>): Buffer {
  const parts: Buffer[] = [];
  for (const section of sections) {
    const bytes = Buffer.isBuffer(section) ? section : Buffer.from(section.buffer, section.byteOffset, section.byteLength);
    const length = Buffer.alloc(8);
    length.writeUInt32LE(bytes.byteLength, 0);
    parts.push(length, bytes, Buffer.alloc((8 - (bytes.byteLength % 8)) % 8));
  }
  return Buffer.concat(parts);
}

/** The `count` sections joinSections wrote, as views of `bytes`. */
function splitSections(bytes: Buffer, count: number): Buffer[] {
  const sections: Buffer[] = [];
  let at = 0;
  for (let i = 0; i < count; i += 1) {
    if (at + 8 > bytes.byteLength) throw new StoreError("lexicalIndex", `saved terms: section ${i} is missing`);
    const length = bytes.readUInt32LE(at);
    if (at + 8 + length > bytes.byteLength) throw new StoreError("lexicalIndex", `saved terms: section ${i} is cut short`);
    sections.push(bytes.subarray(at + 8, at + 8 + length));
    at += 8 + length + ((8 - (length % 8)) % 8);
  }
  return sections;
}

/** A typed array of `length` values copied out of `bytes`, which must hold exactly that many. */
function typedCopy<T extends Int32Array | Float32Array | Float64Array>(
  kind: { new (length: number): T; BYTES_PER_ELEMENT: number },
  bytes: Buffer | undefined,
  length: number,
): T {
  if (!bytes || bytes.byteLength !== length * kind.BYTES_PER_ELEMENT) throw new StoreError("lexicalIndex", `saved terms: a section does not hold ${length} values`);
  const copy = new kind(length);
  new Uint8Array(copy.buffer).set(bytes);
  return copy;
}
