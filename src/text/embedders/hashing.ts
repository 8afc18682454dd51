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
import { ValidationError } from "../../core/errors.js";
import { z } from "zod";
import { defineEmbedder, MAX_DIMENSION } from "./embedder-definition.js";
import { Embeddings } from "@langchain/core/embeddings";
import type { EmbeddingSpec } from "../embedder.js";
import type { Embedder } from "../embedder.js";
import { checkedEmbedder } from "./checked.js";

export const HASH_EMBEDDER_MODEL = "hash-v1";
/** Same width as USE-lite, so benchmarks exercise the store with realistic vector sizes. */
export const HASH_DEFAULT_DIMENSION = 512;

/** The hashing embedder as LangChain embeddings. Synchronous work behind the async interface. */
export class HashingEmbeddings extends Embeddings {
  constructor(readonly dimension: number = HASH_DEFAULT_DIMENSION) {
    super({ maxRetries: 0 });
    if (!Number.isInteger(dimension) || dimension < 1) throw new ValidationError("dimension", `must be a positive integer, got ${dimension}`);
  }

  override async embedDocuments(documents: string[]): Promise<number[][]> {
    const { hashEmbed } = await import("./hash-features.js");
    return documents.map((document) => hashEmbed(document, this.dimension));
  }

  override async embedQuery(document: string): Promise<number[]> {
    const { hashEmbed } = await import("./hash-features.js");
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
