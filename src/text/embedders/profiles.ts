/**
 * What is known about each kind of embedder, as data (each kind's record in the registry holds its own): how much the semantic view's RRF vote should
 * count against BM25's (weight 1), and whether its dense lists must earn that vote by standing out.
 * The retrieval settings take both from here unless a caller sets them (`viewWeights.semantic`,
 * `denseSeparation`), so each embedder is weighed by what was measured with it, not with another.
 */
import { z } from "zod";
import type { EmbeddingSpec } from "../embedder.js";
import { EMBEDDERS, type EmbedderKindName, type EmbedderRegistry } from "./registry.js";

/** How a dense list's vote grows with its first score's separation (retrieval/list-evidence.ts). */
export const SeparationRampSchema = z
  .strictObject({
    from: z.number().min(0).max(100).describe("Separation (z-score of the first score) at or below which the list earns no vote"),
    to: z.number().min(0).max(100).describe("Separation at or above which the list earns its view's full vote; linear between"),
  })
  .refine((ramp) => ramp.to >= ramp.from, "to must be at least from")
  .describe("How a list's vote grows with the separation of its first score from the rest");
export type SeparationRamp = z.infer<typeof SeparationRampSchema>;

/** How much of its vote a BM25 list keeps, from the separation of its first score (retrieval/list-evidence.ts). */
export const LexicalYieldSchema = z
  .strictObject({
    ramp: SeparationRampSchema.describe("Separation at or below which the list keeps only `kept`, at or above which it keeps its whole vote; linear between"),
    kept: z.number().min(0).max(1).describe("Share of its vote a list keeps however little its first score stands out"),
  })
  .describe("How much of its vote a BM25 list whose first score does not stand out keeps");
export type LexicalYield = z.infer<typeof LexicalYieldSchema>;

export const EmbedderProfileSchema = z.strictObject({
  denseWeight: z
    .number()
    .min(0)
    .max(10)
    .describe("RRF weight of the semantic view's vote, BM25's being 1: how far this embedder's nearest neighbours are evidence of relevance"),
  denseWeightWithoutNames: z
    .number()
    .min(0)
    .max(10)
    .optional()
    .describe(
      "The same for a question over a conversation that names no person. A name the question asks by is a word of the lexical index (a message's speaker and persons are indexed with its text) and a condition of the symbolic view, never part of a message's vector; without one, what is left to match is what was meant, in other words. Documents keep denseWeight: they share their rare terms with the questions about them. Unset: denseWeight",
    ),
  basis: z.string().min(1).describe("Where the numbers come from: a measurement, or the published design it follows"),
  denseSeparation: SeparationRampSchema.optional().describe(
    "The ramp a run configured with denseSeparation \"embedder\" (the knowledge-base preset) gives this embedder's dense lists: a weak embedder's first neighbour is evidence only where it stands clear of the rest. Unset: every list keeps its full vote",
  ),
  lexicalYield: LexicalYieldSchema.optional().describe(
    "How much of its vote a BM25 list keeps where its first score does not stand out from the rest: the question's words matched alike by many memories (a speaker's name, common words), so its order says little, and an embedder trained for retrieval decides between them better. Unset: every BM25 list keeps its whole vote (a weak embedder's list is no better a judge)",
  ),
  clauseQueries: z
    .boolean()
    .optional()
    .describe(
      "Whether a question planned by rules is also searched by its clauses (each of several questions asked at once, each part between semicolons), every clause a query of the semantic view. Pays where the embedder blurs a long question's parts into one vector; where it represents the question whole, a chatty clause's neighbours (\"Give me the next move.\") vote like the question's own. Unset: the question is searched whole",
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

/** The kinds of the registry (registry.ts), and `unknown` for an embedder recallgraph did not build. */
export type EmbedderKind = EmbedderKindName | "unknown";
export const EMBEDDER_KINDS: readonly EmbedderKind[] = [...EMBEDDERS.map((kind) => kind.name), "unknown"];

const UNKNOWN_PROFILE: EmbedderProfile = {
  denseWeight: 0.5,
  basis: "nothing is known: halfway between the weak offline embedder's measured weight and the published chain's equal vote",
};

/** Each kind's profile (each kind's own record holds it), and the `unknown` one. */
export const EMBEDDER_PROFILES = Object.fromEntries([...EMBEDDERS.map((kind) => [kind.name, kind.profile]), ["unknown", UNKNOWN_PROFILE]]) as Readonly<
  Record<EmbedderKind, EmbedderProfile>
>;

/** The kind of the embedder that built vectors of this spec, among `kinds` (default the registered ones). */
export function embedderKindOf(spec: EmbeddingSpec, kinds: EmbedderRegistry = EMBEDDERS): string {
  return kinds.find((kind) => kind.built(spec))?.name ?? "unknown";
}

/** What is known about the embedder of this spec (the `unknown` profile for one recallgraph did not build). */
export function embedderProfileFor(spec: EmbeddingSpec, kinds: EmbedderRegistry = EMBEDDERS): EmbedderProfile {
  return kinds.find((kind) => kind.built(spec))?.profile ?? UNKNOWN_PROFILE;
}
