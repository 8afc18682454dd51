import { z } from "zod";
import type { GraphDependencies } from "../runtime/dependencies.js";
import { describeError, log } from "../core/log.js";
import type { Embedder } from "../text/embedder.js";
import type { MemoryFilter, MemoryStore, ScoredEntry } from "../stores/port.js";
import { entryTerms, namesEveryCondition, type NameConditions } from "../retrieval/mentions.js";
import { isEmptyFilter } from "../stores/port.js";
import type { ViewTask } from "../graph/state.js";
import type { Plan } from "../domain/plan.js";
import { bothFilters, matchesFilter } from "../stores/caller-filter.js";
import { acrossNamespaces, runView, type ViewUpdate } from "./run-view.js";
import { vectorQueryOf, withoutNames } from "../planning/known-names.js";
import { withoutRelativeTime } from "../retrieval/query-words.js";
import { deadlineOf, halfwayTo, withinDeadline, type RunDeadline } from "../runtime/deadline.js";
import { defineView, type QuestionWeighing, type ViewSettings } from "./view-definition.js";

const FIELDS = {
  symbolicTopK: z.number().int().min(1).max(1000).default(5).describe("Metadata/time-filter hits"),
  timeWindowWeight: z
    .number()
    .min(0)
    .max(10)
    .default(1)
    .describe("RRF weight of the symbolic view when the plan has a time window, the one condition no other view can check"),
};
type Own = ViewSettings<typeof FIELDS>;

/**
 * Symbolic view: exact metadata and time conditions from the plan (persons, entities, location,
 * time window, ANDed); a memory that says a required name in its words meets that name's condition
 * as one that carries it does (matchesIn). No conditions, no results. Matches are ranked by the question's words first
 * (BM25 within the conditions), then the matches that share no word with it, by similarity to the
 * question without the persons it asks about (vectorQueryOf, as the semantic view embeds it) when the
 * embedder can represent it, newest first otherwise. The conditions' names are not
 * among those words: every match has them, so they cannot order the matches, and would only put the
 * shortest first (a speaker's name begins each of their turns). Nor is a relative time expression, as
 * in the lexical view (withoutRelativeTime); a date stays, since a memory that names it speaks of what
 * happened then, which its time alone does not say. Ranking by words keeps this view's order
 * independent of the semantic view's: ranked by the same vectors it would only repeat the semantic
 * vote, and a weak embedder's order would decide among the matches twice.
 */
function symbolicSearch(dependencies: () => Promise<GraphDependencies>, task: ViewTask, own: Own): Promise<ViewUpdate> {
  return runView("symbolic", task, async () => {
    const conditions = filterOf(task.plan, task.referenceMs);
    if (isEmptyFilter(conditions)) return [];
    const filter = bothFilters(task.callerFilter, conditions) ?? conditions;
    // Where the caller's filter names the same field as the plan, the store held the caller's: check the plan's here.
    const meetsPlan = (hit: ScoredEntry) => filter === conditions || matchesFilter(hit.entry, conditions);
    const search: NamespaceSearch = {
      store: dependencies().then(({ store }) => store),
      k: own.symbolicTopK,
      words: withoutConditionWords(task.question, conditions, task.plan.timeExpression),
      filter,
      meetsPlan,
      names: nameConditionsOf(conditions),
      unnamedFilter: bothFilters(task.callerFilter, withoutNameConditions(conditions)),
    };
    // Embedded once, and only when some namespace has fewer word matches than k.
    let vector: Promise<number[] | undefined> | undefined;
    const similarTo = () => {
      // The vector only orders the matches: a hung embedder gets half the time left, then they go newest first.
      vector ??= dependencies().then(({ embedder }) => questionVector(embedder, vectorQueryOf(task.question, task.plan.persons), halfwayTo(deadlineOf(task.settings))));
      return vector;
    };
    return acrossNamespaces(task, [describeFilter(conditions)], (namespace) => matchesIn(namespace, search, similarTo));
  });
}

/**
 * Exact conditions of the plan. They do not change between rounds, so the view searches in the first
 * only. Its lists' scores come from two orderings (words, then similarity) and are not comparable
 * along a list, so they vote by position.
 */
export const symbolicView = defineView({
  name: "symbolic",
  weight: z.number().min(0).max(10).default(0.3).describe("RRF weight of the symbolic view's vote, when its conditions name a person or place"),
  fields: FIELDS,
  rounds: "first",
  votesByScore: false,
  search: symbolicSearch,
  weightFor: symbolicWeight,
});

/**
 * The symbolic view's weight follows what its conditions can check that words cannot. A time window
 * ("last week"): neither BM25 nor dense similarity can tell when something happened, so there it is
 * the authority (timeWindowWeight). Entities alone, beside the lexical view: an entity is a word of
 * the memories it names, so the list (those memories ranked by the question's words) is BM25 again
 * over memories the lexical view already ranks by the same words, and would count them twice; it
 * gets no vote (SciFact: 0.665 -> 0.685 nDCG@10; LoCoMo's questions, which name speakers, unchanged).
 * A person (a speaker is not among the words said) or a place keeps the configured weight.
 */
function symbolicWeight({ plan, views }: QuestionWeighing, weight: number, own: Own): number {
  if (plan.timeWindow !== undefined) return own.timeWindowWeight;
  const wordsOnly = plan.persons.length === 0 && plan.locations.length === 0 && views.includes("lexical");
  return wordsOnly ? 0 : weight;
}

/** What every namespace's symbolic search shares. */
interface NamespaceSearch {
  store: Promise<MemoryStore>;
  k: number;
  /** The question's words that order the matches (withoutConditionWords). */
  words: string;
  /** The plan's conditions and the caller's filter, as the store applies them. */
  filter: MemoryFilter;
  /** Whether a hit of `filter` meets the plan's own conditions (see bothFilters). */
  meetsPlan: (hit: ScoredEntry) => boolean;
  /** The plan's name conditions, or undefined when it sets none. */
  names: NameConditions | undefined;
  /** `filter` without the plan's name conditions: where memories that only say the names are looked for. */
  unnamedFilter: MemoryFilter | undefined;
}

/**
 * One namespace's matches: those of the conditions ranked by the question's words, then, when fewer
 * than k share a word with it, the other matches by similarity. A memory meets a name condition by its
 * metadata or by saying the name (namesEveryCondition), so one written with only `text` is not
 * outranked by one that came with `persons`: both lists are searched with the same words, so their
 * BM25 scores compare, and merged.
 */
async function matchesIn(namespace: string, search: NamespaceSearch, similarTo: () => Promise<number[] | undefined>): Promise<ScoredEntry[]> {
  const store = await search.store;
  const { k, words, filter } = search;
  const [tagged, said] = await Promise.all([
    store.lexicalSearch(namespace, words, { k, filter }).then((hits) => hits.filter(search.meetsPlan)),
    search.names ? sayingNames(store, namespace, words, search) : [],
  ]);
  const byWords = byScore(tagged, said).slice(0, k);
  if (byWords.length >= k) return byWords;
  const vector = await similarTo();
  const rest = eachOnce([...byWords, ...(await store.filteredSearch(namespace, filter, { k, ...(vector ? { vector } : {}) })).filter(search.meetsPlan)]);
  if (rest.length >= k || !search.names) return rest.slice(0, k);
  // Still short of k: the memories that say the names but share no word with the question.
  const saying = await sayingNames(store, namespace, conditionNames(search.names).join(" "), search);
  return eachOnce([...rest, ...saying]).slice(0, k);
}

/** Memories found by `query` outside the plan's name conditions whose words name what each condition asks for. */
async function sayingNames(store: MemoryStore, namespace: string, query: string, search: NamespaceSearch): Promise<ScoredEntry[]> {
  if (!query.trim() || !search.names) return [];
  const names = search.names;
  const options = search.unnamedFilter ? { k: search.k, filter: search.unnamedFilter } : { k: search.k };
  const hits = await store.lexicalSearch(namespace, query, options);
  return hits.filter((hit) => namesEveryCondition(entryTerms(hit.entry), names));
}

/** Two lists of one query's BM25 hits as one, best first, each entry once. */
function byScore(first: readonly ScoredEntry[], second: readonly ScoredEntry[]): ScoredEntry[] {
  return eachOnce([...first, ...second]).sort((a, b) => b.score - a.score);
}

/** The hits in order, each entry at its first place only. */
function eachOnce(hits: readonly ScoredEntry[]): ScoredEntry[] {
  const first = new Map<string, ScoredEntry>();
  for (const hit of hits) if (!first.has(hit.entry.id)) first.set(hit.entry.id, hit);
  return [...first.values()];
}

function nameConditionsOf(conditions: MemoryFilter): NameConditions | undefined {
  const names: NameConditions = {};
  if (conditions.persons?.length) names.persons = conditions.persons;
  if (conditions.entities?.length) names.entities = conditions.entities;
  if (conditions.location) names.location = conditions.location;
  return Object.keys(names).length ? names : undefined;
}

function withoutNameConditions(conditions: MemoryFilter): MemoryFilter | undefined {
  const { persons: _persons, entities: _entities, location: _location, ...rest } = conditions;
  return isEmptyFilter(rest) ? undefined : rest;
}

/** Every name the conditions require: persons, entities and the place. */
function conditionNames(conditions: NameConditions): string[] {
  return [...(conditions.persons ?? []), ...(conditions.entities ?? []), ...(conditions.location ? [conditions.location] : [])];
}

/** The question without the words of the conditions: the names they require, and a relative time expression their window stands for. */
function withoutConditionWords(question: string, conditions: MemoryFilter, timeExpression: string | undefined): string {
  const untimed = conditions.timeRange ? withoutRelativeTime(question, timeExpression) : question;
  return withoutNames(untimed, conditionNames(conditions));
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
