import type { GraphDependencies } from "../graph/dependencies.js";
import { describeError, log } from "../core/log.js";
import type { Embedder } from "../text/embedder.js";
import type { MemoryFilter, ScoredEntry } from "../stores/port.js";
import { isEmptyFilter } from "../stores/port.js";
import type { ViewTask } from "../graph/state.js";
import type { Plan } from "../domain/plan.js";
import { bothFilters, matchesFilter } from "../stores/caller-filter.js";
import { acrossNamespaces, runView } from "./run-view.js";
import { withoutNames } from "../planning/known-names.js";
import { withoutRelativeTime } from "../retrieval/query-words.js";
import { deadlineOf, halfwayTo, withinDeadline, type RunDeadline } from "../graph/deadline.js";

/**
 * Symbolic view: exact metadata and time conditions from the plan (persons, entities, location,
 * time window, ANDed). No conditions, no results. Matches are ranked by the question's words first
 * (BM25 within the conditions), then the matches that share no word with it, by similarity to the
 * question when the embedder can represent it, newest first otherwise. The conditions' names are not
 * among those words: every match has them, so they cannot order the matches, and would only put the
 * shortest first (a speaker's name begins each of their turns). Nor is a relative time expression, as
 * in the lexical view (withoutRelativeTime); a date stays, since a memory that names it speaks of what
 * happened then, which its time alone does not say. Ranking by words keeps this view's order
 * independent of the semantic view's: ranked by the same vectors it would only repeat the semantic
 * vote, and a weak embedder's order would decide among the matches twice.
 */
export function symbolicNode(dependencies: () => Promise<GraphDependencies>) {
  return async (task: ViewTask) =>
    runView("symbolic", task, async () => {
      const conditions = filterOf(task.plan, task.referenceMs);
      if (isEmptyFilter(conditions)) return [];
      const filter = bothFilters(task.filter, conditions) ?? conditions;
      // Where the caller's filter names the same field as the plan, the store held the caller's: check the plan's here.
      const meetsPlan = (hit: ScoredEntry) => filter === conditions || matchesFilter(hit.entry, conditions);
      const { store, embedder } = await dependencies();
      const k = task.settings.symbolicTopK;
      const words = withoutConditionWords(task.question, conditions, task.plan.timeExpression);
      // Embedded once, and only when some namespace has fewer word matches than k.
      let vector: Promise<number[] | undefined> | undefined;
      return acrossNamespaces(task, [describeFilter(conditions)], async (namespace) => {
        const byWords = (await store.lexicalSearch(namespace, words, { k, filter })).filter(meetsPlan);
        if (byWords.length >= k) return byWords;
        // The vector only orders the matches: a hung embedder gets half the time left, then they go newest first.
        vector ??= questionVector(embedder, task.question, halfwayTo(deadlineOf(task.settings)));
        const similarTo = await vector;
        const rest = await store.filteredSearch(namespace, filter, { k, ...(similarTo ? { vector: similarTo } : {}) });
        const seen = new Set(byWords.map((hit) => hit.entry.id));
        return [...byWords, ...rest.filter((hit) => !seen.has(hit.entry.id) && meetsPlan(hit))].slice(0, k);
      });
    });
}

/** The question without the words of the conditions: the names they require, and a relative time expression their window stands for. */
function withoutConditionWords(question: string, conditions: MemoryFilter, timeExpression: string | undefined): string {
  const untimed = conditions.timeRange ? withoutRelativeTime(question, timeExpression) : question;
  const names = [...(conditions.persons ?? []), ...(conditions.entities ?? []), ...(conditions.location ? [conditions.location] : [])];
  return withoutNames(untimed, names);
}

/** The question's vector for ranking matches, or undefined (newest first) when the embedder cannot give one. */
async function questionVector(embedder: Embedder, question: string, deadline: RunDeadline): Promise<number[] | undefined> {
  if (!embedder.trustworthyFor(question)) return undefined;
  try {
    return await withinDeadline(deadline, () => embedder.embeddings.embedQuery(question));
  } catch (error) {
    log.warn("symbolic_rank_without_vector", { error: describeError(error) });
    return undefined;
  }
}

/**
 * How long after a time window a memory is still taken as one of its own: what happens is often told the
 * next day ("yesterday I came back from San Francisco"), and a memory's time is when it was said. Never
 * past the reference time: nothing is told after it, and a window that reaches it ("since March") stays.
 */
const REPORTED_AFTER_MS = 86_400_000;

function reportedUntil(endMs: number, referenceMs: number | undefined): number {
  if (referenceMs === undefined) return endMs + REPORTED_AFTER_MS;
  return endMs >= referenceMs ? endMs : Math.min(endMs + REPORTED_AFTER_MS, referenceMs);
}

export function filterOf(plan: Plan, referenceMs?: number): MemoryFilter {
  const filter: MemoryFilter = {};
  if (plan.persons.length) filter.persons = plan.persons;
  if (plan.entities.length) filter.entities = plan.entities;
  if (plan.locations[0]) filter.location = plan.locations[0];
  const window = plan.timeWindow;
  if (window && (window.startMs !== undefined || window.endMs !== undefined)) {
    filter.timeRange = { ...window, ...(window.endMs === undefined ? {} : { endMs: reportedUntil(window.endMs, referenceMs) }) };
  }
  return filter;
}

/** A readable name for the filter, used as the symbolic list's "query" in provenance. */
function describeFilter(filter: MemoryFilter): string {
  const parts: string[] = [];
  if (filter.persons) parts.push(`persons:${filter.persons.join("|")}`);
  if (filter.entities) parts.push(`entities:${filter.entities.join("|")}`);
  if (filter.location) parts.push(`location:${filter.location}`);
  if (filter.timeRange) {
    const iso = (ms: number | undefined) => (ms === undefined ? "" : new Date(ms).toISOString());
    parts.push(`time:${iso(filter.timeRange.startMs)}..${iso(filter.timeRange.endMs)}`);
  }
  return parts.join(" ");
}
