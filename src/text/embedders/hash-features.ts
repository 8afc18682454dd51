/**
 * The hashing embedder's features (see hashing.ts): our index terms and character trigrams, hashed
 * into D signed dimensions. Apart from the embedder's record so that listing the embedder kinds (the
 * command line's start) does not load the tokenizer.
 */
import { termIndex } from "../sparse.js";
import { ENGLISH_STOPWORDS, tokenize } from "../tokenizer.js";

const TRIGRAM_WEIGHT = 0.5;
const WORD = /[\p{L}\p{N}]+/gu;
// CJK text is already covered by the tokenizer's bigrams; trigrams of it would only add noise.
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
// A text with no features at all (empty, punctuation only) still needs a finite unit vector.
const EMPTY_TEXT_FEATURE = "\u0000empty";

function addFeature(vector: Float64Array, feature: string, weight: number): void {
  const hash = termIndex(feature);
  const sign = hash >>> 31 === 0 ? 1 : -1;
  vector[hash % vector.length] = (vector[hash % vector.length] ?? 0) + sign * weight;
}

function norm(vector: Float64Array): number {
  let sum = 0;
  for (const value of vector) sum += value * value;
  return Math.sqrt(sum);
}

/** The hashing embedding of one text: `dimension` finite numbers, unit length. */
export function hashEmbed(text: string, dimension: number): number[] {
  const terms = new Float64Array(dimension);
  const counts = new Map<string, number>();
  for (const token of tokenize(text)) counts.set(token, (counts.get(token) ?? 0) + 1);
  for (const [token, tf] of counts) addFeature(terms, `t:${token}`, 1 + Math.log(tf));

  const trigrams = new Float64Array(dimension);
  for (const [word] of text.normalize("NFKC").toLowerCase().matchAll(WORD)) {
    if (CJK.test(word) || ENGLISH_STOPWORDS.has(word)) continue;
    const padded = `<${word}>`;
    const chars = Array.from(padded);
    for (let i = 0; i + 3 <= chars.length; i++) addFeature(trigrams, `g:${chars.slice(i, i + 3).join("")}`, 1);
  }

  const termsNorm = norm(terms);
  const trigramsNorm = norm(trigrams);
  const combined = new Float64Array(dimension);
  for (let i = 0; i < dimension; i++) {
    combined[i] =
      (termsNorm > 0 ? (terms[i] ?? 0) / termsNorm : 0) + (trigramsNorm > 0 ? (TRIGRAM_WEIGHT * (trigrams[i] ?? 0)) / trigramsNorm : 0);
  }
  let total = norm(combined);
  if (total === 0) {
    // No features, or (vanishingly rare) features that cancelled out exactly.
    addFeature(combined, EMPTY_TEXT_FEATURE, 1);
    total = 1;
  }
  return Array.from(combined, (value) => value / total);
}
