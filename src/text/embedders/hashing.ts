/**
 * A deterministic feature-hashing embedder for tests and large benchmarks. NOT a semantic model: it
 * knows that "hiking trip" and "hiked on a trip" share words, never that "dog" and "puppy" are near.
 *
 * Features: our index terms (`tokenize`: stems, whole identifiers, CJK words and bigrams), weighted
 * 1 + ln(tf), plus character trigrams of each non-stopword word (so "colour"/"color" and typos
 * overlap a little). Each feature lands in one of D dimensions by FNV-1a hash, with a hash-derived
 * sign so that collisions cancel rather than pile up. The two blocks are L2-normalised separately
 * and summed (terms weigh twice the trigrams), then the whole vector is L2-normalised, so cosine
 * similarity behaves like a blend of term overlap and spelling overlap. Costs microseconds per text.
 */
import { z } from "zod";
import { defineEmbedder, MAX_DIMENSION } from "./embedder-definition.js";
import { Embeddings } from "@langchain/core/embeddings";
import type { EmbeddingSpec } from "../embedder.js";
import type { Embedder } from "../embedder.js";
import { termIndex } from "../sparse.js";
import { ENGLISH_STOPWORDS, tokenize } from "../tokenizer.js";
import { checkedEmbedder } from "./checked.js";

export const HASH_EMBEDDER_MODEL = "hash-v1";
/** Same width as USE-lite, so benchmarks exercise the store with realistic vector sizes. */
export const HASH_DEFAULT_DIMENSION = 512;

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

/** The hashing embedder as LangChain embeddings. Synchronous work behind the async interface. */
export class HashingEmbeddings extends Embeddings {
  constructor(readonly dimension: number = HASH_DEFAULT_DIMENSION) {
    super({ maxRetries: 0 });
    if (!Number.isInteger(dimension) || dimension < 1) throw new RangeError(`dimension must be a positive integer, got ${dimension}`);
  }

  override async embedDocuments(documents: string[]): Promise<number[][]> {
    return documents.map((document) => hashEmbed(document, this.dimension));
  }

  override async embedQuery(document: string): Promise<number[]> {
    return hashEmbed(document, this.dimension);
  }
}

export function hashEmbedderSpec(dimension: number = HASH_DEFAULT_DIMENSION): EmbeddingSpec {
  return { model: HASH_EMBEDDER_MODEL, dimension };
}

/** Trusted for every script: it sees the same tokens the lexical view does, CJK included. */
export function createHashEmbedder(options: { dimension?: number } = {}): Embedder {
  const dimension = options.dimension ?? HASH_DEFAULT_DIMENSION;
  return checkedEmbedder(new HashingEmbeddings(dimension), hashEmbedderSpec(dimension), () => true);
}

/** Feature hashing: deterministic and instant, for tests and benchmarks; not a semantic model. */
export const hashEmbedder = defineEmbedder({
  name: "hash",
  config: z.strictObject({
    provider: z.literal("hash"),
    dimension: z.number().int().min(1).max(MAX_DIMENSION).optional(),
  }),
  create: ({ dimension }) => createHashEmbedder(dimension === undefined ? {} : { dimension }),
  fromEnv: (_env, { dimensions }) => ({ provider: "hash" as const, dimension: dimensions ?? HASH_DEFAULT_DIMENSION }),
  built: (spec) => spec.model === HASH_EMBEDDER_MODEL,
  profile: {
    denseWeight: 0.1,
    basis: "not a semantic model: its cosine is term and spelling overlap, mostly what BM25 already votes for, so it only breaks ties",
  },
  flagsFor: (spec) =>
    spec.dimension === HASH_DEFAULT_DIMENSION ? "--embedder hash" : `--embedder hash with RECALLGRAPH_EMBEDDING_DIMENSIONS=${spec.dimension}`,
});
