/**
 * Sparse (BM25) vectors for Qdrant: a document weighs each term by its saturated term frequency, a
 * query each distinct term by its idf in the searched namespace (counted by the store, not by Qdrant,
 * whose `idf` modifier counts the whole collection). The plain dot product is then BM25.
 * Terms come from `lexicalTerms`, so Chinese, identifiers and our stemming work the same as in sqlite.
 */
import { z } from "zod";
import { BM25_B, BM25_K1, saturatedFrequency } from "./bm25.js";

/** A sparse vector as Qdrant takes it: parallel arrays, indices ascending and unique. */
export interface SparseVector {
  indices: number[];
  values: number[];
}

const UINT32_MAX = 0xffff_ffff;

export const SparseVectorSchema = z
  .strictObject({
    indices: z.array(z.number().int().min(0).max(UINT32_MAX)).describe("Term ids (hashes of the terms), ascending and unique"),
    values: z.array(z.number().finite()).describe("Each term's weight, in the order of indices"),
  })
  .refine((vector) => vector.indices.length === vector.values.length, {
    message: "indices and values must have the same length",
    path: ["values"],
  })
  .refine((vector) => vector.indices.every((index, i) => i === 0 || index > (vector.indices[i - 1] ?? -1)), {
    message: "indices must be strictly ascending",
    path: ["indices"],
  });

/**
 * Average document length in tokens that lengths are normalised against: a constant, since a stored
 * vector's weights are fixed when it is written (so no other namespace's writes move them either).
 * Measured with our tokenizer on the 5,882 LoCoMo turns as the rule builder stores them: the lexical
 * document (`lexicalDocument`: text plus keywords, persons, entities...) averages 45.3 tokens (median
 * 43, p90 70; the text alone 14.1), hence 48. Roughly right is enough: it keeps Qdrant's ranking
 * close to sqlite's, which normalises against the namespace's true average; pass `avgDocLength` for
 * corpora of longer documents.
 */
export const DEFAULT_AVG_DOC_LENGTH = 48;

export interface SparseEncodingOptions {
  k1?: number;
  b?: number;
  avgDocLength?: number;
}

/**
 * The sparse index of a term: FNV-1a 32-bit over its UTF-8 bytes. Stable across processes, versions
 * and languages (any FNV-1a implementation over UTF-8 agrees), so vectors written today match
 * queries encoded tomorrow. Collisions are accepted: with 2^32 slots, a vocabulary of a million terms
 * has about a hundred colliding pairs, each of which merely merges two rare terms' statistics.
 */
export function termIndex(term: string): number {
  let hash = 0x811c9dc5;
  const mix = (byte: number): void => {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193);
  };
  for (const char of term) {
    const code = char.codePointAt(0) ?? 0;
    if (code < 0x80) mix(code);
    else if (code < 0x800) {
      mix(0xc0 | (code >> 6));
      mix(0x80 | (code & 0x3f));
    } else if (code < 0x10000) {
      mix(0xe0 | (code >> 12));
      mix(0x80 | ((code >> 6) & 0x3f));
      mix(0x80 | (code & 0x3f));
    } else {
      mix(0xf0 | (code >> 18));
      mix(0x80 | ((code >> 12) & 0x3f));
      mix(0x80 | ((code >> 6) & 0x3f));
      mix(0x80 | (code & 0x3f));
    }
  }
  return hash >>> 0;
}

function termCounts(tokens: readonly string[]): Map<number, number> {
  const counts = new Map<number, number>();
  for (const token of tokens) {
    const index = termIndex(token);
    counts.set(index, (counts.get(index) ?? 0) + 1);
  }
  return counts;
}

function toSparseVector(weights: ReadonlyMap<number, number>): SparseVector {
  const indices = [...weights.keys()].sort((a, b) => a - b);
  return { indices, values: indices.map((index) => weights.get(index) ?? 0) };
}

function positiveOption(name: string, value: number | undefined, fallback: number, allowZero: boolean): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < 0 || (!allowZero && value === 0)) {
    throw new RangeError(`${name} must be a ${allowZero ? "non-negative" : "positive"} finite number, got ${value}`);
  }
  return value;
}

/**
 * The document side: one entry per distinct term (hash), weighted
 * `tf * (k1 + 1) / (tf + k1 * (1 - b + b * length / avgDocLength))` with `length` the token count.
 * Tokens are the output of `lexicalTerms`. An empty token list gives an empty vector.
 */
export function encodeSparse(tokens: readonly string[], options: SparseEncodingOptions = {}): SparseVector {
  const k1 = positiveOption("k1", options.k1, BM25_K1, true);
  const b = positiveOption("b", options.b, BM25_B, true);
  if (b > 1) throw new RangeError(`b must be between 0 and 1, got ${b}`);
  const avgDocLength = positiveOption("avgDocLength", options.avgDocLength, DEFAULT_AVG_DOC_LENGTH, false);
  const weights = termCounts(tokens);
  for (const [index, tf] of weights) weights.set(index, saturatedFrequency(tf, tokens.length, avgDocLength, k1, b));
  return toSparseVector(weights);
}

/** The distinct term indices of a query's tokens, ascending: the terms whose idf a search counts. */
export function queryTermIndices(tokens: readonly string[]): number[] {
  return toSparseVector(termCounts(tokens)).indices;
}

/** The query side: each term weighted by its idf, so the dot product with a document vector is its BM25 score. */
export function encodeSparseQuery(idfByTerm: ReadonlyMap<number, number>): SparseVector {
  return toSparseVector(idfByTerm);
}
