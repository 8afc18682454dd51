import { z } from "zod";
import { SourceSchema } from "../memory/entry.js";
import { ProvenanceSchema } from "./hits.js";

/** A returned memory: the entry (text cut to the content cap), its fused score and how it was found. */
export const RetrievalResultSchema = z.object({
  id: z.string(),
  namespace: z.string(),
  text: z.string(),
  timestamp: z.string(),
  persons: z.array(z.string()),
  speaker: z.string().optional(),
  entities: z.array(z.string()),
  location: z.string().optional(),
  topic: z.string().optional(),
  source: SourceSchema.optional(),
  validFrom: z.string().optional().describe("When what it says began to hold, when the memory says so"),
  validUntil: z.string().optional().describe("When what it says stopped holding, when the memory says so"),
  score: z.number().describe("Fused score (RRF), higher is better; after an own-words round two rankings take turns, so scores need not fall down the list"),
  rerankScore: z.number().optional().describe("The model's 0-10 score, when reranked"),
  provenance: ProvenanceSchema,
});
export type RetrievalResult = z.infer<typeof RetrievalResultSchema>;
