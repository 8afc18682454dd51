import { z } from "zod";

/** What the planning model returns. Dates stay as the question words them: our time parser resolves them. */
export const PlanOutputSchema = z.object({
  requiredInfo: z.array(z.string()).max(8).describe("Facts an answer must contain"),
  subQueries: z.array(z.string().min(1)).max(8).describe("Minimal search queries, each for one needed fact"),
  keywords: z.array(z.string()).max(16).describe("Distinctive words of the question that evidence would also use"),
  persons: z.array(z.string()).max(8).describe("People the question names, as written"),
  entities: z.array(z.string()).max(8).describe("Products, organisations, codes, events, objects"),
  locations: z.array(z.string()).max(4).describe("Places the question names, as written"),
  timeExpression: z.string().nullable().describe("The time phrase exactly as written in the question, or null"),
});
export type PlanOutput = z.infer<typeof PlanOutputSchema>;

/** What the reflection model returns for one round. */
export const ReflectionOutputSchema = z.object({
  complete: z.boolean().describe("True when the results hold every fact the question needs"),
  coveragePercent: z.number().min(0).max(100).describe("How much of what the question needs the results hold, 0-100"),
  missing: z.array(z.string()).max(8).describe("The needed facts the results do not hold"),
  gapQueries: z.array(z.string().min(1)).max(3).describe("1-3 queries that would find what is missing"),
});
export type ReflectionOutput = z.infer<typeof ReflectionOutputSchema>;

/** What the rerank model returns: a 0-10 relevance score per numbered passage. */
export const RerankOutputSchema = z.object({
  scores: z
    .array(
      z.object({
        index: z.number().int().min(0).describe("The passage's number, as shown"),
        score: z.number().min(0).max(10).describe("How well the passage answers the question, 0 (not at all) to 10 (fully)"),
      }),
    )
    .describe("One score per passage"),
});
export type RerankOutput = z.infer<typeof RerankOutputSchema>;
