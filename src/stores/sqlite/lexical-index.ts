/**
 * BM25 over one namespace's entries, from their terms held in memory or, until those are read, from
 * the rows FTS5 finds for the question.
 *
 * Statistics per namespace. bm25() (fts5_aux.c) reads N, avgdl and each term's n over the whole table,
 * so one namespace's writes would move another's scores, and a caller could learn which words someone
 * else stored by scoring guesses. Here N, avgdl and n are the namespace's own (text/bm25.ts), on both
 * paths; FTS5 only finds the namespace's rows holding a term and says how often they hold it.
 *
 * The formula is bm25()'s: the sum over the query's distinct terms, in order, of idf x saturated f,
 * with f a term's instances in the row weighted by column (BM25_TEXT_WEIGHT, BM25_TAGS_WEIGHT) and D the row's tokens in
 * all columns (the namespace term counts 1, as in FTS5's own sizes). Both paths build the same
 * NamespaceTerms (namespace-terms.ts) and rank with the same code, so their scores are bit-identical and ties fall to
 * rowid. test/stores/lexical-index.test.ts holds them equal to each other and to a direct computation.
 *
 * From FTS5. FTS5 cannot score with other statistics, and reading and tokenizing the rows it finds
 * would cost ~70 µs each (a question's words match ~13 % of a namespace): so each term's count in a
 * row is recovered from bm25() itself, whose whole-table statistics are known (rankedFromFts5). That
 * still walks every matching row per term; hence, in memory: each namespace's terms are read once in
 * the background from its first search on (its entries' text and tags, tokenized as the write path
 * tokenizes them: fts-terms.ts), FTS5 answering until they are ready, within a budget of rows for all
 * namespaces together, least recently searched dropped first; a namespace beyond it is left to FTS5.
 * Each namespace's terms record the generation they match (entry-changes.ts); before a search they
 * are brought up to date from the change log, or re-read when it no longer reaches back. A file store
 * saves them once read (saved-terms.ts) and the next opening loads them, caught up the same way.
 */
import type Database from "better-sqlite3";
import type { LexicalFields } from "../lexical-document.js";
import { describeError, log } from "../../core/log.js";
import { nextTurn } from "../../core/next-turn.js";
import { RecentMap } from "../../core/recent-map.js";
import type { Bm25Statistics } from "../../text/bm25.js";
import type { EntryChanges } from "./entry-changes.js";
import { termMatchExpression } from "./fts-terms.js";
import { NamespaceTerms, type LexicalHit } from "./namespace-terms.js";
import { savedFilesLock, type SavedFilesLock } from "./saved-files.js";
import { loadTerms, namespacesWithTerms, removeTerms, savedTermsGeneration, saveTerms } from "./saved-terms.js";
import { BM25_TAGS_WEIGHT, BM25_TEXT_WEIGHT, type SqliteDatabase } from "./schema.js";

/** The idf bm25() gives a term in over half of the table's rows (fts5_aux.c). */
const FTS5_IDF_FLOOR = 1e-6;
/** bm25()'s own k1 and b (fts5_aux.c, fixed): a count is recovered from its score with these, whatever b the store ranks with. */
const FTS5_K1 = 1.2;
const FTS5_B = 0.75;
/** Rows tokenized per slice of a build: ~15 ms of work here, then the event loop runs. */
const BUILD_SLICE_ROWS = 200;

/** Namespaces' terms read from the store, loaded from their saved file, brought up to date from the change log, and saved. */
export interface LexicalIndexCounters {
  copied: number;
  loaded: number;
  caughtUp: number;
  saved: number;
}

/** Where a file-backed store keeps each namespace's terms between openings (saved-terms.ts). */
export interface SavedTermsPlace {
  folder: string;
  /** The store file's id, which saved terms must carry. */
  storeId: string;
  /** Saved terms are loaded but never written. */
  readOnly: boolean;
}

/** A row's text and tag columns as FTS5 holds them (fts-terms.ts `ftsColumns`), from its entry's JSON; undefined when that cannot be read. */
export type RowColumns = (entryJson: string) => LexicalFields | undefined;

interface BodyRow {
  rowid: number;
  id: string;
  entry_json: string;
}

/** Namespaces whose statistics the FTS5 path keeps between searches, each for the generation it was counted at. */
const STATISTICS_KEPT = 1_000;

export class LexicalIndex {
  private readonly namespaces = new Map<string, NamespaceTerms>();
  private readonly builds = new Map<string, Promise<boolean>>();
  /**
   * Namespaces left to FTS5 (beyond the budget, or holding an entry that cannot be read), with the
   * generation they were found so at: not read again until it moves.
   */
  private readonly leftToFts5 = new Map<string, number>();
  /** The FTS5 path's namespace statistics, by namespace, with the generation they hold for. */
  private readonly statisticsKept = new RecentMap<string, { generation: number; statistics: Bm25Statistics }>(STATISTICS_KEPT);
  private readonly statements: ReturnType<typeof prepare>;
  private readonly savedFilesLock: SavedFilesLock;
  private closed = false;
  readonly counters: LexicalIndexCounters = { copied: 0, loaded: 0, caughtUp: 0, saved: 0 };

  constructor(
    db: SqliteDatabase,
    /** The store's change log, which says when held terms are behind the file; absent, nothing is held. */
    private readonly changes: EntryChanges | undefined,
    private readonly columnsOf: RowColumns,
    /** At most this many entries held, all namespaces together (least recently searched dropped first); 0 holds none. */
    private readonly maxRows: number,
    /** BM25's length normalisation b: applied when ranking, never stored, so any b reads any file. */
    private readonly b: number,
    /** Where terms are saved and loaded from; absent (`:memory:`, or a file without an id), they are read at every opening. */
    private readonly saved?: SavedTermsPlace,
  ) {
    this.statements = prepare(db);
    this.savedFilesLock = savedFilesLock(db);
  }

  /**
   * The k best of the namespace's rows holding any of the query's terms (distinct, in query order) that
   * `accept` passes, best first, from its terms in memory or else from the rows FTS5 finds. Call inside a read
   * transaction, so rows and statistics come from one snapshot. The first search of a namespace starts
   * reading its terms (see `build`).
   */
  ranked(namespace: string, terms: readonly string[], accept: (rowid: number) => boolean, k: number): LexicalHit[] {
    return this.rankedInMemory(namespace, terms, accept, k) ?? this.rankedFromFts5(namespace, terms, accept, k);
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

  /** Holds the namespace's terms, as `build`, and saves them now if their file is behind (true when they are held). */
  async prepare(namespace: string): Promise<boolean> {
    if (!(await this.build(namespace))) return false;
    this.persist(namespace);
    return this.namespaces.has(namespace);
  }

  /** Forgets a namespace's terms (every namespace's, when omitted): they are read again when next searched. */
  forget(namespace?: string): void {
    if (namespace === undefined) this.namespaces.clear();
    else this.namespaces.delete(namespace);
  }

  /**
   * After entries are erased (forgotten, pruned, cleared) in a namespace, or in every one when omitted:
   * saved terms would still hold their words, so each such namespace's are saved anew from the terms
   * held here, caught up, or else removed (the next opening reads the entries again).
   */
  afterErase(namespace: string | undefined): void {
    if (!this.saved || this.saved.readOnly || !this.changes) return;
    for (const name of namespace === undefined ? namespacesWithTerms(this.saved.folder) : [namespace]) {
      if (!this.persist(name)) this.removeSaved(name);
    }
  }

  /** Stops builds under way and forgets everything; the store closes the database after. */
  close(): void {
    this.closed = true;
    this.namespaces.clear();
  }

  /** The namespace's terms, brought up to date; undefined (and a build started) when they are not held. */
  private current(namespace: string): NamespaceTerms | undefined {
    if (!this.changes || this.maxRows === 0) return undefined;
    const copy = this.namespaces.get(namespace);
    const generation = this.changes.generation(namespace);
    if (!copy || (copy.generation !== generation && !this.catchUp(namespace, copy, generation))) {
      this.namespaces.delete(namespace);
      if (this.leftToFts5.get(namespace) !== generation) void this.build(namespace);
      // Saved terms are loaded before the build first yields: this search already ranks from them.
      return this.namespaces.get(namespace);
    }
    // Most recently searched last: eviction walks the Map from the front.
    this.namespaces.delete(namespace);
    this.namespaces.set(namespace, copy);
    return copy;
  }

  private async read(namespace: string): Promise<boolean> {
    if (!this.changes || this.maxRows === 0) return false;
    const changes = this.changes;
    try {
      const generation = changes.generation(namespace);
      const leaveToFts5 = () => {
        this.leftToFts5.set(namespace, generation);
        return false;
      };
      if ((this.statements.count.get(namespace) ?? 0) > this.maxRows) return leaveToFts5();
      this.leftToFts5.delete(namespace);
      const saved = this.loadSaved(namespace, generation);
      if (saved) return this.hold(namespace, saved);
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
      copy.trim();
      this.counters.copied += 1;
      // Saved only once caught up: rows read before an erase would otherwise leave its words in the file.
      const current = changes.generation(namespace);
      if (copy.generation === current || this.catchUp(namespace, copy, current)) this.save(namespace, copy);
      return this.hold(namespace, copy);
    } catch (error) {
      // FTS5 keeps answering; the next search tries again.
      log.warn("lexical_index_build_failed", { namespace, reason: describeError(error), fallback: "fts5" });
      return false;
    }
  }

  /** Holds the namespace's terms, within the budget; false when the budget leaves no room for them. */
  private hold(namespace: string, copy: NamespaceTerms): boolean {
    this.namespaces.set(namespace, copy);
    this.evictBeyondBudget();
    return this.namespaces.has(namespace);
  }

  /**
   * The namespace's saved terms, brought up to `generation` from the change log; undefined when none
   * are saved that match, or the log no longer reaches back to them (the entries are read then).
   * Loading blocks, unlike reading (0.8 s for a million entries, against 47 s of reading).
   */
  private loadSaved(namespace: string, generation: number): NamespaceTerms | undefined {
    if (!this.saved) return undefined;
    try {
      const terms = loadTerms(this.saved.folder, { storeId: this.saved.storeId, namespace });
      if (!terms || terms.generation > generation) return undefined;
      if (terms.generation !== generation && !this.catchUp(namespace, terms, generation)) return undefined;
      this.counters.loaded += 1;
      return terms;
    } catch (error) {
      log.warn("lexical_terms_load_failed", { namespace, reason: describeError(error), fallback: "read the entries" });
      return undefined;
    }
  }

  /** Saves the namespace's terms for the next opening; false when that fails (they stay held here, and the next opening reads the entries). */
  private save(namespace: string, copy: NamespaceTerms): boolean {
    if (!this.saved || this.saved.readOnly) return false;
    try {
      saveTerms(this.saved.folder, { storeId: this.saved.storeId, namespace }, copy, this.savedFilesLock);
      this.counters.saved += 1;
      return true;
    } catch (error) {
      log.warn("lexical_terms_save_failed", { namespace, reason: describeError(error) });
      return false;
    }
  }

  /**
   * Saves the namespace's held terms, caught up to the store, unless the saved ones (whichever process
   * wrote them) match that generation already; false when none are held, they cannot be caught up, or
   * the save fails.
   */
  private persist(namespace: string): boolean {
    const held = this.namespaces.get(namespace);
    if (!held || !this.changes || !this.saved) return false;
    const generation = this.changes.generation(namespace);
    if (held.generation !== generation && !this.catchUp(namespace, held, generation)) return false;
    const savedGeneration = savedTermsGeneration(this.saved.folder, { storeId: this.saved.storeId, namespace });
    return savedGeneration === held.generation || this.save(namespace, held);
  }

  private removeSaved(namespace: string): void {
    if (!this.saved) return;
    try {
      removeTerms(this.saved.folder, namespace, this.savedFilesLock);
    } catch (error) {
      log.warn("lexical_terms_remove_failed", { namespace, reason: describeError(error) });
    }
  }

  /** Applies the logged changes; false when the log no longer reaches back or a changed entry cannot be read. */
  private catchUp(namespace: string, copy: NamespaceTerms, generation: number): boolean {
    const changed = this.changes?.changedSince(namespace, copy.generation, generation);
    if (!changed) return false;
    copy.delete(changed);
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

  /** The ranking from the namespace's terms in memory; undefined when they are not held or it fails (FTS5's matches are ranked then). */
  private rankedInMemory(namespace: string, terms: readonly string[], accept: (rowid: number) => boolean, k: number): LexicalHit[] | undefined {
    try {
      const copy = this.current(namespace);
      return copy?.ranked(terms, copy.statistics(), accept, k, this.b);
    } catch (error) {
      // A failing in-memory path degrades to FTS5, never to an error; the namespace is re-read next time.
      log.warn("lexical_search_failed", { namespace, reason: describeError(error), fallback: "fts5" });
      this.forget(namespace);
      return undefined;
    }
  }

  /**
   * The ranking from the rows FTS5 finds holding each term in the namespace, without reading their
   * text: for each row FTS5 gives its size D and bm25() of the term in one column at a time, computed
   * with the whole table's statistics (N, avgdl and the term's idf over every namespace). Those are
   * known, so the term's count in the column follows exactly (see countInColumn); the rows are then
   * ranked with the namespace's own statistics, by the same code and to the same bits as in memory.
   */
  private rankedFromFts5(namespace: string, terms: readonly string[], accept: (rowid: number) => boolean, k: number): LexicalHit[] {
    const table = this.tableStatistics();
    if (table.rows === 0) return [];
    const averageLength = table.tokens / table.rows;
    const rows = new Map<number, { length: number; counts: Map<string, number> }>();
    for (const term of terms) {
      const match = termMatchExpression(term);
      const idf = this.tableIdf(match, table.rows);
      for (const found of this.statements.termScores.all(match, namespace)) {
        let row = rows.get(found.rowid);
        if (!row) rows.set(found.rowid, (row = { length: rowLength(found.sizes), counts: new Map() }));
        const text = countInColumn(found.text_score, idf, row.length, averageLength);
        const tags = countInColumn(found.tags_score, idf, row.length, averageLength);
        row.counts.set(term, text * BM25_TEXT_WEIGHT + tags * BM25_TAGS_WEIGHT);
      }
    }
    const found = new NamespaceTerms(0);
    for (const [rowid, row] of rows) found.setCounts(rowid, row.length, row.counts);
    return found.ranked(terms, this.namespaceStatistics(namespace), accept, k, this.b);
  }

  /** The whole table's rows and tokens (all columns), from FTS5's averages record: what bm25() reads as N and N x avgdl. */
  private tableStatistics(): Bm25Statistics {
    const record = this.statements.averages.get();
    if (!record) return { rows: 0, tokens: 0 };
    const [rows = 0, ...columns] = varints(record);
    return { rows, tokens: columns.reduce((sum, value) => sum + value, 0) };
  }

  /** The idf bm25() gives a term: over the whole table, floored as fts5_aux.c floors it. */
  private tableIdf(match: string, rows: number): number {
    const hits = this.statements.tableHits.get(match) ?? 0;
    const idf = Math.log((rows - hits + 0.5) / (hits + 0.5));
    return idf > 0 ? idf : FTS5_IDF_FLOOR;
  }

  /** N and the token total of the namespace, from FTS5's row sizes; kept while its generation stays. */
  private namespaceStatistics(namespace: string): Bm25Statistics {
    const generation = this.changes?.generation(namespace);
    const kept = this.statisticsKept.get(namespace);
    if (kept && generation !== undefined && kept.generation === generation) return kept.statistics;
    const statistics: Bm25Statistics = { rows: 0, tokens: 0 };
    for (const sizes of this.statements.rowSizes.iterate(namespace)) {
      statistics.rows += 1;
      statistics.tokens += rowLength(sizes);
    }
    if (generation !== undefined) this.statisticsKept.set(namespace, { generation, statistics });
    return statistics;
  }
}

/** A row's size D, its tokens in all columns, from its size record. */
function rowLength(sizes: Buffer): number {
  return varints(sizes).reduce((sum, size) => sum + size, 0);
}

/**
 * A term's instances in one column of a row, from bm25() of that term in that column alone:
 * score = idf x f x (k1 + 1) / (f + K) with K = k1 x (1 - b + b x D / avgdl), bm25()'s k1 and b, solved
 * for f. f is a whole number and the score a double, so rounding gives it exactly.
 */
function countInColumn(score: number, idf: number, length: number, averageLength: number): number {
  if (!(score > 0)) return 0;
  const saturation = FTS5_K1 * (1 - FTS5_B + (FTS5_B * length) / averageLength);
  return Math.round((score * saturation) / (idf * (FTS5_K1 + 1) - score));
}

/**
 * The unsigned varints of an FTS5 record, in order (SQLite's format: big-endian groups of 7 bits, the
 * high bit set on every byte but the last, at most 9 bytes, the ninth giving 8 bits). A row's size
 * record (fts5_index.c, the docsize table) is its token count in each column.
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
    // bm25() of the one term in the text column, then in the tag column, and the row's sizes, for the
    // namespace's rows holding it. The term alone is matched, not with the namespace's term: FTS5
    // would walk the whole namespace's postings again for every term of the question.
    termScores: db.prepare<[match: string, namespace: string], { rowid: number; text_score: number; tags_score: number; sizes: Buffer }>(
      `SELECT e.rowid AS rowid, -bm25(entry_terms, 0, 1, 0) AS text_score, -bm25(entry_terms, 0, 0, 1) AS tags_score, d.sz AS sizes
         FROM entry_terms CROSS JOIN entries AS e ON e.rowid = entry_terms.rowid JOIN entry_terms_docsize AS d ON d.id = e.rowid
        WHERE entry_terms MATCH ? AND e.namespace = ?`,
    ),
    averages: db.prepare<[], Buffer>("SELECT block FROM entry_terms_data WHERE id = 1").pluck(),
    // The rows of the whole table holding a term: bm25()'s n.
    tableHits: db.prepare<[match: string], number>("SELECT count(*) FROM entry_terms WHERE entry_terms MATCH ?").pluck(),
    rowSizes: db.prepare<[namespace: string], Buffer>(
      "SELECT d.sz FROM entries AS e JOIN entry_terms_docsize AS d ON d.id = e.rowid WHERE e.namespace = ?",
    ).pluck(),
  };
}
