import { z } from "zod";
import type { MemoryEntry } from "../memory/entry.js";
import { ViewNameSchema } from "./views.js";

/** A hit's address: entries are unique per namespace, not across namespaces. */
export function hitKey(namespace: string, id: string): string {
  return `${namespace}\u001f${id}`;
}

/** The namespace and id of a hit key. */
export function splitHitKey(key: string): [namespace: string, id: string] {
  const at = key.indexOf("\u001f");
  return [key.slice(0, at), key.slice(at + 1)];
}

/** One ranked list produced by one view for one query in one namespace and round. */
export const ViewHitListSchema = z.object({
  view: ViewNameSchema.describe("The view that searched"),
  query: z.string().describe("What it searched for"),
  namespace: z.string().describe("Where it searched"),
  round: z.number().int().describe("0: the question's own round; 1 and on: reflection rounds"),
  hits: z
    .array(z.object({ key: z.string().describe("namespace and id of the entry"), score: z.number().describe("The view's own score") }))
    .describe("Best first"),
  voteMinScore: z.number().optional().describe("Hits scoring under this were found but cast no vote in the fusion; absent, every hit votes"),
});
export type ViewHitList = z.infer<typeof ViewHitListSchema>;

/** Why a memory is not current at the time asked about. */
export const HistoryReasonSchema = z.enum(["superseded", "validity ended", "not yet valid"]);
export type HistoryReason = z.infer<typeof HistoryReasonSchema>;

/** Where a fused hit came from: every (view, query) list that ranked it, and how it stands in time. */
export const ProvenanceSchema = z.object({
  views: z.array(ViewNameSchema).describe("The views that found it"),
  subQueries: z.array(z.string()).describe("The queries that found it"),
  ranks: z
    .array(
      z.object({
        view: ViewNameSchema,
        query: z.string(),
        round: z.number().int().describe("0: the question's own round; 1 and on: reflection rounds"),
        rank: z.number().int().describe("Its place in that list, from 1"),
        score: z.number().describe("The view's own score (cosine, BM25, ...)"),
      }),
    )
    .describe("Each list it was in: view, query, round, rank and the view's score"),
  fusedScore: z.number().describe("Its score after fusion"),
  supersededBy: z
    .array(z.string())
    .optional()
    .describe("Ids of the memories of its namespace that supersede this one (said by asOf, when asked as of a time), newest first"),
  supersedes: z.array(z.string()).optional().describe("Ids of the stored memories of its namespace this one supersedes"),
  supersessionReason: z
    .string()
    .optional()
    .describe("Why the supersession was recorded, as its writer said: this memory's own reason when it supersedes others, else its newest superseder's"),
  conflictsWith: z
    .array(z.string())
    .optional()
    .describe(
      "Ids of other memories of this answer, same namespace and speaker, that state another value for the same attribute (or what this one denies) with no supersession between them: nothing says which holds, so ask",
    ),
  history: HistoryReasonSchema.optional().describe(
    "Why this memory is history at the time asked about (asOf, else the reference time): superseded, its validUntil passed, or its validFrom not reached. Absent: current",
  ),
  broughtInFor: z
    .string()
    .optional()
    .describe("Set when no view found this memory: the id of the answer's memory it supersedes or is superseded by, which brought it in"),
});
export type Provenance = z.infer<typeof ProvenanceSchema>;

/** One entry of the fused ranking, with its fused score and provenance. */
export const FusedHitSchema = z.object({
  key: z.string().describe("namespace and id of the entry"),
  score: z.number().describe("The fused score"),
  provenance: ProvenanceSchema.describe("How it was found"),
});
export type FusedHit = z.infer<typeof FusedHitSchema>;

/**
 * A fused hit with its entry as the store holds it, and the model's score once a rerank gave one: the
 * one shape of a hit in finalize, from the rerank through the re-check and the supersession order to
 * the result.
 *
 * Fusion works on keys, not on this: view lists and the fused ranking live in the state, which is
 * serialisable and holds each entry once, by key (an entry in every list of every round would be
 * copied into every checkpoint), and the entry that counts for the answer is the store's re-read, which
 * may differ from what the views saw. The public RetrievalResult is a shape of its own (the entry's
 * fields flattened, its text cut to the content cap).
 */
export interface AnswerHit {
  hit: FusedHit;
  entry: MemoryEntry;
  rerankScore?: number | undefined;
}
