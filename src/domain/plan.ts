import { z } from "zod";
import { TimeRangeSchema } from "../time/types.js";

/** What the planner decided the question needs and how to look for it. */
export const PlanSchema = z.object({
  requiredInfo: z.array(z.string()).describe("Facets an answer must cover; reflection judges coverage against them"),
  subQueries: z.array(z.string()).min(1).describe("Minimal sub-queries; the question itself is always the first"),
  keywords: z.array(z.string()).describe("Words the lexical view adds to the question"),
  persons: z.array(z.string()).describe("People the question names: the symbolic view's conditions"),
  entities: z.array(z.string()).describe("Things the question names (products, codes, organisations)"),
  locations: z.array(z.string()).describe("Places the question names"),
  timeExpression: z.string().optional().describe("The question's time phrase, as written ('last week', 上周)"),
  timeWindow: TimeRangeSchema.optional().describe("The calendar window of the time phrase, read against the run's reference time"),
  planner: z
    .enum(["llm", "rules", "off"])
    .describe("Who planned: the model, the rules (no model, or the model failed), or nobody (planning off)"),
});
export type Plan = z.infer<typeof PlanSchema>;
