import { z } from "zod";
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
  view: ViewNameSchema,
  query: z.string(),
  namespace: z.string(),
  round: z.number().int(),
  hits: z.array(z.object({ key: z.string(), score: z.number() })),
});
export type ViewHitList = z.infer<typeof ViewHitListSchema>;

/** Where a fused hit came from: every (view, query) list that ranked it. */
export const ProvenanceSchema = z.object({
  views: z.array(ViewNameSchema),
  subQueries: z.array(z.string()),
  ranks: z.array(z.object({ view: ViewNameSchema, query: z.string(), round: z.number().int(), rank: z.number().int(), score: z.number() })),
  fusedScore: z.number(),
});
export type Provenance = z.infer<typeof ProvenanceSchema>;

/** One entry of the fused ranking, with its fused score and provenance. */
export const FusedHitSchema = z.object({ key: z.string(), score: z.number(), provenance: ProvenanceSchema });
export type FusedHit = z.infer<typeof FusedHitSchema>;
