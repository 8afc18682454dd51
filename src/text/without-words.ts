/** Characters with a meaning in a regular expression, escaped to match themselves. */
const REGEXP_SYNTAX = /[.*+?^${}()|[\]\\]/g;

/**
 * `text` with every whole occurrence of `words` blanked out, in any case and with a possessive "'s".
 * Longer words go first, so that a name goes whole before its parts. A word is whole where no letter
 * or digit touches it; in scripts written without spaces (Chinese, Thai) none is, and their words stay.
 */
export function withoutWords(text: string, words: readonly string[]): string {
  const longestFirst = [...new Set(words.filter((word) => word.trim().length > 0))].sort((a, b) => b.length - a.length);
  return longestFirst.reduce((rest, word) => rest.replace(wholeWord(word), " "), text);
}

function wholeWord(word: string): RegExp {
  return new RegExp(`(?<![\\p{L}\\p{N}])${word.replace(REGEXP_SYNTAX, "\\$&")}(?:['’]s)?(?![\\p{L}\\p{N}])`, "giu");
}
