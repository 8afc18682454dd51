import { z } from "zod";
import { TimeRangeSchema } from "../time/types.js";

/** What the planner decided the question needs and how to look for it. */
export const PlanSchema = z.object({
  /** Facets an answer must cover (reflection judges coverage against these). */
  requiredInfo: z.array(z.string()),
  /** Minimal sub-queries; the original question is always the first. */
  subQueries: z.array(z.string()).min(1),
  keywords: z.array(z.string()),
  persons: z.array(z.string()),
  entities: z.array(z.string()),
  locations: z.array(z.string()),
  timeExpression: z.string().optional(),
  /** The calendar window of the time expression, resolved against the run's reference time. */
  timeWindow: TimeRangeSchema.optional(),
  /** Who planned: the model, the rules (no model, or the model failed), or nobody ("off", as the judge says when reflection is off). */
  planner: z.enum(["llm", "rules", "off"]),
});
export type Plan = z.infer<typeof PlanSchema>;
