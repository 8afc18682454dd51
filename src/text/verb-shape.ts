import { ENGLISH_STOPWORDS } from "./tokenizer.js";

/** Words that stand right after a subject: auxiliaries, and adverbs that come between it and its verb. */
const AFTER_SUBJECT = new Set([
  "is", "was", "are", "were", "has", "had", "have", "will", "would", "can", "could", "should", "may", "might", "must",
  "did", "does", "got", "went", "left", "took", "came", "just", "finally", "recently", "also", "now", "still",
  "already", "never", "officially", "actually", "eventually",
]);

/**
 * Whether an English word looks like the verb after a subject, by its shape alone: an auxiliary or
 * such an adverb, or a lower-case word ending in -s or -ed that is no function word ("moved", "lives",
 * "works"). A plural noun looks like one too ("sessions"); callers read it as a hint, not a parse.
 */
export function looksLikeVerb(word: string): boolean {
  if (!/^\p{Ll}/u.test(word)) return false;
  if (AFTER_SUBJECT.has(word)) return true;
  return !ENGLISH_STOPWORDS.has(word) && /(?:[^s']s|ed)$/u.test(word);
}
