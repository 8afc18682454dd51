/**
 * Schema step 4: the FTS5 terms of a hyphen-joined identifier's parts. BM25 matches `CTLA-4` as
 * `ctla-4` and `ctla` (tokenizer.ts, lexicalTerms); rows written before hold the whole identifier
 * alone, so FTS5 (which answers while a namespace's terms load, and beyond `lexicalCacheEntries`)
 * would rank them otherwise than the in-memory terms, which are read from the memories.
 *
 * The index's own vocabulary names the identifiers it holds, so only the rows holding one are read and
 * written again: a store without such identifiers costs one vocabulary scan. Measured on SciFact's
 * abstracts, where most hold one: 1.4 s for 5,183 entries, 4.7 s for four copies (20,732).
 */
import { log } from "../../core/log.js";
import { lexicalTerms } from "../../text/tokenizer.js";
import { ftsColumnsOfJson, namespaceTerm, termMatchExpression } from "./fts-terms.js";
import type { SqliteDatabase } from "./schema.js";

/** Rows from which the rewrite is announced before it starts (warn: the default log level shows it). */
const ANNOUNCED_ROWS = 10_000;

interface BodyRow {
  namespace: string;
  entry_json: string;
}

/** Rewrites the FTS5 row of every entry holding an identifier whose parts its terms lack; run inside the opening transaction. */
export function addIdentifierParts(db: SqliteDatabase): void {
  const bodyOf = db.prepare<[number], BodyRow>(
    "SELECT e.namespace AS namespace, b.entry_json AS entry_json FROM entries AS e JOIN entry_bodies AS b ON b.rowid = e.rowid WHERE e.rowid = ?",
  );
  const deleteTerms = db.prepare<[number]>("DELETE FROM entry_terms WHERE rowid = ?");
  const insertTerms = db.prepare<[number, string, string, string]>("INSERT INTO entry_terms (rowid, namespace_term, text_terms, tag_terms) VALUES (?, ?, ?, ?)");
  const started = performance.now();
  const rowids = rowidsHoldingIdentifiers(db);
  // Tokenizing is most of the cost (about 0.6 ms for an abstract of 200 words): a large store says why its first opening waits.
  if (rowids.size >= ANNOUNCED_ROWS) log.warn("lexical_terms_migrating", { rows: rowids.size });
  let rewritten = 0;
  for (const rowid of rowids) {
    const body = bodyOf.get(rowid);
    // An unreadable body keeps the terms it has: the write path never made other ones for it.
    const columns = body && ftsColumnsOfJson(body.entry_json);
    if (!body || !columns) continue;
    deleteTerms.run(rowid);
    insertTerms.run(rowid, namespaceTerm(body.namespace), columns.text, columns.tags);
    rewritten += 1;
  }
  if (rewritten > 0) log.info("lexical_terms_migrated", { rows: rewritten, ms: Math.round(performance.now() - started) });
}

/** The rows whose terms hold a hyphen-joined term that lexicalTerms splits into more than itself. */
function rowidsHoldingIdentifiers(db: SqliteDatabase): Set<number> {
  db.exec("CREATE VIRTUAL TABLE temp.entry_terms_vocabulary USING fts5vocab(main, entry_terms, row)");
  try {
    const hyphenated = db.prepare<[], string>("SELECT term FROM temp.entry_terms_vocabulary WHERE term LIKE '%-%'").pluck().all();
    const matching = db.prepare<[string], number>("SELECT rowid FROM entry_terms WHERE entry_terms MATCH ?").pluck();
    const rowids = new Set<number>();
    for (const term of hyphenated.filter((term) => lexicalTerms(term).length > 1)) {
      for (const rowid of matching.all(termMatchExpression(term))) rowids.add(rowid);
    }
    return rowids;
  } finally {
    db.exec("DROP TABLE temp.entry_terms_vocabulary");
  }
}
