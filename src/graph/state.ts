import { Annotation } from "@langchain/langgraph";
import { z } from "zod";
import type { Coverage, GapCondition } from "../domain/coverage.js";
import type { FusedHit, ViewHitList } from "../domain/hits.js";
import type { Plan } from "../domain/plan.js";
import type { RetrievalResult } from "../domain/results.js";
import type { Degradation, LlmCallRecord } from "../domain/run-account.js";
import type { ViewName } from "../domain/views.js";
import { NamespaceSchema, type MemoryEntry } from "../memory/entry.js";
import type { RunSettings } from "./run-settings.js";

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
  /** The run's settings, resolved once by the plan node (configuration widened by the namespaces' own settings). */
  settings: Annotation<RunSettings | undefined>,
  round: Annotation<number>({ reducer: (_current, update) => update, default: () => 0 }),
  /** Every view's ranked lists over all rounds of this run (reset when a run starts). */
  viewHits: appendOrOverwrite<ViewHitList>(),
  /** Entries seen by any view this run, by hit key. */
  entries: Annotation<Record<string, MemoryEntry>>({
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

/**
 * The plan and settings the plan node settled. Every node after it reads them from here, so a run's
 * configuration is resolved once.
 */
export function plannedRun(state: RetrievalStateValue): { plan: Plan; settings: RunSettings } {
  if (!state.queryPlan || !state.settings) throw new Error("the plan node has not run: the state has no plan or settings");
  return { plan: state.queryPlan, settings: state.settings };
}
