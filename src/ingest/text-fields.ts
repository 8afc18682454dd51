/**
 * The fields a memory's text gives when its writer left them out: keywords, persons and entities.
 * Every writer derives them here, so a memory gets the same fields whichever way it is written: the
 * library's `remember`, a tool, the MCP server, the LangGraph store, a JSON Lines file, a document, a dialogue.
 */
import { MAX_ID_CHARS, uniqueNames } from "../memory/entry.js";
import { keywords } from "../text/tokenizer.js";
import { codeFamilies, findNames } from "./names.js";

/** Most keywords an entry gets from its text (a dialogue turn's own words first, then its neighbours'). */
export const MAX_DERIVED_KEYWORDS = 64;
/** Most persons, and most entities, an entry gets from its text. */
export const MAX_DERIVED_NAMES = 32;

/**
 * Names or words found in text, made storable: each cut to the length a stored name may have,
 * duplicates (in any case) dropped, at most `max`. A word of 300 characters (a long URL, a hash)
 * would otherwise have a memory refused over a field its writer never gave.
 */
export function derivedList(items: readonly string[], max: number): string[] {
  return uniqueNames(items.map((item) => item.trim().slice(0, MAX_ID_CHARS)), max);
}

/**
 * Fills the fields a memory left out (absent, not empty: an explicit [] is respected): keywords from
 * its text (plus code families, "XYZ" for XYZ-100), and persons and entities found by the name rules.
 * The keywords are indexed apart from the text (the lexical view's tags), as a built memory's are.
 */
export function fillMissingFields<T extends TextFields>(input: T): T & Required<TextFields> {
  const { keywords: givenKeywords, persons, entities } = input;
  const names = persons === undefined || entities === undefined ? findNames(input.text) : undefined;
  const filledEntities = entities ?? derivedList(names?.entities ?? [], MAX_DERIVED_NAMES);
  return {
    ...input,
    persons: persons ?? derivedList(names?.persons ?? [], MAX_DERIVED_NAMES),
    entities: filledEntities,
    keywords: givenKeywords ?? derivedList([...keywords(input.text), ...codeFamilies(filledEntities)], MAX_DERIVED_KEYWORDS),
  };
}

/** The fields fillMissingFields reads and fills, as a caller's input or a checked one has them. */
type TextFields = { text: string; keywords?: string[] | undefined; persons?: string[] | undefined; entities?: string[] | undefined };
