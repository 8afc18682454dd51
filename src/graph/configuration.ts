import type { RunnableConfig } from "@langchain/core/runnables";
import { z } from "zod";
import { parseOrThrow, ValidationError } from "../core/errors.js";
import { described } from "./channels.js";
import { PRESET_NAMES } from "./preset-names.js";
import { RETRIEVAL_PRESETS } from "./presets.js";
import { runSettingsSchema } from "./run-settings.js";
import { VIEWS, type ViewRegistry } from "./views.js";

const PresetField = z.enum(PRESET_NAMES).default("full").describe("Named recipe applied before the other fields");

/**
 * What a run can tune beside the views' own fields, read from `config.configurable` (so LangGraph
 * Studio shows and edits it). Defaults are the numbers measured best on conversations offline (see
 * docs/results/README.md); a preset (presets.ts) changes several at once.
 */
const COMMON_FIELDS = {
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
  // The readings' shares were chosen on LoCoMo's first half and checked on the second. A question read
  // one way lends nothing in its answer: there the votes lift a hit's neighbours into the answer, which
  // pays where the memories are counted and costs where their sessions are (RealMem), and a rule stays
  // only where no development set loses by it (docs/experiments.md, "Context votes in the answer").
  contextVotes: z
    .object({
      ranking: z
        .number()
        .min(0)
        .max(1)
        .default(0)
        .describe(
          "Share of a neighbour's vote a hit of the answer gains, for a question read one way (no own-words round; 0, the default: the fused order stands; 0.05 brings the turns around a hit into the answer)",
        ),
      speakerReading: z
        .number()
        .min(0)
        .max(1)
        .default(0.05)
        .describe("The same in the final ranking after an own-words round, the named speaker's reading: what they said and the replies around it"),
      wordsReading: z
        .number()
        .min(0)
        .max(1)
        .default(0.5)
        .describe("The same in the ranking before an own-words round, where a question that named the wrong speaker finds what the other said around the named one's words"),
    })
    .prefault({})
    .describe(
      "Votes a hit lends the turns said around it, two either side in its session as its dialogue was written (ranks only: retrieval/context-votes.ts; memories of no dialogue neither lend nor gain)",
    ),
  // Half a list's vote: chosen on LoCoMo's rankings (docs/experiments.md, "Questions that ask when").
  timeAnswerVote: z
    .number()
    .min(0)
    .max(1)
    .default(0.5)
    .describe(
      "For a question that asks when: the RRF vote, as a share of a full list's, that the answer's memories stating a time cast in their own order, times 1 - 2 x their share of the answer (retrieval/time-answers.ts; 0: none)",
    ),
  readingTurns: z
    .number()
    .int()
    .min(2)
    .max(10)
    .default(3)
    .describe("After an own-words round, the ranking before it (the question's words, whoever said them) takes one place in every this many; 2: equal turns"),
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
};

const DeadlineAtField = z.number().optional().describe("Set by the plan node, not configurable: when this run's deadline falls (epoch ms)");

type UnionToIntersection<U> = (U extends unknown ? (union: U) => void : never) extends (intersection: infer I) => void ? I : never;
/** A shape of named fields; none where the registry is any registry (its views' fields are not known). */
type AsShape<T> = T extends z.ZodRawShape ? (string extends keyof T ? Record<never, never> : T) : never;
/** The names of a registry's views. */
export type ViewNameOf<V extends ViewRegistry> = V[number]["name"];
/** Every field the views of a registry add, in one shape. */
type ViewFieldsOf<V extends ViewRegistry> = AsShape<UnionToIntersection<V[number]["fields"]>>;
/** The fields the views of a registry settle for a run (nodes/view-definition.ts), in one shape. */
export type SettledFieldsOf<V extends ViewRegistry> = AsShape<UnionToIntersection<NonNullable<V[number]["settled"]>>>;
type ViewWeightsShape<V extends ViewRegistry> = { [View in V[number] as View["name"]]: View["weight"] };

type ConfigurableShape<V extends ViewRegistry> = { preset: typeof PresetField } & {
  views: z.ZodDefault<z.ZodArray<z.ZodEnum<{ [Name in ViewNameOf<V>]: Name }>>>;
} & ViewFieldsOf<V> &
  typeof COMMON_FIELDS & { viewWeights: z.ZodDefault<z.ZodObject<ViewWeightsShape<V>>> };
/** The configurable fields and one the plan node sets (see RetrievalConfiguration.RetrievalConfigSchema). */
type ConfigShape<V extends ViewRegistry> = ConfigurableShape<V> & { deadlineAt: typeof DeadlineAtField };
type ContextShape<V extends ViewRegistry> = {
  [Field in keyof ConfigurableShape<V>]: z.ZodOptional<z.ZodType<z.input<ConfigurableShape<V>[Field]>>>;
};

export type RetrievalConfigOf<V extends ViewRegistry> = z.output<z.ZodObject<ConfigShape<V>>>;
export type RetrievalConfig = RetrievalConfigOf<typeof VIEWS>;
export type RetrievalConfigInput = z.input<z.ZodObject<ConfigShape<typeof VIEWS>>>;

/** The configuration of a retrieval graph over one registry of views. */
export interface RetrievalConfiguration<V extends ViewRegistry = ViewRegistry> {
  readonly views: V;
  /**
   * The configurable fields and one the plan node sets: `deadlineAt`, the run's deadline as epoch ms
   * (its start plus deadlineMs). It lives in the settings so every node and view task of the run reads
   * the same clock; it is not configurable (left out of the context schema and of `resolve`).
   */
  readonly RetrievalConfigSchema: z.ZodObject<ConfigShape<V>>;
  /**
   * The graph's `context` schema: the configurable fields, each described for Studio and the server's
   * schemas endpoint (type, default, description) and optional, but checked only when the plan node
   * resolves the configuration, so a bad value comes back as one ValidationError naming the field
   * rather than LangGraph's own validation dump.
   */
  readonly RetrievalContextSchema: z.ZodObject<ContextShape<V>>;
  /**
   * Reads the run's configuration: preset first, then the explicit fields, then defaults. The fields may
   * come as LangGraph's `context` or in `configurable` (LangGraph Studio and older clients); both are
   * read, `configurable` winning where both set a field. Keys that are not configuration fields (the
   * server's thread id, its authenticated user) are left out.
   */
  resolve(config: (RunnableConfig & { context?: unknown }) | undefined): RetrievalConfigOf<V>;
}

/** The configuration schemas of a registry of views: the common fields, the views' own, their weights. */
export function configurationFor<const V extends ViewRegistry>(views: V): RetrievalConfiguration<V> {
  refuseClashes(views);
  const names = views.map((view) => view.name);
  const weights = z.object(Object.fromEntries(views.map((view) => [view.name, view.weight])));
  const configurable = z.object({
    preset: PresetField,
    views: z.array(z.enum(names)).min(1).default(names).describe(`Which views recall: ${names.join(", ")}`),
    ...Object.assign({}, ...views.map((view) => view.fields)),
    ...COMMON_FIELDS,
    viewWeights: weights.default(weights.parse({})).describe("Per-view RRF weights; a view whose weight is unset takes it from the embedder's profile"),
  }) as unknown as z.ZodObject<ConfigurableShape<V>>;
  const config = configurable.extend({ deadlineAt: DeadlineAtField }) as unknown as z.ZodObject<ConfigShape<V>>;
  const known = new Set(Object.keys(configurable.shape));
  return {
    views,
    RetrievalConfigSchema: config,
    RetrievalContextSchema: z.object(
      Object.fromEntries(Object.entries(configurable.shape).map(([field, schema]) => [field, described(schema as z.ZodType).optional()])),
    ) as unknown as z.ZodObject<ContextShape<V>>,
    resolve(runConfig) {
      const fields: Record<string, unknown> = {};
      for (const source of [runConfig?.context, runConfig?.configurable]) {
        if (typeof source !== "object" || source === null) continue;
        for (const [key, value] of Object.entries(source)) if (known.has(key) && value !== undefined) fields[key] = value;
      }
      const presetName = parseOrThrow(PresetField, fields.preset, "configurable.preset");
      return parseOrThrow(config, { ...RETRIEVAL_PRESETS[presetName], ...fields }, "configurable");
    },
  };
}

/** Two views of one name, or a field two views (or a view and the common fields) both declare, would overwrite each other. */
function refuseClashes(views: ViewRegistry): void {
  const taken = new Set(["preset", "views", "viewWeights", "deadlineAt", ...Object.keys(COMMON_FIELDS)]);
  const names = new Set<string>();
  for (const view of views) {
    if (names.has(view.name)) throw new ValidationError("views", `two views are named ${view.name}`);
    names.add(view.name);
    for (const field of Object.keys(view.fields)) {
      if (taken.has(field)) throw new ValidationError(`views.${view.name}`, `its field ${field} is already a configuration field`);
      taken.add(field);
    }
  }
}

/** The configuration of the registered views (views.ts): what the served graph and the library use. */
export const RETRIEVAL_CONFIGURATION = configurationFor(VIEWS);
export const RetrievalConfigSchema = RETRIEVAL_CONFIGURATION.RetrievalConfigSchema;
export const RetrievalContextSchema = RETRIEVAL_CONFIGURATION.RetrievalContextSchema;
/** What the run settings in state hold (run-settings.ts), described with the registered views' fields. */
export const RunSettingsSchema = runSettingsSchema(VIEWS, RetrievalConfigSchema);

/** The run's configuration for the registered views (see RetrievalConfiguration.resolve). */
export function resolveConfiguration(config: (RunnableConfig & { context?: unknown }) | undefined): RetrievalConfig {
  return RETRIEVAL_CONFIGURATION.resolve(config);
}
