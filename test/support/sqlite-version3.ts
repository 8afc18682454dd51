/**
 * A sqlite store file as schema version 3 left it: the same tables, each row's FTS5 terms one per token
 * (`tokenize`), so a hyphen-joined identifier is one term without its parts. What the version-4 step
 * (src/stores/sqlite/identifier-parts.ts) is tested on.
 */
import Database from "better-sqlite3";
import type { MemoryEntry } from "../../src/memory/entry.js";
import { lexicalFields } from "../../src/stores/lexical-document.js";
import { ftsTerm, namespaceTerm } from "../../src/stores/sqlite/fts-terms.js";
import { tokenize } from "../../src/text/tokenizer.js";

/** Rewrites every row's FTS5 terms as version 3 wrote them and records version 3 (the file must be closed by its store). */
export function writeVersion3Terms(path: string): void {
  const db = new Database(path);
  try {
    const rows = db
      .prepare("SELECT e.rowid AS rowid, e.namespace AS namespace, b.entry_json AS json FROM entries AS e JOIN entry_bodies AS b ON b.rowid = e.rowid")
      .all() as { rowid: number; namespace: string; json: string }[];
    const remove = db.prepare("DELETE FROM entry_terms WHERE rowid = ?");
    const insert = db.prepare("INSERT INTO entry_terms (rowid, namespace_term, text_terms, tag_terms) VALUES (?, ?, ?, ?)");
    for (const row of rows) {
      const fields = lexicalFields(JSON.parse(row.json) as MemoryEntry);
      remove.run(row.rowid);
      insert.run(row.rowid, namespaceTerm(row.namespace), version3Terms(fields.text), version3Terms(fields.tags));
    }
    db.exec("UPDATE meta SET value = '3' WHERE key = 'schema_version'");
  } finally {
    db.close();
  }
}

function version3Terms(text: string): string {
  return tokenize(text).map(ftsTerm).join(" ");
}
