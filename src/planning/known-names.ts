import { ENGLISH_STOPWORDS } from "../text/tokenizer.js";
import { withoutWords } from "../text/without-words.js";

/**
 * Known names the question mentions: a whole-word, case-insensitive match of the name, or of one of
 * its parts (see nameParts: "Alice" finds "Alice Chen"), in any case or, with `parts: "capitalized"`,
 * only where the question capitalises it. CJK names match as substrings. Codes with digits match only
 * whole, so ERR_1024 never finds ERR_2048.
 *
 * With `parts: "capitalized"` (things and places), the capital must also be the question's own: a
 * one-word name is found only where the question writes it with a capital, and a word opening a
 * sentence is capitalised by its position, not because it names something. Without this, a
 * store whose rules took title words for names ("Cells", "Stress", "Adult Mice") turned the ordinary
 * words of almost every claim into symbolic conditions (723 of SciFact's 809 training claims), whose
 * votes only reordered what BM25 had already ranked on the same words.
 */
export function namesMentioned(
  question: string,
  known: readonly string[],
  options: { parts?: "any-case" | "capitalized" } = {},
): string[] {
  const text = question.toLowerCase();
  const capitalized = options.parts === "capitalized";
  const written = writtenWords(question);
  const partWords = capitalized ? written.filter(({ word, opensSentence }) => /^\p{Lu}/u.test(word) && !opensSentence) : written;
  const words = new Set(partWords.map(({ word }) => word.toLowerCase()));
  const found: string[] = [];
  for (const name of known) {
    const lower = name.toLowerCase();
    if (/\p{Script=Han}|\p{Script=Hiragana}|\p{Script=Katakana}/u.test(name)) {
      if (text.includes(lower)) found.push(name);
      continue;
    }
    if (capitalized ? writtenAsName(question, name) : wholePhrase(text, lower)) {
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
export function nameParts(name: string): string[] {
  return name
    .toLowerCase()
    .split(/[\s-]+/)
    .filter((part) => part.length >= 3 && /^\p{L}+$/u.test(part) && !ENGLISH_STOPWORDS.has(part));
}

/**
 * What a query is embedded as: without the persons the plan asks about, unless nothing else is left. A
 * name is matched exactly where it can be (a speaker's name is indexed with their words, the symbolic
 * view's conditions, the own-words round), while in a vector it pulls toward every memory that mentions
 * the person, whatever it says, and the rest of the question weighs less.
 */
export function vectorQueryOf(query: string, persons: readonly string[]): string {
  if (persons.length === 0) return query;
  const rest = withoutNames(query, persons);
  return rest.trim() ? rest : query;
}

/** `text` without the names, each whole and by its parts (nameParts): "Alice Chen", then "Alice" and "Chen" alone. */
export function withoutNames(text: string, names: readonly string[]): string {
  return withoutWords(text, names.flatMap((name) => [name, ...nameParts(name)]));
}

/** True when `name` is not in the question whole and every part of it the question has is one of `parts`. */
export function foundOnlyThrough(question: string, name: string, parts: ReadonlySet<string>): boolean {
  const text = question.toLowerCase();
  if (wholePhrase(text, name.toLowerCase())) return false;
  const present = nameParts(name).filter((part) => wholePhrase(text, part));
  return present.length > 0 && present.every((part) => parts.has(part));
}

interface WrittenWord {
  word: string;
  /** First word of the question or of a sentence in it: capitalised by position. */
  opensSentence: boolean;
}

function writtenWords(question: string): WrittenWord[] {
  return [...question.matchAll(/[\p{L}\p{N}_.@-]+/gu)]
    .map((match) => ({ word: trimPunctuation(match[0]), opensSentence: opensSentence(question, match.index) }))
    .filter(({ word }) => word.length > 0);
}

/** True when only spaces, quotes or brackets stand between `at` and the question's start or a sentence's end. */
function opensSentence(question: string, at: number): boolean {
  return /(?:^|[.!?。！？]\s)[\s"'“‘(\[]*$/u.test(question.slice(0, at));
}

/**
 * `name` whole in the question, written as a name. A one-word name whose case is all that sets it
 * apart from an ordinary word counts only where the question writes that case: a capitalised word
 * ("Cells", "Boston") with a capital that is not a sentence's first, a word in capitals ("RESULTS",
 * "DNA": a heading or an acronym) in capitals. Names of several words ("new york"), codes and
 * quantities are not ordinary words spelled another way: they match in any case, as before.
 */
function writtenAsName(question: string, name: string): boolean {
  const text = question.toLowerCase();
  const lower = name.toLowerCase();
  const titleWord = /^\p{Lu}\p{Ll}+$/u.test(name);
  const capitals = /^\p{Lu}{2,}s?$/u.test(name);
  if (!titleWord && !capitals) return wholePhrase(text, lower);
  for (let from = 0; ; ) {
    const at = text.indexOf(lower, from);
    if (at < 0) return false;
    from = at + 1;
    if (isWordChar(text[at - 1]) || isWordChar(text[at + lower.length])) continue;
    const written = question.slice(at, at + name.length);
    if (capitals ? written === name : /^\p{Lu}/u.test(written) && !opensSentence(question, at)) return true;
  }
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

export function isName(word: string, ...lists: string[][]): boolean {
  const lower = word.toLowerCase();
  return lists.some((list) => list.some((name) => name.toLowerCase() === lower));
}
