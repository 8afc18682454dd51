import { RecentMap } from "../core/recent-map.js";

/** Characters with a meaning in a regular expression. */
const REGEXP_SYNTAX = /[.*+?^${}()|[\]\\]/g;

/** `text` escaped to match itself in a regular expression. */
export function escapeRegExp(text: string): string {
  return text.replace(REGEXP_SYNTAX, "\\$&");
}

/** Compiled patterns kept, by word list: a question's names recur across its views and rounds. */
const PATTERNS = new RecentMap<string, RegExp>(256);

/**
 * `text` with every whole occurrence of `words` blanked out, in any case and with a possessive "'s".
 * Longer words are tried first, so that a name goes whole before its parts. A word is whole where no
 * letter or digit touches it; in scripts written without spaces (Chinese, Thai) none is, and their
 * words stay.
 */
export function withoutWords(text: string, words: readonly string[]): string {
  const longestFirst = [...new Set(words.filter((word) => word.trim().length > 0))].sort((a, b) => b.length - a.length);
  return longestFirst.length === 0 ? text : text.replace(wholeWords(longestFirst), " ");
}

/** One pass for all the words (an alternation tries them in order); `replace` restarts a shared global pattern. */
function wholeWords(longestFirst: readonly string[]): RegExp {
  const key = longestFirst.join("\u0000");
  const known = PATTERNS.get(key);
  if (known !== undefined) return known;
  const alternatives = longestFirst.map(escapeRegExp).join("|");
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}])(?:${alternatives})(?:['’]s)?(?![\\p{L}\\p{N}])`, "giu");
  PATTERNS.set(key, pattern);
  return pattern;
}
