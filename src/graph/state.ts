import { withLangGraph } from "@langchain/langgraph/zod";
import { z } from "zod";
import { CoverageSchema, type GapCondition } from "../domain/coverage.js";
import { FusedHitSchema, ViewHitListSchema, type FusedHit } from "../domain/hits.js";
import { PlanSchema, type Plan } from "../domain/plan.js";
import { RetrievalResultSchema, type RetrievalResult } from "../domain/results.js";
import { DegradationSchema, LlmCallRecordSchema, RunAccountSchema } from "../domain/run-account.js";
import type { ViewName } from "../domain/views.js";
import { MemoryEntrySchema, NamespaceSchema, parseIsoTimestamp } from "../memory/entry.js";
import { RecallFilterSchema } from "../stores/caller-filter.js";
import { MemoryFilterSchema, type MemoryFilter } from "../stores/port.js";
import { appended, described } from "./channels.js";
import { RunSettingsSchema } from "./configuration.js";
import type { RunSettings } from "./run-settings.js";
import { requiredMessage, ValidationError } from "../core/errors.js";
import { addNodeMs } from "../runtime/timing.js";

/** The work one view does in one round: sent to the view node with `Send`. */
export interface ViewTask {
  view: ViewName;
  round: number;
  question: string;
  namespaces: string[];
  queries: string[];
  plan: Plan;
  settings: RunSettings;
  /**
   * The conditions of the rule judge's gap queries, by query (a dense neighbour of "Bob Müller city live"
   * need not be about Bob Müller); a query without an entry keeps every hit.
   */
  gapConditions: Record<string, GapCondition>;
  /** The caller's filter in the store's form (the state's callerFilter): every hit of every view must meet it. */
  callerFilter?: MemoryFilter | undefined;
  /** The reference time the plan's window was read from (epoch ms), when the run resolved one. */
  referenceMs?: number | undefined;
}

const EntriesByKeySchema = z.record(z.string(), MemoryEntrySchema);
const NodeMsSchema = z.record(z.string(), z.number());

/** The graph's state: plain serialisable data, so it lives in checkpoints and the server's thread history. */
export const RetrievalState = z.object({
  question: described(z.string(), "Input, required: the question"),
  namespaces: described(z.array(z.string()), "Input, required: whose memories; one or more namespaces (a user's own and a shared one, say)"),
  now: described(
    z.string().nullable().optional(),
    "Input: reference time (ISO 8601) that relative time expressions resolve against; default the clock. Consumed by the run it was given to.",
  ),
  filter: described(
    RecallFilterSchema.nullable().optional(),
    "Input: exact conditions every result must meet (since, until, persons, entities, location, documentId). Consumed by the run it was given to.",
  ),
  asOf: described(
    z.string().nullable().optional(),
    "Input: answer as things stood at this time (ISO 8601): memories said after it are left out, and what was superseded or no longer valid by then counts as history. Consumed by the run it was given to.",
  ),
  referenceMs: described(
    z.number().optional(),
    "The reference time this run resolved (the input's `now`, else its `asOf`, else the clock), epoch ms: the one form every node after the plan reads",
  ),
  asOfMs: described(z.number().optional(), "The `asOf` this run answers for, epoch ms, when it was given one"),
  referenceTime: described(z.string().optional(), "The answer's reference time (referenceMs as ISO 8601), written by the last node"),
  // Not `filter`: that is the input channel, the caller's filter as written (a RecallFilter, consumed by the plan node).
  callerFilter: described(MemoryFilterSchema.optional(), "The caller's filter this run applies, in the store's form (with asOf's bound)"),
  // Not `plan`: LangGraph refuses a state key named like a node, and the first node is `plan`.
  queryPlan: described(PlanSchema.optional(), "What the planner decided the question needs"),
  settings: described(
    RunSettingsSchema.optional(),
    "The run's settings, resolved once by the plan node (configuration widened by the namespaces' own settings, view weights by the embedder's profile)",
  ),
  round: withLangGraph(described(z.number().int(), "Reflection rounds taken so far"), { default: () => 0 }),
  viewHits: appended(ViewHitListSchema, "Every view's ranked lists over all rounds of this run"),
  entries: withLangGraph(described(EntriesByKeySchema, "Entries seen by any view this run, by hit key"), {
    reducer: { fn: (current: z.output<typeof EntriesByKeySchema>, update: z.output<typeof EntriesByKeySchema>) => ({ ...current, ...update }) },
    default: () => ({}),
  }),
  fused: withLangGraph(described(z.array(FusedHitSchema), "The fused, de-duplicated ranking after the last merge"), { default: (): FusedHit[] => [] }),
  coverage: described(CoverageSchema.optional(), "The last judgement of coverage"),
  beforeOwnWords: described(
    z.array(z.string()).optional(),
    "The fused ranking (hit keys) as it stood when the own-words round was asked: the question read by its words alone, whoever said them",
  ),
  results: withLangGraph(described(z.array(RetrievalResultSchema), "The answer: memories re-checked against the store"), {
    default: (): RetrievalResult[] => [],
  }),
  degraded: appended(DegradationSchema, "Steps that failed and were worked around"),
  llmCalls: appended(LlmCallRecordSchema, "LLM calls of this run"),
  nodeMs: withLangGraph(described(NodeMsSchema, "Wall time per node, ms"), {
    reducer: { fn: addNodeMs },
    default: () => ({}),
  }),
  account: described(RunAccountSchema.optional(), "What the run cost, closed by the last node"),
});

export type RetrievalStateValue = z.output<typeof RetrievalState>;

/** What the graph accepts: described for Studio's form, validated by the plan node (RetrievalInputSchema). */
export const RetrievalGraphInput = RetrievalState.pick({ question: true, namespaces: true, now: true, asOf: true, filter: true }).partial();

/** What a run answers with: the results and how they were found, not the working state. */
export const RetrievalGraphOutput = RetrievalState.pick({
  results: true,
  queryPlan: true,
  coverage: true,
  degraded: true,
  account: true,
  referenceTime: true,
});
export type RetrievalGraphOutputValue = z.output<typeof RetrievalGraphOutput>;

/** The longest question a run takes. */
export const MAX_QUESTION_CHARS = 4000;
/** The most namespaces one run searches. */
export const MAX_NAMESPACES_ASKED = 16;

/**
 * A date-time of the input as epoch ms, the one form the run carries it in from here on: ISO 8601 with an
 * offset (or Z) that names an instant, the offset within the bounds every stored timestamp keeps (±14:00).
 */
function inputTime(field: string) {
  return z.iso.datetime({ offset: true, error: `${field} must be an ISO 8601 date-time with an offset or Z, such as 2026-01-02T03:04:05Z` }).transform((text, context) => {
    const ms = parseIsoTimestamp(text);
    if (ms !== undefined) return ms;
    context.issues.push({ code: "custom", input: text, message: `${field} must be a date-time that exists, with an offset of at most ±14:00` });
    return z.NEVER;
  });
}

/**
 * The graph's input, validated once, by the plan node, whoever calls: the library's `retrieve` passes its
 * request on in this shape unchecked. Its channels are `described` (z.any), so LangGraph parses none of
 * it on the way in.
 */
export const RetrievalInputSchema = z.object({
  question: z
    .string({ error: requiredMessage("question", "a string", ": the text to answer") })
    .trim()
    .min(1, "question must not be empty")
    .max(MAX_QUESTION_CHARS, `question must be at most ${MAX_QUESTION_CHARS} characters`)
    .describe("The question to answer, as asked"),
  namespaces: z
    .array(NamespaceSchema, { error: requiredMessage("namespaces", "a list of namespaces", ": a list of one or more namespaces") })
    .min(1, "at least one namespace is required")
    .max(MAX_NAMESPACES_ASKED, `at most ${MAX_NAMESPACES_ASKED} namespaces may be asked at once`)
    .describe("Whose memories to search"),
  now: inputTime("now").optional().describe("The reference time relative dates ('last week') are read from. Unset: asOf, else the clock"),
  asOf: inputTime("asOf").optional().describe("Answer as things stood then: memories said later are left out, and what was replaced by then is history"),
  filter: RecallFilterSchema.optional().describe("Exact conditions every view and round respects (since, until, persons, entities, location, documentId)"),
});
export type RetrievalInput = z.output<typeof RetrievalInputSchema>;

/**
 * The plan and settings the plan node settled. Every node after it reads them from here, so a run's
 * configuration is resolved once.
 */
export function plannedRun(state: RetrievalStateValue): { plan: Plan; settings: RunSettings } {
  if (!state.queryPlan || !state.settings) throw new ValidationError("queryPlan", "the plan node has not run: the state has no plan or settings");
  return { plan: state.queryPlan, settings: state.settings };
}
