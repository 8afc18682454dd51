/**
 * What is known about each kind of embedder, as data: how much the semantic view's RRF vote should
 * count against BM25's (weight 1). The retrieval settings take the semantic view's weight from here
 * unless a caller sets `viewWeights.semantic` itself, so a stronger embedder is weighed as strongly
 * without anyone re-tuning constants measured with another one.
 */
import { z } from "zod";
import type { EmbeddingSpec } from "../embedder.js";
import { HASH_EMBEDDER_MODEL } from "./hashing.js";
import { ONNX_MODEL_PREFIX } from "./onnx.js";
import { OPENAI_MODEL_PREFIX } from "./openai.js";
import { USE_LITE_SPEC, USE_LITE_TEXT_WORDS } from "./use-lite.js";

export const EmbedderProfileSchema = z.strictObject({
  denseWeight: z
    .number()
    .min(0)
    .max(10)
    .describe("RRF weight of the semantic view's vote, BM25's being 1: how far this embedder's nearest neighbours are evidence of relevance"),
  basis: z.string().min(1).describe("Where the number comes from: a measurement, or the published design it follows"),
  representsWords: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe(
      "The longest text, in words, the embedder represents as one; it embeds longer texts by their sentences, and ranked lists over such texts vote by their scores. Unset: no limit known",
    ),
});
export type EmbedderProfile = z.infer<typeof EmbedderProfileSchema>;

export const EMBEDDER_KINDS = ["use-lite", "hash", "onnx", "openai", "unknown"] as const;
export type EmbedderKind = (typeof EMBEDDER_KINDS)[number];

export const EMBEDDER_PROFILES = {
  "use-lite": {
    denseWeight: 0.3,
    basis:
      "measured: best semantic weight for full on LoCoMo (recall@10), and alone it is far behind BM25 on documents (SciFact nDCG@10 0.280 against 0.684, long texts embedded by their sentences)",
    representsWords: USE_LITE_TEXT_WORDS,
  },
  hash: {
    denseWeight: 0.1,
    basis: "not a semantic model: its cosine is term and spelling overlap, mostly what BM25 already votes for, so it only breaks ties",
  },
  onnx: {
    denseWeight: 1,
    basis:
      "not yet measured with this kind: the published hybrid chain's equal vote, as for openai (a retrieval-trained model such as all-MiniLM-L6-v2 run in process)",
  },
  openai: {
    denseWeight: 1,
    basis: "published hybrid chain: a retrieval-trained embedder votes as much as BM25 (plain RRF, equal weights)",
  },
  unknown: {
    denseWeight: 0.5,
    basis: "nothing is known: halfway between the weak offline embedder's measured weight and the published chain's equal vote",
  },
} as const satisfies Record<EmbedderKind, EmbedderProfile>;

/**
 * The kind of the embedder that built vectors of this spec. Any model behind an OpenAI-compatible
 * endpoint counts as `openai`: such endpoints serve retrieval-trained models (OpenAI's, BGE, E5, ...).
 */
export function embedderKindOf(spec: EmbeddingSpec): EmbedderKind {
  if (spec.model === USE_LITE_SPEC.model) return "use-lite";
  if (spec.model === HASH_EMBEDDER_MODEL) return "hash";
  if (spec.model.startsWith(ONNX_MODEL_PREFIX)) return "onnx";
  if (spec.model.startsWith(OPENAI_MODEL_PREFIX)) return "openai";
  return "unknown";
}

/** What is known about the embedder of this spec (the `unknown` profile for one recallgraph did not build). */
export function embedderProfileFor(spec: EmbeddingSpec): EmbedderProfile {
  return EMBEDDER_PROFILES[embedderKindOf(spec)];
}
