/**
 * The BM25 arithmetic every store's lexical view shares: one definition, so sqlite (in memory or from
 * FTS5's candidates) and Qdrant score a term the same way.
 *
 * Statistics are always one namespace's: N its entries, n those holding the term, avgdl its entries'
 * average length. Counting them over a whole file or collection would let one namespace's writes move
 * another's scores, and let a caller learn which words someone else stored by scoring guesses.
 */

/** Term-frequency saturation: how fast repeated occurrences stop adding weight. */
export const BM25_K1 = 1.2;
/** Length normalisation strength. */
export const BM25_B = 0.75;
/** The least idf a matching term keeps, so a word in most entries still ranks a row above one without it. */
const IDF_FLOOR = 1e-6;

/** One namespace's counts that idf and length normalisation read. */
export interface Bm25Statistics {
  /** Entries in the namespace. */
  rows: number;
  /** Their lengths added up, in tokens. */
  tokens: number;
}

/** idf = ln((N - n + 0.5) / (n + 0.5)), floored: a term in over half the namespace weighs almost nothing. */
export function inverseDocumentFrequency(rows: number, holding: number): number {
  const idf = Math.log((rows - holding + 0.5) / (holding + 0.5));
  return idf > IDF_FLOOR ? idf : IDF_FLOOR;
}

/** One term's weight in one entry before idf: f x (k1 + 1) / (f + k1 x (1 - b + b x D / avgdl)). */
export function saturatedFrequency(frequency: number, length: number, averageLength: number, k1 = BM25_K1, b = BM25_B): number {
  return (frequency * (k1 + 1)) / (frequency + k1 * (1 - b + (b * length) / averageLength));
}
