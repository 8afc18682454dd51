import { z } from "zod";
import { SourceSchema } from "../memory/entry.js";
import { ProvenanceSchema } from "./hits.js";

/** A returned memory: the entry (text cut to the content cap), its fused score and how it was found. */
export const RetrievalResultSchema = z.object({
  id: z.string().describe("The memory's id in its namespace"),
  namespace: z.string().describe("The namespace it was found in"),
  text: z.string().describe("Its text, cut to the run's content cap"),
  timestamp: z.string().describe("When it happened or was said, ISO 8601"),
  persons: z.array(z.string()).describe("Who it involves"),
  speaker: z.string().optional().describe("Who said or wrote it"),
  entities: z.array(z.string()).describe("What it names"),
  location: z.string().optional().describe("Where it happened"),
  topic: z.string().optional().describe("What it is about"),
  source: SourceSchema.optional().describe("Where it came from: a document chunk or dialogue turns"),
  validFrom: z.string().optional().describe("When what it says began to hold, when the memory says so"),
  validUntil: z.string().optional().describe("When what it says stopped holding, when the memory says so"),
  score: z.number().describe("Fused score (RRF), higher is better; after an own-words round two rankings take turns, so scores need not fall down the list"),
  rerankScore: z.number().optional().describe("The model's 0-10 score, when reranked"),
  provenance: ProvenanceSchema.describe("How it was found: by which views and queries, at which ranks"),
});
export type RetrievalResult = z.infer<typeof RetrievalResultSchema>;
