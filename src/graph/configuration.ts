import type { RunnableConfig } from "@langchain/core/runnables";
import { z } from "zod";
import { parseOrThrow } from "../core/errors.js";
import { VIEW_NAMES, ViewNameSchema } from "../domain/views.js";
import { SeparationRampSchema } from "../text/embedders/profiles.js";
import { described } from "./channels.js";
import { PRESET_NAMES } from "./preset-names.js";
import { RETRIEVAL_PRESETS } from "./presets.js";


/**
 * Everything a run can tune, read from `config.configurable` (so LangGraph Studio shows and edits it).
 * Defaults are the numbers measured best on conversations offline (see the README's Results); a
 * preset (presets.ts) changes several at once.
 */
const ConfigurableSchema = z.object({
  preset: z.enum(PRESET_NAMES).default("full").describe("Named recipe applied before the other fields"),
  views: z.array(ViewNameSchema).min(1).default([...VIEW_NAMES]).describe("Which views recall"),
  semanticTopK: z.number().int().min(1).max(1000).default(25).describe("Dense hits per sub-query"),
  lexicalTopK: z.number().int().min(1).max(1000).default(25).describe("BM25 hits per query"),
  symbolicTopK: z.number().int().min(1).max(1000).default(5).describe("Metadata/time-filter hits"),
  finalK: z.number().int().min(1).max(1000).default(10).describe("Results returned"),
  maxSubQueries: z.number().int().min(1).max(8).default(4).describe("Sub-queries per plan, the question included"),
  maxReflectionRounds: z.number().int().min(0).max(5).default(2).describe("Extra search rounds for gaps"),
  maxGapQueries: z.number().int().min(1).max(3).default(3).describe("Gap queries per reflection round"),
  fusion: z.enum(["rrf", "union"]).default("rrf").describe("rrf: Reciprocal Rank Fusion; union: first-seen order"),
  rrfK: z.number().min(1).max(1000).default(20).describe("RRF constant k (smaller keeps a strong view's top order)"),
  reflectionRoundWeight: z
    .number()
    .min(0)
    .max(1)
    .default(0.5)
    .describe("RRF weight of a reflection round's lists relative to the round before (gap queries are weaker evidence than the question)"),
  viewWeights: z
    .object({
      semantic: z
        .number()
        .min(0)
        .max(10)
        .optional()
        .describe("Unset: the embedder's profile says (text/embedders/profiles.ts: 0.3 for the offline USE-lite, 0.7 for an ONNX model in process, 1 for OpenAI-compatible models)"),
      lexical: z.number().min(0).max(10).default(1),
      symbolic: z.number().min(0).max(10).default(0.3),
    })
    .default({ lexical: 1, symbolic: 0.3 })
    .describe("Per-view RRF weights; the semantic view's follows the embedder unless set here"),
  // Off by default: on conversations the dense view earns its weight even where its first hit does
  // not stand out (LoCoMo's multi-hop and open-domain questions lost recall with any ramp tried).
  // "embedder": the ramp the embedder's profile gives, since a ramp that helps a weak embedder costs a
  // retrieval-trained one (text/embedders/profiles.ts).
  denseSeparation: z
    .union([SeparationRampSchema, z.literal("embedder")])
    .default({ from: 0, to: 0 })
    .describe(
      "How much of its weight a dense list earns for a query, from how far its first score stands out from the rest of the list (z-score); from = to = 0 always gives the full weight; \"embedder\": the ramp the embedder's profile gives (none for a retrieval-trained one)",
    ),
  timeWindowWeight: z
    .number()
    .min(0)
    .max(10)
    .default(1)
    .describe("RRF weight of the symbolic view when the plan has a time window, the one condition no other view can check"),
  // Chosen on LoCoMo's first half, checked on the second (README, "Evidence recall on LoCoMo").
  contextVotes: z
    .object({
      ranking: z.number().min(0).max(1).default(0.05).describe("Share of a neighbour's vote a hit of the answer gains (0: the fused order stands)"),
      wordsReading: z
        .number()
        .min(0)
        .max(1)
        .default(0.5)
        .describe("The same in the ranking before an own-words round, where a question that named the wrong speaker finds what the other said around the named one's words"),
      windowMs: z
        .number()
        .int()
        .min(0)
        .max(86_400_000)
        .default(2000)
        .describe("Memories of one namespace at most this far apart in time are neighbours (the LoCoMo loader spaces a session's turns one second apart: 2000 is two turns either side; 0 is only memories said at the same moment)"),
    })
    .default({ ranking: 0.05, wordsReading: 0.5, windowMs: 2000 })
    .describe("Votes a hit lends the memories said around it (ranks only: retrieval/context-votes.ts)"),
  readingTurns: z
    .number()
    .int()
    .min(2)
    .max(10)
    .default(3)
    .describe("After an own-words round, the ranking before it (the question's words, whoever said them) takes one place in every this many; 2: equal turns"),
  denseMinScore: z.number().min(-1).max(1).default(0).describe("Absolute cosine threshold for dense hits"),
  lexicalMinRelative: z.number().min(0).max(1).default(0).describe("Drop BM25 hits below best score x this"),
  planning: z.boolean().default(true).describe("Plan the question (LLM or rules)"),
  reflection: z.boolean().default(true).describe("Check coverage and search again for gaps"),
  rerank: z.boolean().default(false).describe("LLM rerank of the final hits (needs a model)"),
  contentCap: z.number().int().min(50).max(100_000).default(800).describe("Characters of text returned per hit"),
  timeZone: z.string().default("UTC").describe("IANA zone for calendar windows (weeks, months)"),
  llmTimeoutMs: z.number().int().min(100).max(600_000).default(30_000).describe("Per LLM call"),
  // Unset by default: planning retries once (a failed plan costs the whole run its sub-queries), the
  // reflection and rerank steps do not (their rules and the fused order stand in at no cost).
  llmRetries: z
    .number()
    .int()
    .min(0)
    .max(5)
    .optional()
    .describe("Extra attempts after a failed LLM call (error, timeout, unparseable reply), each within llmTimeoutMs and the run's deadline. Unset: 1 for planning, 0 for reflection and rerank"),
  deadlineMs: z
    .number()
    .int()
    .min(100)
    .max(600_000)
    .default(20_000)
    .describe(
      "Per run: after this many ms the views, model calls and store re-check still pending are left behind and the run answers with what it has, marked degraded",
    ),
});

/**
 * The configurable fields and one the plan node sets: `deadlineAt`, the run's deadline as epoch ms
 * (its start plus deadlineMs). It lives in the settings so every node and view task of the run reads
 * the same clock; it is not configurable (left out of the context schema and of resolveConfiguration).
 */
export const RetrievalConfigSchema = ConfigurableSchema.extend({
  deadlineAt: z.number().optional().describe("Set by the plan node, not configurable: when this run's deadline falls (epoch ms)"),
});

export type RetrievalConfig = z.output<typeof RetrievalConfigSchema>;

/**
 * The graph's `context` schema: the same fields, each described for Studio and the server's schemas
 * endpoint (type, default, description) and optional, but checked only when the plan node resolves
 * the configuration, so a bad value comes back as one ValidationError naming the field rather than
 * LangGraph's own validation dump.
 */
export const RetrievalContextSchema = z.object(
  Object.fromEntries(Object.entries(ConfigurableSchema.shape).map(([field, schema]) => [field, described(schema).optional()])) as {
    [Field in keyof typeof ConfigurableSchema.shape]: z.ZodOptional<z.ZodType<z.input<(typeof ConfigurableSchema.shape)[Field]>>>;
  },
);
export type RetrievalConfigInput = z.input<typeof RetrievalConfigSchema>;

/**
 * Reads the run's configuration: preset first, then the explicit fields, then defaults. The fields may
 * come as LangGraph's `context` or in `configurable` (LangGraph Studio and older clients); both are
 * read, `configurable` winning where both set a field. Keys that are not configuration fields (the
 * server's thread id, its authenticated user) are left out.
 */
export function resolveConfiguration(config: (RunnableConfig & { context?: unknown }) | undefined): RetrievalConfig {
  const known = new Set(Object.keys(ConfigurableSchema.shape));
  const fields: Record<string, unknown> = {};
  for (const source of [config?.context, config?.configurable]) {
    if (typeof source !== "object" || source === null) continue;
    for (const [key, value] of Object.entries(source)) if (known.has(key) && value !== undefined) fields[key] = value;
  }
  const presetName = parseOrThrow(RetrievalConfigSchema.shape.preset, fields.preset, "configurable.preset");
  return parseOrThrow(RetrievalConfigSchema, { ...RETRIEVAL_PRESETS[presetName], ...fields }, "configurable");
}
