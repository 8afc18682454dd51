import type { Vocabulary } from "../stores/port.js";
import { ENGLISH_STOPWORDS, keywords as contentWords } from "../text/tokenizer.js";
import { findTimeWindow } from "../time/window.js";
import type { Plan } from "../domain/plan.js";

export interface RulePlanContext {
  vocabulary: Vocabulary;
  now: Date;
  timeZone: string;
  maxSubQueries: number;
}

/**
 * The planner that runs with no model (or when the model fails): clause splitting for sub-queries,
 * the tokenizer for keywords, the namespace's known names for persons/entities/locations, and the
 * time parser for the window. Deterministic and cheap.
 */
export function planWithRules(question: string, context: RulePlanContext): Plan {
  const window = findTimeWindow(question, { now: context.now, timeZone: context.timeZone });
  // People go by a part of their name, whatever the case ("alice" for "Alice Chen"). A thing or place
  // is found by a part only where the question capitalises it ("Acme" for "Acme Corp"): by any part, a
  // common word would make a title a condition ("Does Calvin love music?" -> "California Love").
  const persons = namesMentioned(question, context.vocabulary.persons);
  const locations = namesMentioned(question, context.vocabulary.locations, { parts: "capitalized" });
  // A name already known as a person or place is not also an entity condition: the symbolic view
  // ANDs its conditions, and one name required twice over would filter out the very memories it names.
  const taken = new Set([...persons, ...locations].map((name) => name.toLowerCase()));
  // Nor is an entity found only through a word of a person's name ("Woohoo Melanie" via "Melanie"):
  // the question names the person, and the entity would narrow the conditions to a stray memory.
  const personWords = new Set(persons.flatMap(nameParts));
  const entities = namesMentioned(question, context.vocabulary.entities, { parts: "capitalized" }).filter(
    (name) => !taken.has(name.toLowerCase()) && !foundOnlyThrough(question, name, personWords),
  );
  const timeWords = new Set(window ? contentWords(window.expression).map((w) => w.toLowerCase()) : []);
  const keywords = contentWords(question).filter((word) => !timeWords.has(word.toLowerCase()));
  const plan: Plan = {
    requiredInfo: [...persons, ...entities, ...locations, ...keywords.filter((k) => !isName(k, persons, entities, locations))],
    subQueries: subQueriesOf(question, context.maxSubQueries),
    keywords,
    persons,
    entities,
    locations,
    planner: "rules",
  };
  if (window) {
    plan.timeExpression = window.expression;
    plan.timeWindow = { startMs: window.startMs, endMs: window.endMs };
    plan.requiredInfo.push(window.expression);
  }
  return plan;
}

/** The question first, then its clauses when it asks several things at once. */
export function subQueriesOf(question: string, max: number): string[] {
  const clauses = question
    .split(/[;?？；。]|\s+(?:and|also|as well as)\s+(?=(?:who|what|when|where|why|how|which|did|does|do|is|are|was|were)\b)|以及|并且|还有/i)
    .map((clause) => clause.trim())
    .filter((clause) => contentWords(clause).length >= 2);
  const queries = [question.trim()];
  for (const clause of clauses) {
    if (queries.length >= max) break;
    if (!queries.some((query) => sameQuery(query, clause))) queries.push(clause);
  }
  return queries;
}

/** Two queries that differ only in case, spacing or punctuation are one query. */
export function sameQuery(a: string, b: string): boolean {
  const normal = (text: string) => text.toLowerCase().replace(/[\p{P}\s]+/gu, " ").trim();
  return normal(a) === normal(b);
}

/**
 * Known names the question mentions: a whole-word, case-insensitive match of the name, or of one of
 * its parts (see nameParts: "Alice" finds "Alice Chen"), in any case or, with `parts: "capitalized"`,
 * only where the question capitalises it. CJK names match as substrings. Codes with digits match only
 * whole, so ERR_1024 never finds ERR_2048.
 */
export function namesMentioned(
  question: string,
  known: readonly string[],
  options: { parts?: "any-case" | "capitalized" } = {},
): string[] {
  const text = question.toLowerCase();
  const written = question.split(/[^\p{L}\p{N}_.@-]+/u).filter(Boolean).map(trimPunctuation);
  const partWords = options.parts === "capitalized" ? written.filter((word) => /^\p{Lu}/u.test(word)) : written;
  const words = new Set(partWords.map((word) => word.toLowerCase()));
  const found: string[] = [];
  for (const name of known) {
    const lower = name.toLowerCase();
    if (/\p{Script=Han}|\p{Script=Hiragana}|\p{Script=Katakana}/u.test(name)) {
      if (text.includes(lower)) found.push(name);
      continue;
    }
    if (wholePhrase(text, lower)) {
      found.push(name);
      continue;
    }
    if (/\d/.test(name)) continue;
    // A one-word name is matched whole or not at all; "Beatles" still finds "The Beatles".
    if (lower.trim().split(/[\s-]+/).length > 1 && nameParts(name).some((part) => words.has(part))) found.push(name);
  }
  return found;
}

/**
 * The parts by which namesMentioned matches a name of several words: alphabetic, 3+ letters, not a
 * stopword ("the" or "with" would make "Lord of the Rings" a condition of any question).
 */
function nameParts(name: string): string[] {
  return name
    .toLowerCase()
    .split(/[\s-]+/)
    .filter((part) => part.length >= 3 && /^\p{L}+$/u.test(part) && !ENGLISH_STOPWORDS.has(part));
}

/** True when `name` is not in the question whole and every part of it the question has is one of `parts`. */
function foundOnlyThrough(question: string, name: string, parts: ReadonlySet<string>): boolean {
  const text = question.toLowerCase();
  if (wholePhrase(text, name.toLowerCase())) return false;
  const present = nameParts(name).filter((part) => wholePhrase(text, part));
  return present.length > 0 && present.every((part) => parts.has(part));
}

function wholePhrase(text: string, phrase: string): boolean {
  let from = 0;
  for (;;) {
    const at = text.indexOf(phrase, from);
    if (at < 0) return false;
    const before = text[at - 1];
    const after = text[at + phrase.length];
    if (!isWordChar(before) && !isWordChar(after)) return true;
    from = at + 1;
  }
}

function isWordChar(char: string | undefined): boolean {
  return char !== undefined && /[\p{L}\p{N}_]/u.test(char);
}

function trimPunctuation(word: string): string {
  return word.replace(/^[.@-]+|[.@-]+$/g, "");
}

function isName(word: string, ...lists: string[][]): boolean {
  const lower = word.toLowerCase();
  return lists.some((list) => list.some((name) => name.toLowerCase() === lower));
}
