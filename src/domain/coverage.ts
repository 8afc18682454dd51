import { z } from "zod";

/** What a hit must be to answer one of the rule judge's gap queries. */
export const GapConditionSchema = z.object({
  mentions: z.string().optional().describe('Words it must mention: the person a second hop asks about ("Bob Müller" for "Bob Müller city live")'),
  spokenBy: z.string().optional().describe("Whose words it must be: the speaker the question is about, asked again among their own words"),
});
export type GapCondition = z.infer<typeof GapConditionSchema>;

/** A judge's verdict on one round: how much of the plan the top results cover, and what to ask next. */
export const CoverageSchema = z.object({
  complete: z
    .boolean()
    .describe("Nothing is left to search for: the judge found nothing missing, or nothing it can ask about what is (missing and percent say what the top results lack)"),
  percent: z.number().describe("Share of the plan's facets the top results cover, 0-100"),
  missing: z.array(z.string()).describe("The plan's facets (names, words, needed facts) the top results lack"),
  gapQueries: z.array(z.string()).describe("Searches for the next round; empty when the run ends"),
  gapConditions: z
    .record(z.string(), GapConditionSchema)
    .optional()
    .describe("The rule judge's gap queries with their conditions; a model's gap queries are free text and have none"),
  judge: z.enum(["llm", "rules", "off"]).describe("Who judged: the model, the rules (no model, or the model failed), or nobody (reflection off)"),
});
export type Coverage = z.infer<typeof CoverageSchema>;
