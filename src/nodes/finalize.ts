import type { RunnableConfig } from "@langchain/core/runnables";
import type { MemoryEntry } from "../memory/entry.js";
import { matchesFilter } from "../stores/caller-filter.js";
import type { MemoryFilter, MemoryStore } from "../stores/port.js";
import type { GraphDependencies } from "../runtime/dependencies.js";
import { plannedRun, type RetrievalStateValue } from "../graph/state.js";
import { hitKey, splitHitKey, type AnswerHit, type FusedHit } from "../domain/hits.js";
import type { RetrievalResult } from "../domain/results.js";
import { addNodeMs, timed } from "../runtime/timing.js";
import { summarizeAccount, type Degradation, type LlmCallRecord } from "../domain/run-account.js";
import { takeTurns } from "../retrieval/readings.js";
import { asksAboutChange, memoriesToBringIn, noLinks, readSupersessions, supersessionOrder, withTimeProvenance } from "../retrieval/supersession.js";
import { withContextVotes, type SaidTurns } from "../retrieval/context-votes.js";
import { asksForTime, statesTime, withTimeAnswerVotes } from "../retrieval/time-answers.js";
import { withConflicts } from "../retrieval/conflicts.js";
import type { RunSettings } from "../graph/run-settings.js";
import { DeadlineError, deadlineOf, withinDeadline, type RunDeadline } from "../runtime/deadline.js";
import { rerankWithin } from "../reranking/model-rerank.js";

/**
 * Last node: the optional LLM rerank (reranking/) reorders the candidates, then every answer is re-read from the
 * store, the record of truth, as the last step before it is returned: deleted or expired entries,
 * entries outside the asked namespaces or the caller's filter and superseded document chunks are
 * dropped, and the text is cut to the content cap. The rerank is bounded by the run's deadline (missed,
 * the fused order stands). The final check is never skipped: past the deadline it still gets
 * FINAL_CHECK_GRACE_MS, and a store that does not answer by then gets no answer returned at all, since
 * an entry it could not confirm may have been forgotten or have expired meanwhile. Each is recorded
 * as degraded. The answer states the run's reference time as its input gives times: ISO 8601.
 */
export function finalizeNode(dependencies: () => Promise<GraphDependencies>) {
  return async (state: RetrievalStateValue, config?: RunnableConfig) => {
    const update = await timed("finalize", async () => {
      const { settings } = plannedRun(state);
      const { store, model } = await dependencies();
      const finalK = settings.finalK;
      const deadline = deadlineOf(settings);
      const degraded: Degradation[] = [];
      const llmCalls: LlmCallRecord[] = [];
      const fused = answerOrder(state, settings).slice(0, finalK * 2);
      let order: readonly FusedHit[] = fused;
      const rerankScores = new Map<string, number>();
      if (settings.rerank && model && fused.length > 1) {
        const candidates = await rerankCandidates(store, state, fused, deadline, degraded);
        const reranked = await rerankWithin(model, state.question, candidates, { timeoutMs: settings.llmTimeoutMs, retries: settings.llmRetries }, deadline, degraded, llmCalls, config);
        order = reranked.map(({ hit }) => hit);
        for (const { hit, rerankScore } of reranked) if (rerankScore !== undefined) rerankScores.set(hit.key, rerankScore);
      }
      // The last step before the answer is returned, so nothing forgotten or expired meanwhile is in it.
      const confirmed = await finalCheck(deadline, degraded, async () =>
        inTimeOrder(store, state, await recheckFirst(store, state.namespaces, order, state.callerFilter, finalK)),
      );
      const results = confirmed.slice(0, finalK).map(({ hit, entry }) => toResult(hit, entry, settings.contentCap, rerankScores.get(hit.key)));
      return { results, degraded, llmCalls, referenceTime: new Date(referenceMsOf(state)).toISOString() };
    });
    // The last node closes the run's account, its own time and calls included.
    const account = summarizeAccount([...state.llmCalls, ...update.llmCalls], addNodeMs(state.nodeMs, update.nodeMs), state.round);
    return { ...update, account };
  };
}

/**
 * The order the answer is given in. After an own-words round the question has two readings and no
 * rule can tell which was meant: about the named speaker (what they said, which that round lifted
 * above everyone else's words) or about its words, whoever said them (a question may name the wrong
 * speaker, on purpose or by a slip: "What did Caroline paint?" when Melanie did). The final ranking
 * and the one before that round take turns, the final one first and more often (readingTurns), so the
 * named speaker's best answer leads and every cut-off (a caller's k is not known here) holds the best
 * of both readings. Without that round the fused order stands. Each reading is first reordered by its
 * conversation's context (context-votes.ts), the words reading more: the answer to a question that
 * named the wrong speaker is what the other said around the named one's words. A question read one
 * way has its answer reordered so only where a run gives it a share (configuration.ts says why). A
 * question that asks when then has the hits that state a time lifted (time-answers.ts). Scores are the
 * fused ones, so they need not fall down the list.
 */
function answerOrder(state: RetrievalStateValue, settings: RunSettings): FusedHit[] {
  const depth = settings.finalK * 2;
  const { ranking, speakerReading, wordsReading } = settings.contextVotes;
  const timeAnswers = timeAnswerVotes(state, settings);
  const inContext = (keys: readonly string[], weight: number) =>
    timeAnswers(withContextVotes(keys, (key) => saidTurnsOf(state.entries[key]), { weight, rrfK: settings.rrfK }));
  const byKey = new Map(state.fused.map((hit) => [hit.key, hit]));
  const finalShare = state.beforeOwnWords ? speakerReading : ranking;
  const final = [...inContext(state.fused.slice(0, depth).map((hit) => hit.key), finalShare).flatMap((key) => byKey.get(key) ?? []), ...state.fused.slice(depth)];
  return state.beforeOwnWords ? takeTurns(final, inContext(state.beforeOwnWords, wordsReading), settings.readingTurns) : final;
}

/**
 * The turns a memory was built from and those said around them, if it is one speaker's words in a
 * dialogue. Notes and documents are no one's turn: written together they share a moment, and as
 * neighbours they would lift each other over the memory written alone that answers.
 */
function saidTurnsOf(entry: MemoryEntry | undefined): SaidTurns | undefined {
  const source = entry?.source;
  if (entry?.speaker === undefined || !source?.turnIds) return undefined;
  return { turnIds: source.turnIds, contextTurnIds: source.contextTurnIds ?? [] };
}

/** The reordering time-answers.ts gives a question that asks when; for any other question, none. */
function timeAnswerVotes(state: RetrievalStateValue, settings: RunSettings): (keys: readonly string[]) => readonly string[] {
  if (settings.timeAnswerVote <= 0 || !asksForTime(state.question)) return (keys) => keys;
  const context = { now: referenceMsOf(state), timeZone: settings.timeZone };
  const dated = (key: string) => {
    const entry = state.entries[key];
    return entry !== undefined && statesTime(entry, context);
  };
  return (keys) => withTimeAnswerVotes(keys, dated, { weight: settings.timeAnswerVote, rrfK: settings.rrfK });
}

/**
 * The confirmed answer with the present first (retrieval/supersession.ts): superseded memories after
 * what replaced them, replacements no view found brought in (re-checked like every answer), and each
 * hit's provenance saying how it stands at the time asked about.
 */
async function inTimeOrder(store: MemoryStore, state: RetrievalStateValue, confirmed: readonly AnswerHit[]): Promise<AnswerHit[]> {
  const time = { atMs: state.asOfMs ?? referenceMsOf(state), saidByMs: state.asOfMs };
  const links = noLinks();
  await readSupersessions(store, confirmed.map(({ entry }) => entry), time, links);
  const aboutChange = asksAboutChange(state.question);
  const wanted = memoriesToBringIn(confirmed, links, aboutChange);
  const fused = new Map(state.fused.map((hit) => [hit.key, hit]));
  const asHits = wanted.map((entry) => fused.get(hitKey(entry.namespace, entry.id)) ?? unrankedHit(entry));
  const admitted = asHits.length ? await recheck(store, state.namespaces, asHits, state.callerFilter) : [];
  const ordered = supersessionOrder(confirmed, links, new Map(admitted.map((answer) => [answer.hit.key, answer])), aboutChange);
  const answered = new Set(confirmed.map(({ hit }) => hit.key));
  const broughtIn = ordered.filter(({ hit }) => !answered.has(hit.key)).map(({ entry }) => entry);
  if (broughtIn.length) await readSupersessions(store, broughtIn, time, links);
  return withConflicts(
    ordered.map((answer) => withTimeProvenance(answer, links, time.atMs)),
    links,
  );
}

/** The run's reference time; the clock's when the state holds none (the plan node always writes one). */
function referenceMsOf(state: RetrievalStateValue): number {
  return state.referenceMs ?? Date.now();
}

/** A memory as a hit no view ranked, for the re-check. */
function unrankedHit(entry: MemoryEntry): FusedHit {
  return { key: hitKey(entry.namespace, entry.id), score: 0, provenance: { views: [], subQueries: [], ranks: [], fusedScore: 0 } };
}

/** How long past the run's deadline the final check may take: the answer waits this long rather than return what it could not confirm. */
export const FINAL_CHECK_GRACE_MS = 1_000;

/**
 * The store's final check, given until the deadline or FINAL_CHECK_GRACE_MS from now, whichever is
 * later; a store that has not answered by then gets an empty answer and a degradation record. Other
 * failures still fail the run.
 */
async function finalCheck(deadline: RunDeadline, degraded: Degradation[], check: () => Promise<AnswerHit[]>): Promise<AnswerHit[]> {
  const bound = { at: Math.max(deadline.at, Date.now() + FINAL_CHECK_GRACE_MS), ms: deadline.ms };
  try {
    return await withinDeadline(bound, check);
  } catch (error) {
    if (!(error instanceof DeadlineError)) throw error;
    degraded.push({ step: "finalize", error: `${error.message}: the store did not confirm the answers within ${FINAL_CHECK_GRACE_MS} ms more, so none is returned` });
    return [];
  }
}

/**
 * What a rerank orders: every fused candidate re-read from the store (a model's time is not spent on
 * what is gone), or, when the store misses the deadline, the entries as the views found them (the final
 * check still confirms whatever is returned).
 */
async function rerankCandidates(store: MemoryStore, state: RetrievalStateValue, fused: readonly FusedHit[], deadline: RunDeadline, degraded: Degradation[]): Promise<AnswerHit[]> {
  try {
    return await withinDeadline(deadline, () => recheck(store, state.namespaces, fused, state.callerFilter));
  } catch (error) {
    if (!(error instanceof DeadlineError)) throw error;
    degraded.push({ step: "rerank", error: `${error.message}: candidates as the views found them` });
    return asFound(state, fused);
  }
}

/**
 * The fused hits with the entries the views read this run, held to an asked namespace, as the store
 * would have held them without asking it (document versions need the store). The caller's filter
 * is not checked again: the views found these entries with it.
 */
function asFound(state: RetrievalStateValue, fused: readonly FusedHit[]): AnswerHit[] {
  const asked = new Set(state.namespaces);
  return fused.flatMap((hit) => {
    const entry = state.entries[hit.key];
    const [namespace] = splitHitKey(hit.key);
    return entry && asked.has(namespace) ? [{ hit, entry }] : [];
  });
}

/**
 * Fused hits whose entry still exists, in an asked namespace, at its document's latest version, meeting
 * the caller's filter. The filter is checked again because this reads the store again: an id written
 * again since the views searched is a new entry (its names and time may differ), and the memories
 * supersession brings in were never searched with the filter.
 */
async function recheck(
  store: MemoryStore,
  namespaces: readonly string[],
  fused: readonly FusedHit[],
  callerFilter: MemoryFilter | undefined,
): Promise<AnswerHit[]> {
  const asked = new Set(namespaces);
  const byNamespace = new Map<string, string[]>();
  for (const hit of fused) {
    const [namespace, id] = splitHitKey(hit.key);
    if (!asked.has(namespace)) continue;
    byNamespace.set(namespace, [...(byNamespace.get(namespace) ?? []), id]);
  }
  const current = new Map<string, MemoryEntry>();
  for (const [namespace, ids] of byNamespace) {
    const entries = await store.get(namespace, ids);
    const documentIds = [...new Set(entries.flatMap((e) => (e.source?.documentId ? [e.source.documentId] : [])))];
    const latest = documentIds.length ? await store.documentVersions(namespace, documentIds) : {};
    for (const entry of entries) {
      if (entry.namespace !== namespace || !matchesFilter(entry, callerFilter)) continue;
      const documentId = entry.source?.documentId;
      const version = entry.source?.version;
      if (documentId && version !== undefined && (latest[documentId] ?? version) > version) continue;
      current.set(hitKey(namespace, entry.id), entry);
    }
  }
  return fused.flatMap((hit) => {
    const entry = current.get(hit.key);
    return entry ? [{ hit, entry }] : [];
  });
}

/**
 * The first `wanted` of the fused hits that pass the re-check, in fused order: the same as re-checking
 * all of them and keeping the first `wanted` (each hit's check depends on its own entry alone), with
 * the hits after the first `wanted` read only when some of those were dropped.
 */
async function recheckFirst(
  store: MemoryStore,
  namespaces: readonly string[],
  fused: readonly FusedHit[],
  callerFilter: MemoryFilter | undefined,
  wanted: number,
): Promise<AnswerHit[]> {
  const first = await recheck(store, namespaces, fused.slice(0, wanted), callerFilter);
  if (first.length >= wanted || fused.length <= wanted) return first;
  return [...first, ...(await recheck(store, namespaces, fused.slice(wanted), callerFilter))];
}

function toResult(hit: FusedHit, entry: MemoryEntry, contentCap: number, rerankScore: number | undefined): RetrievalResult {
  const text = entry.text.length > contentCap ? `${entry.text.slice(0, contentCap - 1)}…` : entry.text;
  const result: RetrievalResult = {
    id: entry.id,
    namespace: entry.namespace,
    text,
    timestamp: entry.timestamp,
    persons: entry.persons,
    entities: entry.entities,
    score: hit.score,
    provenance: hit.provenance,
  };
  if (entry.speaker !== undefined) result.speaker = entry.speaker;
  if (entry.location !== undefined) result.location = entry.location;
  if (entry.topic !== undefined) result.topic = entry.topic;
  if (entry.source !== undefined) result.source = entry.source;
  if (entry.validFrom !== undefined) result.validFrom = entry.validFrom;
  if (entry.validUntil !== undefined) result.validUntil = entry.validUntil;
  if (rerankScore !== undefined) result.rerankScore = rerankScore;
  return result;
}
