import { Annotation } from "@langchain/langgraph";
import { z } from "zod";
import { MemoryEntrySchema, NamespaceSchema } from "../memory/entry.js";
import type { LlmCallRecord } from "../llm/structured.js";
import { ViewNameSchema, type ViewName } from "./configuration.js";
import type { EffectiveSettings } from "./settings.js";

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
  timeWindow: z.object({ startMs: z.number().optional(), endMs: z.number().optional() }).optional(),
  /** Who planned: the model, or the rules (no model, or the model failed). */
  planner: z.enum(["llm", "rules", "none"]),
});
export type Plan = z.infer<typeof PlanSchema>;

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
export interface ViewHitList {
  view: ViewName;
  query: string;
  namespace: string;
  round: number;
  hits: Array<{ key: string; score: number }>;
}

/** Where a fused hit came from: every (view, query) list that ranked it. */
export interface Provenance {
  views: ViewName[];
  subQueries: string[];
  ranks: Array<{ view: ViewName; query: string; round: number; rank: number; score: number }>;
  fusedScore: number;
}

export interface FusedHit {
  key: string;
  score: number;
  provenance: Provenance;
}

/** What a hit must be to answer one of the rule judge's gap queries. */
export interface GapCondition {
  /** Words it must mention: "John adopt" for "John adopt"; "Bob Müller" for a second hop "Bob Müller city live". */
  mentions?: string;
  /** Whose words it must be: the speaker the question is about, when it is asked again among their own words. */
  spokenBy?: string;
}

export interface Coverage {
  complete: boolean;
  percent: number;
  missing: string[];
  gapQueries: string[];
  /** The rule judge's gap queries with their conditions. A model's gap queries are free text and have none. */
  gapConditions?: Record<string, GapCondition>;
  judge: "llm" | "rules" | "off";
}

/** A step that failed and was worked around (a view that threw, a model that fell back to rules). */
export interface Degradation {
  step: string;
  error: string;
}

/** A returned memory: the entry (text cut to the content cap), its fused score and how it was found. */
export interface RetrievalResult {
  id: string;
  namespace: string;
  text: string;
  timestamp: string;
  persons: string[];
  speaker?: string;
  entities: string[];
  location?: string;
  topic?: string;
  source?: z.infer<typeof MemoryEntrySchema>["source"];
  score: number;
  rerankScore?: number;
  provenance: Provenance;
}

export interface RunAccount {
  llm: LlmCallRecord[];
  nodeMs: Record<string, number>;
}

/** The work one view does in one round: sent to the view node with `Send`. */
export interface ViewTask {
  view: ViewName;
  round: number;
  question: string;
  namespaces: string[];
  queries: string[];
  plan: Plan;
  settings: EffectiveSettings;
  /**
   * The conditions of the rule judge's gap queries, by query (a dense neighbour of "Caroline adopt" is
   * rarely about adopting); a query without an entry keeps every hit.
   */
  gapConditions: Record<string, GapCondition>;
}

const appendOrOverwrite = <T>() =>
  Annotation<T[]>({
    reducer: (current, update) => current.concat(update),
    default: () => [],
  });

/** The graph's state: plain serialisable data, so it lives in checkpoints and the server's thread history. */
export const RetrievalState = Annotation.Root({
  /** Input: the question. */
  question: Annotation<string>,
  /** Input: whose memories; one or more namespaces (a user's own and a shared one, say). */
  namespaces: Annotation<string[]>,
  /** Input: reference time (ISO 8601) that relative time expressions resolve against; default the clock. */
  now: Annotation<string | undefined>,

  queryPlan: Annotation<Plan | undefined>,
  /** Top-k and thresholds in force for this run (configuration widened by the namespaces' own settings). */
  settings: Annotation<EffectiveSettings | undefined>,
  round: Annotation<number>({ reducer: (_current, update) => update, default: () => 0 }),
  /** Every view's ranked lists over all rounds of this run (reset when a run starts). */
  viewHits: appendOrOverwrite<ViewHitList>(),
  /** Entries seen by any view this run, by hit key. */
  entries: Annotation<Record<string, z.infer<typeof MemoryEntrySchema>>>({
    reducer: (current, update) => ({ ...current, ...update }),
    default: () => ({}),
  }),
  fused: Annotation<FusedHit[]>({ reducer: (_current, update) => update, default: () => [] }),
  coverage: Annotation<Coverage | undefined>,
  results: Annotation<RetrievalResult[]>({ reducer: (_current, update) => update, default: () => [] }),
  degraded: appendOrOverwrite<Degradation>(),
  llmCalls: appendOrOverwrite<LlmCallRecord>(),
  nodeMs: Annotation<Record<string, number>>({
    reducer: (current, update) => {
      const sum = { ...current };
      for (const [node, ms] of Object.entries(update)) sum[node] = (sum[node] ?? 0) + ms;
      return sum;
    },
    default: () => ({}),
  }),
});

export type RetrievalStateValue = typeof RetrievalState.State;
export type RetrievalStateUpdate = typeof RetrievalState.Update;

/** The graph's input, validated before the run starts. */
export const RetrievalInputSchema = z.object({
  question: z.string().trim().min(1, "question must not be empty").max(4000),
  namespaces: z.array(NamespaceSchema).min(1, "at least one namespace is required").max(16),
  now: z.iso.datetime({ offset: true }).optional(),
});
export type RetrievalInput = z.infer<typeof RetrievalInputSchema>;

export { ViewNameSchema };
