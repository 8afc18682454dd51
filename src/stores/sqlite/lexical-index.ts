/**
 * BM25 over a namespace's terms held in memory, scoring exactly as the store's FTS5 query does.
 *
 * Why. FTS5 answers `namespace AND (any query term)` by walking every matching row's position lists and
 * size record, scoring each and sorting them all before the LIMIT: about 7 ms per question at 10k
 * entries here, most of it for rows that are never returned (a question's words match ~13 % of them).
 * The same ranking from per-namespace term counts in memory costs a small fraction of that.
 *
 * Exactly the same scores. bm25() (fts5_aux.c) scores a row as the sum, over the MATCH expression's
 * phrases in order, of idf x f x (k1 + 1) / (f + k1 x (1 - b + b x D / avgdl)), with k1 = 1.2, b = 0.75;
 * f is the phrase's instances in the row weighted by column (namespace 0, text 1, tags 2), D the row's
 * tokens in all columns, avgdl the table's tokens per row, and idf = ln((N - n + 0.5) / (n + 0.5)),
 * floored at 1e-6, with N the table's rows and n the rows the phrase matches. N, avgdl and n are the
 * whole table's (every namespace's), so they are read from FTS5 itself for every search: N and the
 * token totals from its averages record, n by counting each term's rows, and the logarithm computed by
 * SQLite's own ln(), the same C library function bm25() calls. The namespace phrase weighs nothing and
 * adds 0. The rest is the same double arithmetic in the same order, so scores are bit-identical and
 * ties fall to rowid as in `ORDER BY score DESC, rowid`. test/stores/lexical-index.test.ts holds that
 * against FTS5's own answers, with rewrites, deletes, other namespaces and other connections' writes.
 *
 * Consistency. Each namespace's terms record the generation they match (entry-changes.ts); before a
 * search they are brought up to date from the change log, or re-read when it no longer reaches back.
 * A namespace's terms are read in the background from its first search on (its entries' text and
 * tags, tokenized as the write path tokenizes them: fts-terms.ts), FTS5 answering until they are
 * ready, within a budget of rows for all namespaces together, least recently searched dropped first;
 * a namespace beyond it is left to FTS5.
 */
import type Database from "better-sqlite3";
import { z } from "zod";
import type { LexicalFields } from "../lexical-document.js";
import { describeError, log } from "../../core/log.js";
import { nextTurn } from "../../core/next-turn.js";
import type { EntryChanges } from "./entry-changes.js";
import { termMatchExpression } from "./fts-terms.js";
import { BM25_TAGS_WEIGHT, BM25_TEXT_WEIGHT, type SqliteDatabase } from "./schema.js";

/** bm25()'s constants (fts5_aux.c). */
const K1 = 1.2;
const B = 0.75;
const IDF_FLOOR = 1e-6;
/** Rows tokenized per slice of a build: ~15 ms of work here, then the event loop runs. */
const BUILD_SLICE_ROWS = 200;
/** Distinct terms whose idf is kept between two changes of the file. */
const IDF_CACHE_TERMS = 10_000;
/** The namespace_term column holds one term per row, which counts in a row's size D. */
const NAMESPACE_TERM_TOKENS = 1;

/**
 * Entries whose terms all namespaces may hold in memory together. Measured with the benchmark's short
 * memories: peak RSS at 100k entries rose by 160-250 MB with the terms and the parsed-entry cache, so
 * the default is about 1 GB at most for such texts, the vectors' own default budget.
 */
export const DEFAULT_LEXICAL_CACHE_ENTRIES = 500_000;

/** The lexical search setting of a sqlite store, described, without its default (the store's configuration reuses it as optional). */
export const LexicalIndexFields = {
  lexicalCacheEntries: z
    .number()
    .int()
    .min(0)
    .describe(
      `Entries (all namespaces together) whose terms are kept in memory for BM25, scored exactly as FTS5 scores them but several times ` +
        `faster; a namespace beyond it is searched by FTS5; 0 leaves every search to FTS5 (default ${DEFAULT_LEXICAL_CACHE_ENTRIES})`,
    ),
};

/** Namespaces' terms read from the store, and brought up to date from the change log. */
export interface LexicalIndexCounters {
  copied: number;
  caughtUp: number;
}

export interface LexicalHit {
  rowid: number;
  score: number;
}

/** A row's text and tag columns as FTS5 holds them (fts-terms.ts `ftsColumns`), from its entry's JSON; undefined when that cannot be read. */
export type RowColumns = (entryJson: string) => LexicalFields | undefined;

interface BodyRow {
  rowid: number;
  id: string;
  entry_json: string;
}

/**
 * One namespace's rows, each in a slot: its rowid, its size D, its distinct terms; and per term, the
 * slots holding it with their weighted counts (a posting's order does not matter: scores are summed
 * per row, term by term). A freed slot is reused by the next row added.
 */
class NamespaceTerms {
  private readonly slotOf = new Map<number, number>();
  private readonly rowids: number[] = [];
  private readonly lengths: number[] = [];
  private readonly termsOf: (readonly string[] | undefined)[] = [];
  private readonly freeSlots: number[] = [];
  private readonly postings = new Map<string, { slots: number[]; frequencies: number[] }>();

  constructor(public generation: number) {}

  get size(): number {
    return this.slotOf.size;
  }

  set(rowid: number, columns: LexicalFields): void {
    this.delete(rowid);
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
    const slot = this.freeSlots.pop() ?? this.rowids.length;
    this.slotOf.set(rowid, slot);
    this.rowids[slot] = rowid;
    this.lengths[slot] = tokens;
    this.termsOf[slot] = [...counts.keys()];
    for (const [term, count] of counts) {
      let posting = this.postings.get(term);
      if (!posting) this.postings.set(term, (posting = { slots: [], frequencies: [] }));
      posting.slots.push(slot);
      posting.frequencies.push(count);
    }
  }

  delete(rowid: number): void {
    const slot = this.slotOf.get(rowid);
    if (slot === undefined) return;
    for (const term of this.termsOf[slot] ?? []) {
      const posting = this.postings.get(term);
      if (!posting) continue;
      const at = posting.slots.indexOf(slot);
      const last = posting.slots.length - 1;
      // Swapped with the last posting, then the last removed.
      posting.slots[at] = posting.slots[last] ?? slot;
      posting.frequencies[at] = posting.frequencies[last] ?? 0;
      posting.slots.pop();
      posting.frequencies.pop();
      if (posting.slots.length === 0) this.postings.delete(term);
    }
    this.slotOf.delete(rowid);
    this.termsOf[slot] = undefined;
    this.freeSlots.push(slot);
  }

  /**
   * Every accepted row holding any of the terms, scored as bm25() scores it, best first, ties by rowid.
   * Term by term, in the expression's order, so each row's score adds its terms in bm25()'s order.
   */
  ranked(terms: readonly string[], idf: readonly number[], averageLength: number, accept: (rowid: number) => boolean): LexicalHit[] {
    const scores = new Float64Array(this.rowids.length);
    // Per slot: 0 not seen yet, 1 accepted, 2 rejected.
    const seen = new Uint8Array(this.rowids.length);
    const accepted: number[] = [];
    terms.forEach((term, i) => {
      const posting = this.postings.get(term);
      if (!posting) return;
      const weight = idf[i] ?? 0;
      const { slots, frequencies } = posting;
      for (let j = 0; j < slots.length; j += 1) {
        const slot = slots[j] ?? 0;
        if (seen[slot] === 0) {
          const passes = accept(this.rowids[slot] ?? 0);
          seen[slot] = passes ? 1 : 2;
          if (passes) accepted.push(slot);
        }
        if (seen[slot] === 2) continue;
        const frequency = frequencies[j] ?? 0;
        const length = this.lengths[slot] ?? 0;
        scores[slot] = (scores[slot] ?? 0) + weight * ((frequency * (K1 + 1.0)) / (frequency + K1 * (1 - B + (B * length) / averageLength)));
      }
    });
    const hits = accepted.map((slot) => ({ rowid: this.rowids[slot] ?? 0, score: scores[slot] ?? 0 }));
    return hits.sort((a, b) => b.score - a.score || a.rowid - b.rowid);
  }
}

export class LexicalIndex {
  private readonly namespaces = new Map<string, NamespaceTerms>();
  private readonly builds = new Map<string, Promise<boolean>>();
  /**
   * Namespaces left to FTS5 (beyond the budget, or holding an entry that cannot be read), with the
   * generation they were found so at: not read again until it moves.
   */
  private readonly leftToFts5 = new Map<string, number>();
  private readonly statements: ReturnType<typeof prepare>;
  private closed = false;
  readonly counters: LexicalIndexCounters = { copied: 0, caughtUp: 0 };
  /** Terms' idf at one version of the file (see inverseFrequency). */
  private readonly idfByTerm = new Map<string, number>();
  private idfVersion = "";

  constructor(
    db: SqliteDatabase,
    /** The store's change log, which says when held terms are behind the file. */
    private readonly changes: EntryChanges,
    private readonly columnsOf: RowColumns,
    /** At most this many entries held, all namespaces together (least recently searched dropped first). */
    private readonly maxRows: number,
  ) {
    this.statements = prepare(db);
  }

  /**
   * The namespace's rows holding any of the query's terms (in MATCH order, distinct) that `accept`
   * passes, scored and ordered as the store's FTS5 query orders them; undefined when FTS5 must answer
   * (the namespace's terms are still being read, are beyond the budget, or one of its entries cannot
   * be read). Call inside a read transaction, so the terms and the table's statistics come from one
   * snapshot. The first search of a namespace starts reading its terms (see `build`).
   */
  ranked(namespace: string, terms: readonly string[], accept: (rowid: number) => boolean): LexicalHit[] | undefined {
    const copy = this.current(namespace);
    if (!copy) return undefined;
    const statistics = this.statistics();
    if (statistics.rows === 0) return [];
    const idf = terms.map((term) => this.inverseFrequency(term, statistics.rows));
    return copy.ranked(terms, idf, statistics.tokens / statistics.rows, accept);
  }

  /**
   * Reads the namespace's terms unless they are held (true when they are, after): in slices of rows
   * between which the event loop runs, since tokenizing costs ~70 µs per entry (seconds at 100k).
   * Searches meanwhile go to FTS5, so a process that asks one question never waits for it. The rows
   * are read after the namespace's generation, and anything logged since is caught up at the next search.
   */
  build(namespace: string): Promise<boolean> {
    if (this.namespaces.has(namespace)) return Promise.resolve(true);
    let build = this.builds.get(namespace);
    if (!build) {
      build = this.read(namespace).finally(() => this.builds.delete(namespace));
      this.builds.set(namespace, build);
    }
    return build;
  }

  /** Forgets a namespace's terms (every namespace's, when omitted): they are read again when next searched. */
  forget(namespace?: string): void {
    if (namespace === undefined) this.namespaces.clear();
    else this.namespaces.delete(namespace);
  }

  /** Stops builds under way and forgets everything; the store closes the database after. */
  close(): void {
    this.closed = true;
    this.namespaces.clear();
  }

  /** The namespace's terms, brought up to date; undefined (and a build started) when they are not held. */
  private current(namespace: string): NamespaceTerms | undefined {
    const copy = this.namespaces.get(namespace);
    const generation = this.changes.generation(namespace);
    if (!copy || (copy.generation !== generation && !this.catchUp(namespace, copy, generation))) {
      this.namespaces.delete(namespace);
      if (this.leftToFts5.get(namespace) !== generation) void this.build(namespace);
      return undefined;
    }
    // Most recently searched last: eviction walks the Map from the front.
    this.namespaces.delete(namespace);
    this.namespaces.set(namespace, copy);
    return copy;
  }

  private async read(namespace: string): Promise<boolean> {
    try {
      const generation = this.changes.generation(namespace);
      const leaveToFts5 = () => {
        this.leftToFts5.set(namespace, generation);
        return false;
      };
      if ((this.statements.count.get(namespace) ?? 0) > this.maxRows) return leaveToFts5();
      this.leftToFts5.delete(namespace);
      const copy = new NamespaceTerms(generation);
      for (let afterId = ""; ; ) {
        await nextTurn();
        if (this.closed) return false;
        const rows = this.statements.bodiesAfter.all(namespace, afterId, BUILD_SLICE_ROWS);
        for (const row of rows) if (!this.add(copy, row)) return leaveToFts5();
        const last = rows.at(-1);
        if (!last || rows.length < BUILD_SLICE_ROWS) break;
        afterId = last.id;
      }
      this.counters.copied += 1;
      this.namespaces.set(namespace, copy);
      this.evictBeyondBudget();
      return this.namespaces.has(namespace);
    } catch (error) {
      // FTS5 keeps answering; the next search tries again.
      log.warn("lexical_index_build_failed", { namespace, reason: describeError(error), fallback: "fts5" });
      return false;
    }
  }

  /** Applies the logged changes; false when the log no longer reaches back or a changed entry cannot be read. */
  private catchUp(namespace: string, copy: NamespaceTerms, generation: number): boolean {
    const changed = this.changes.changedSince(namespace, copy.generation, generation);
    if (!changed) return false;
    for (const rowid of changed) copy.delete(rowid);
    for (const row of this.statements.bodiesOf.all(JSON.stringify(changed), namespace)) if (!this.add(copy, row)) return false;
    copy.generation = generation;
    this.counters.caughtUp += 1;
    return true;
  }

  private add(copy: NamespaceTerms, row: BodyRow): boolean {
    const columns = this.columnsOf(row.entry_json);
    if (!columns) return false;
    copy.set(row.rowid, columns);
    return true;
  }

  private evictBeyondBudget(): void {
    let total = 0;
    for (const copy of this.namespaces.values()) total += copy.size;
    for (const [namespace, copy] of this.namespaces) {
      if (total <= this.maxRows) break;
      total -= copy.size;
      this.namespaces.delete(namespace);
    }
  }

  /** The table's rows and tokens (all columns) from FTS5's averages record: what bm25() reads as N and N x avgdl. */
  private statistics(): { rows: number; tokens: number } {
    const record = this.statements.averages.get();
    if (!record) return { rows: 0, tokens: 0 };
    const values = varints(record);
    const rows = values[0] ?? 0;
    const tokens = values.slice(1).reduce((sum, value) => sum + value, 0);
    return { rows, tokens };
  }

  /**
   * bm25()'s idf of a term, from a count of the rows holding it; kept until the file changes (a commit
   * of this connection or another one), since questions keep asking the same names and words.
   */
  private inverseFrequency(term: string, rows: number): number {
    const version = this.statements.fileVersion.get() ?? "";
    if (version !== this.idfVersion || this.idfByTerm.size >= IDF_CACHE_TERMS) {
      this.idfVersion = version;
      this.idfByTerm.clear();
    }
    let idf = this.idfByTerm.get(term);
    if (idf === undefined) {
      const logarithm = this.statements.idf.get(rows, termMatchExpression(term)) ?? 0;
      idf = logarithm <= 0 ? IDF_FLOOR : logarithm;
      this.idfByTerm.set(term, idf);
    }
    return idf;
  }
}

/**
 * The unsigned varints of an FTS5 record, in order (SQLite's format: big-endian groups of 7 bits, the
 * high bit set on every byte but the last, at most 9 bytes, the ninth giving 8 bits). The averages
 * record (fts5_index.c) is the row count followed by each column's token total.
 */
function varints(record: Buffer): number[] {
  const values: number[] = [];
  let at = 0;
  while (at < record.length) {
    let value = 0;
    for (let byte = 0; ; byte += 1) {
      const current = record[at++] ?? 0;
      if (byte === 8) {
        value = value * 256 + current;
        break;
      }
      value = value * 128 + (current & 0x7f);
      if ((current & 0x80) === 0) break;
    }
    values.push(value);
  }
  return values;
}

function prepare(db: Database.Database) {
  return {
    count: db.prepare<[string], number>("SELECT count(*) FROM entries WHERE namespace = ?").pluck(),
    // By id: the (namespace, id) index walks one namespace in order, however many others the file holds.
    bodiesAfter: db.prepare<[namespace: string, afterId: string, limit: number], BodyRow>(
      `SELECT e.rowid AS rowid, e.id AS id, b.entry_json AS entry_json
         FROM entries AS e JOIN entry_bodies AS b ON b.rowid = e.rowid
        WHERE e.namespace = ? AND e.id > ? ORDER BY e.id LIMIT ?`,
    ),
    bodiesOf: db.prepare<[rowidsJson: string, namespace: string], BodyRow>(
      `SELECT e.rowid AS rowid, e.id AS id, b.entry_json AS entry_json
         FROM json_each(?) AS wanted CROSS JOIN entries AS e ON e.rowid = wanted.value JOIN entry_bodies AS b ON b.rowid = e.rowid
        WHERE e.namespace = ?`,
    ),
    averages: db.prepare<[], Buffer>("SELECT block FROM entry_terms_data WHERE id = 1").pluck(),
    // Moves with every commit to the file: data_version with other connections', total_changes() with this one's.
    fileVersion: db.prepare<[], string>("SELECT (SELECT data_version FROM pragma_data_version()) || ':' || total_changes()").pluck(),
    // bm25()'s idf, before its floor, with SQLite's ln(): the same libm call, hence the same double.
    idf: db.prepare<[rows: number, match: string], number>(
      "SELECT ln((? - hits + 0.5) / (hits + 0.5)) FROM (SELECT count(*) AS hits FROM entry_terms WHERE entry_terms MATCH ?)",
    ).pluck(),
  };
}
