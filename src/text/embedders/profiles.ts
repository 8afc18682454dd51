/**
 * What is known about each kind of embedder, as data: how much the semantic view's RRF vote should
 * count against BM25's (weight 1), and whether its dense lists must earn that vote by standing out.
 * The retrieval settings take both from here unless a caller sets them (`viewWeights.semantic`,
 * `denseSeparation`), so each embedder is weighed by what was measured with it, not with another.
 */
import { z } from "zod";
import type { EmbeddingSpec } from "../embedder.js";
import { HASH_EMBEDDER_MODEL } from "./hashing.js";
import { ONNX_MODEL_PREFIX } from "./onnx.js";
import { OPENAI_MODEL_PREFIX } from "./openai.js";
import { USE_LITE_SPEC, USE_LITE_TEXT_WORDS } from "./use-lite.js";

/** How a dense list's vote grows with its first score's separation (retrieval/list-evidence.ts). */
export const SeparationRampSchema = z
  .strictObject({
    from: z.number().min(0).max(100).describe("Separation (z-score of the first score) at or below which the list earns no vote"),
    to: z.number().min(0).max(100).describe("Separation at or above which the list earns its view's full vote; linear between"),
  })
  .refine((ramp) => ramp.to >= ramp.from, "to must be at least from")
  .describe("How a list's vote grows with the separation of its first score from the rest");
export type SeparationRamp = z.infer<typeof SeparationRampSchema>;

export const EmbedderProfileSchema = z.strictObject({
  denseWeight: z
    .number()
    .min(0)
    .max(10)
    .describe("RRF weight of the semantic view's vote, BM25's being 1: how far this embedder's nearest neighbours are evidence of relevance"),
  basis: z.string().min(1).describe("Where the numbers come from: a measurement, or the published design it follows"),
  denseSeparation: SeparationRampSchema.optional().describe(
    "The ramp a run configured with denseSeparation \"embedder\" (the knowledge-base preset) gives this embedder's dense lists: a weak embedder's first neighbour is evidence only where it stands clear of the rest. Unset: every list keeps its full vote",
  ),
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
    // Chosen on the first half of SciFact's training claims, checked on the second; the knowledge-base
    // preset scores 0.685 nDCG@10 with it and 0.666 without (README, "A knowledge base").
    denseSeparation: { from: 5, to: 7 },
  },
  hash: {
    denseWeight: 0.1,
    basis: "not a semantic model: its cosine is term and spelling overlap, mostly what BM25 already votes for, so it only breaks ties",
  },
  onnx: {
    denseWeight: 0.7,
    basis:
      "measured with all-MiniLM-L6-v2 (int8) on both development sets: semantic weights 0.3 / 0.5 / 0.7 / 1 / 2 give LoCoMo recall@10 0.766 / 0.768 / 0.768 / 0.767 / -, SciFact train nDCG@10 0.700 / 0.708 / 0.718 / 0.709 / 0.698; no separation ramp (the knowledge-base preset: 0.716 without, 0.712 with 2 / 4; 0.689 with 5 / 7 at weight 1)",
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
