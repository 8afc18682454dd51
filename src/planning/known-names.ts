import { ENGLISH_STOPWORDS } from "../text/tokenizer.js";

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
export function nameParts(name: string): string[] {
  return name
    .toLowerCase()
    .split(/[\s-]+/)
    .filter((part) => part.length >= 3 && /^\p{L}+$/u.test(part) && !ENGLISH_STOPWORDS.has(part));
}

/** True when `name` is not in the question whole and every part of it the question has is one of `parts`. */
export function foundOnlyThrough(question: string, name: string, parts: ReadonlySet<string>): boolean {
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

export function isName(word: string, ...lists: string[][]): boolean {
  const lower = word.toLowerCase();
  return lists.some((list) => list.some((name) => name.toLowerCase() === lower));
}
