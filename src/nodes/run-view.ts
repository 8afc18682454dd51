import { describeError, log } from "../core/log.js";
import type { MemoryEntry } from "../memory/entry.js";
import { bothFilters } from "../stores/caller-filter.js";
import { gapSearchFilter, meetsGapCondition } from "../retrieval/gap-conditions.js";
import { entryTerms } from "../retrieval/mentions.js";
import type { ScoredEntry, SearchOptions } from "../stores/port.js";
import type { ViewName } from "../domain/views.js";
import type { ViewTask } from "../graph/state.js";
import { hitKey, type ViewHitList } from "../domain/hits.js";
import type { Degradation } from "../domain/run-account.js";
import type { GapCondition } from "../domain/coverage.js";
import { timed, type NodeMs } from "../runtime/timing.js";
import { DeadlineError, deadlineOf, withinDeadline } from "../runtime/deadline.js";

/** One search a view ran: its query, namespace and ranked hits. */
export interface ViewSearch {
  query: string;
  namespace: string;
  hits: ScoredEntry[];
  /** Hits scoring under this are returned but cast no vote in the fusion (ViewHitList's field). */
  voteMinScore?: number;
}

/** What a view's node adds to the state. */
export interface ViewUpdate {
  viewHits: ViewHitList[];
  entries: Record<string, MemoryEntry>;
  degraded: Degradation[];
  nodeMs: NodeMs;
}

/**
 * Runs a view's searches and turns them into a state update. A view that throws (embedder down,
 * store unreachable) or misses the run's deadline (a callee that never answers: the search, the
 * embedding of its queries) contributes no hits and a degradation record; the other views still answer.
 * The caller's filter is not checked here: it goes whole to the store with every query (searchOptionsFor;
 * bothFilters gives the caller's conditions the store's side), and the stores apply it as matchesFilter
 * judges (the contract suite holds them to that). In a round of the rule judge's gap queries, hits that
 * do not meet their query's condition are dropped.
 */
export async function runView(view: ViewName, task: ViewTask, search: () => Promise<ViewSearch[]>): Promise<ViewUpdate> {
  return timed(view, async () => {
    try {
      const searches = await withinDeadline(deadlineOf(task.settings), search);
      for (const found of searches) {
        const condition = gapConditionOf(task, found.query);
        if (condition === undefined) continue;
        found.hits = found.hits.filter(({ entry }) => meetsGapCondition(entry, () => entryTerms(entry), condition));
      }
      const viewHits: ViewHitList[] = [];
      const entries: Record<string, MemoryEntry> = {};
      for (const { query, namespace, hits, voteMinScore } of searches) {
        viewHits.push({
          view,
          query,
          namespace,
          round: task.round,
          hits: hits.map(({ entry, score }) => ({ key: hitKey(namespace, entry.id), score })),
          ...(voteMinScore === undefined ? {} : { voteMinScore }),
        });
        for (const { entry } of hits) entries[hitKey(namespace, entry.id)] = entry;
      }
      return { viewHits, entries, degraded: [] as Degradation[] };
    } catch (error) {
      // The deadline's own words ("deadline of N ms reached"), so a reader sees which limit it was.
      const message = error instanceof DeadlineError ? error.message : describeError(error);
      log.warn("view_failed", { view, round: task.round, error: message });
      return { viewHits: [], entries: {}, degraded: [{ step: view, error: message }] };
    }
  });
}

/** The condition of one of the task's gap queries, if it has one. Own keys only: a gap query may be any word, "constructor" included. */
export function gapConditionOf(task: ViewTask, query: string): GapCondition | undefined {
  return Object.hasOwn(task.gapConditions, query) ? task.gapConditions[query] : undefined;
}

/**
 * A view's store options for one query: its k, narrowed by the caller's filter and, when the query is
 * asked among a speaker's own words, to that speaker's entries.
 */
export function searchOptionsFor(task: ViewTask, query: string, k: number): SearchOptions {
  const filter = bothFilters(task.callerFilter, gapSearchFilter(gapConditionOf(task, query)));
  return filter ? { k, filter } : { k };
}

/** Every (namespace, query) pair of a task, searched concurrently. */
export function acrossNamespaces(
  task: ViewTask,
  queries: readonly string[],
  search: (namespace: string, query: string, index: number) => Promise<ScoredEntry[]>,
): Promise<ViewSearch[]> {
  return Promise.all(
    task.namespaces.flatMap((namespace) =>
      queries.map(async (query, index) => ({ query, namespace, hits: await search(namespace, query, index) })),
    ),
  );
}
