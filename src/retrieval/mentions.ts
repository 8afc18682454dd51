import { RecentMap } from "../core/recent-map.js";
import type { MemoryEntry } from "../memory/entry.js";
import { lexicalDocument } from "../stores/lexical-document.js";
import { tokenize } from "../text/tokenizer.js";

/**
 * The index terms of an entry: the tokens of exactly what the stores' lexical view indexes. Kept for
 * the entries looked at lately, by the lexical document they are made of (an edited entry is a new
 * document, tokenized again): the judge reads the terms of every round's top hits, gap queries check
 * theirs against a condition, a round's views find many of the same entries, and so do the questions
 * asked one after another (tokenizing them was about a tenth of the nodes' own time at 1k entries).
 * Terms depend on the text alone, so sharing them across namespaces shows no entry to another. At most
 * 4096 documents are kept, the least recently used dropped first.
 */
export function entryTerms(entry: MemoryEntry): ReadonlySet<string> {
  const document = lexicalDocument(entry);
  const known = recentTerms.get(document);
  if (known) return known;
  const terms: ReadonlySet<string> = new Set(tokenize(document));
  recentTerms.set(document, terms);
  return terms;
}

const recentTerms = new RecentMap<string, ReadonlySet<string>>(4096);

/** True when every term of `label` (by our tokenizer: stemmed, case-folded) is among `terms`. */
export function coversAll(terms: ReadonlySet<string>, label: string): boolean {
  return tokenize(label).every((term) => terms.has(term));
}

/** The plan's name conditions: who, what and where a symbolic search requires. */
export type NameConditions = { persons?: readonly string[]; entities?: readonly string[]; location?: string };

/**
 * True when an entry's indexed words name what each set name condition asks for (any one of its
 * persons, any one of its entities, the location): the symbolic view's check for memories that say a
 * name without carrying it as metadata, such as a plain-text memory ("Dana moved to Malmö"), whose
 * writer gave only `text`. A name counts when all its terms are among the entry's (coversAll).
 */
export function namesEveryCondition(terms: ReadonlySet<string>, conditions: NameConditions): boolean {
  const namesOne = (names: readonly string[] | undefined) => !names?.length || names.some((name) => coversAll(terms, name));
  return namesOne(conditions.persons) && namesOne(conditions.entities) && (conditions.location === undefined || coversAll(terms, conditions.location));
}
