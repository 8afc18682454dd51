/**
 * How the project's tokens meet FTS5. FTS5 does no language processing of its own here: documents are
 * stored as already-tokenized text and queries are built from the same tokenizer's output.
 *
 * The FTS5 table uses the `ascii` tokenizer with tokenchars `_.@-` (see schema.ts). It splits only on
 * ASCII characters other than letters, digits and `_ . @ -`, treats every non-ASCII character as part
 * of a token and folds only ASCII case. lexicalTerms() promises tokens of letters, marks, digits and
 * `_ . @ -` only, lower-cased (TOKEN_PATTERN), so each token is exactly one FTS5 term, readable as
 * itself (`err_1024`, `v2.3.1`, `报销`). A token that ever breaks that promise is stored as `§` plus the
 * hex of its UTF-8 bytes: `§` is a token character to FTS5 and never part of a valid token, so the
 * mapping stays one-to-one and no token can be split or merged.
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import { TOKEN_PATTERN, lexicalTerms } from "../../text/tokenizer.js";
import { lexicalFields, type LexicalFields } from "../lexical-document.js";
import { MemoryEntrySchema, type MemoryEntry } from "../../memory/entry.js";
import { jsonOrUndefined } from "./parsed-entries.js";

const ESCAPE_MARK = "§";
const UPPER_ASCII = /[A-Z]/;

/** The FTS5 term of one token. */
export function ftsTerm(token: string): string {
  if (TOKEN_PATTERN.test(token) && !UPPER_ASCII.test(token)) return token;
  return ESCAPE_MARK + Buffer.from(token, "utf8").toString("hex");
}

/** The FTS5 column values of an entry: each lexical field tokenized, one term per token, space-separated. */
export function ftsColumns(entry: Pick<MemoryEntry, "text" | "keywords" | "persons" | "entities" | "location" | "topic">): LexicalFields {
  const fields = lexicalFields(entry);
  return { text: toTerms(fields.text), tags: toTerms(fields.tags) };
}

/** The fields of an entry its FTS5 terms come from; the rest of the row is not read. */
const LexicalSourceSchema = z.object(MemoryEntrySchema.pick({ text: true, keywords: true, persons: true, entities: true, location: true, topic: true }).shape);

/** A row's FTS5 columns as the write path makes them (ftsColumns), from its entry's JSON; undefined when that JSON is not an entry's. */
export function ftsColumnsOfJson(json: string): LexicalFields | undefined {
  const parsed = LexicalSourceSchema.safeParse(jsonOrUndefined(json));
  return parsed.success ? ftsColumns(parsed.data) : undefined;
}

function toTerms(text: string): string {
  return lexicalTerms(text).map(ftsTerm).join(" ");
}

/**
 * A memory whose terms go through each of the tokenizer's rules: case and Latin diacritics, stopwords
 * and stems, contractions and apostrophes, hyphen-joined and dotted identifiers, addresses, grouped
 * numbers, Chinese and Japanese runs, Thai, and every tag field.
 */
const TERMS_PROBE = {
  text: "Zoë didn't go to São Paulo; she's re-running ERR_1024 on v2.3.1 (CTLA-4) with ops@example.com, 12,500 tests. 报销标准是什么？東京へ行きました。สวัสดีครับ",
  keywords: ["Running-Shoes", "budgets"],
  persons: ["Anne-Marie O'Neil"],
  entities: ["XYZ-100"],
  location: "Malmö",
  topic: "Travel plans",
};

let fingerprint: string | undefined;

/**
 * A fingerprint of the terms this version's tokenizer writes: terms saved beside the store by another
 * version (saved-terms.ts) are read only when it is theirs too, so a tokenizer change never serves
 * terms it would not write.
 */
export function termsFingerprint(): string {
  fingerprint ??= createHash("sha256").update(JSON.stringify(ftsColumns(TERMS_PROBE))).digest("hex");
  return fingerprint;
}

/**
 * The term naming a namespace in the `namespace_term` column: `§ns` plus the SHA-256 of the name, so
 * any namespace (any length, any characters) is one fixed-size term that no token can equal. Every
 * row is written with it, and it counts 1 in the row's size D; searches join `entries.namespace`
 * instead of matching it (lexical-index.ts).
 */
export function namespaceTerm(namespace: string): string {
  return `${ESCAPE_MARK}ns${createHash("sha256").update(namespace, "utf8").digest("hex")}`;
}

/** A query's distinct FTS5 terms, in order: the order each row's score adds them in. */
export function queryTerms(query: string): string[] {
  return [...new Set(lexicalTerms(query).map(ftsTerm))];
}

/** An FTS5 MATCH expression for the rows holding one term in the text or tag columns (in any namespace). */
export function termMatchExpression(term: string): string {
  return `{text_terms tag_terms} : ${quote(term)}`;
}

function quote(term: string): string {
  return `"${term.replaceAll('"', '""')}"`;
}
