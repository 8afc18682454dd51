import type { MemoryEntry } from "../memory/entry.js";
import { lexicalDocument } from "../stores/lexical-document.js";
import { tokenize } from "../text/tokenizer.js";

/** The index terms of an entry: the tokens of exactly what the stores' lexical view indexes. */
export function entryTerms(entry: MemoryEntry): Set<string> {
  return new Set(tokenize(lexicalDocument(entry)));
}

/** True when every term of `label` (by our tokenizer: stemmed, case-folded) is among `terms`. */
export function coversAll(terms: ReadonlySet<string>, label: string): boolean {
  return tokenize(label).every((term) => terms.has(term));
}
