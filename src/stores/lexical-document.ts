import type { MemoryEntry } from "../memory/entry.js";

/**
 * What the lexical (BM25) view of every store indexes for one entry: its text, and apart from it the
 * short descriptive fields (keywords, persons, entities, location, topic) that a question names.
 * Every adapter indexes exactly these fields, so a term that finds an entry in one store finds it in another.
 */
export interface LexicalFields {
  /** The entry's text. */
  text: string;
  /** Keywords, persons, entities, location and topic, one per line (empty when the entry has none). */
  tags: string;
}

/** The lexical fields of an entry, for stores that weight the text and its tags separately (sqlite FTS5 columns). */
export function lexicalFields(entry: Pick<MemoryEntry, "text" | "keywords" | "persons" | "entities" | "location" | "topic">): LexicalFields {
  const tags = [...entry.keywords, ...entry.persons, ...entry.entities, entry.location, entry.topic].filter(
    (value): value is string => typeof value === "string" && value.trim() !== "",
  );
  return { text: entry.text, tags: tags.join("\n") };
}

/**
 * The whole lexical document of an entry as one string (text, then tags), for stores with a single
 * lexical field (Qdrant's sparse vector). Lines keep one field's words from running into the next.
 */
export function lexicalDocument(entry: Pick<MemoryEntry, "text" | "keywords" | "persons" | "entities" | "location" | "topic">): string {
  const { text, tags } = lexicalFields(entry);
  return tags ? `${text}\n${tags}` : text;
}
