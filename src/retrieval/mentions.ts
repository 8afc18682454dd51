import type { MemoryEntry } from "../memory/entry.js";
import { tokenize } from "../text/tokenizer.js";

/** Everything of an entry a name can be found in: text, keywords, names, place and topic. */
export function searchableText(entry: MemoryEntry): string {
  return [entry.text, ...entry.keywords, ...entry.persons, ...entry.entities, entry.location ?? "", entry.topic ?? ""].join(" ");
}

/** True when every term of `label` (by our tokenizer: stemmed, case-folded) is in the entry's searchable text. */
export function mentions(entry: MemoryEntry, label: string): boolean {
  const terms = new Set(tokenize(searchableText(entry)));
  return tokenize(label).every((term) => terms.has(term));
}
