import type { RunnableConfig } from "@langchain/core/runnables";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { callStructured, type ModelCallLimits } from "../llm/structured.js";
import { RerankOutputSchema } from "../llm/output-schemas.js";
import { MEMORY_PREVIEW_CHARS } from "../llm/prompts/preview.js";
import { RERANK_SYSTEM, rerankUserPrompt } from "../llm/prompts/rerank.js";
import type { MemoryEntry } from "../memory/entry.js";
import { matchesFilter } from "../stores/caller-filter.js";
import type { MemoryFilter, MemoryStore } from "../stores/port.js";
import type { GraphDependencies } from "../graph/dependencies.js";
import { plannedRun, type RetrievalStateValue } from "../graph/state.js";
import { hitKey, splitHitKey, type FusedHit } from "../domain/hits.js";
import type { RetrievalResult } from "../domain/results.js";
import { addNodeMs, timed } from "../graph/timing.js";
import { summarizeAccount, type Degradation, type LlmCallRecord } from "../domain/run-account.js";
import { takeTurns } from "../retrieval/readings.js";
import { withContextVotes } from "../retrieval/context-votes.js";
import type { RunSettings } from "../graph/run-settings.js";
import { DeadlineError, deadlineOf, pastDeadline, withDeadlineSignal, withinDeadline, type RunDeadline } from "../graph/deadline.js";

/**
 * Last node: every candidate is re-read from the store, the record of truth. Deleted or expired
 * entries, entries outside the asked namespaces or the caller's filter and superseded document
 * chunks are dropped; an optional LLM
 * rerank reorders what is left; the text is cut to the content cap. Both are bounded by the run's
 * deadline: a re-check that misses it answers with the entries the views found this run, a rerank
 * that misses it keeps the fused order, each recorded as degraded.
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
      // A rerank orders every candidate, so all are re-read; otherwise the first finalK usually survive
      // and the rest are read only to replace those that did not.
      const reranking = settings.rerank && model !== undefined;
      const check = () =>
        reranking ? recheck(store, state.namespaces, fused, state.callerFilter) : recheckFirst(store, state.namespaces, fused, state.callerFilter, finalK);
      const candidates = await boundedRecheck(deadline, degraded, check, () => asFound(state, fused));
      let ranked = candidates.map(({ hit, entry }) => ({ hit, entry, rerankScore: undefined as number | undefined }));
      if (settings.rerank && model && ranked.length > 1 && pastDeadline(deadline)) {
        degraded.push({ step: "rerank", error: `deadline of ${deadline.ms} ms reached: fused order kept` });
      } else if (settings.rerank && model && ranked.length > 1) {
        const reranked = await withDeadlineSignal(
          deadline,
          (signal) => rerank(model, state.question, ranked, { timeoutMs: settings.llmTimeoutMs, retries: settings.llmRetries, signal }),
          config?.signal,
        );
        llmCalls.push(reranked.record);
        if (reranked.order) ranked = reranked.order;
        else degraded.push({ step: "rerank", error: reranked.reason });
      }
      const results = ranked.slice(0, finalK).map(({ hit, entry, rerankScore }) => toResult(hit, entry, settings.contentCap, rerankScore));
      return { results, degraded, llmCalls };
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
 * named the wrong speaker is what the other said around the named one's words. Scores are the fused
 * ones, so they need not fall down the list.
 */
function answerOrder(state: RetrievalStateValue, settings: RunSettings): FusedHit[] {
  const depth = settings.finalK * 2;
  const { ranking, wordsReading, windowMs } = settings.contextVotes;
  const timeOf = (key: string) => state.entries[key]?.timestampMs;
  const inContext = (keys: readonly string[], weight: number) => withContextVotes(keys, timeOf, { weight, windowMs, rrfK: settings.rrfK });
  const byKey = new Map(state.fused.map((hit) => [hit.key, hit]));
  const final = [...inContext(state.fused.slice(0, depth).map((hit) => hit.key), ranking).flatMap((key) => byKey.get(key) ?? []), ...state.fused.slice(depth)];
  return state.beforeOwnWords ? takeTurns(final, inContext(state.beforeOwnWords, wordsReading), settings.readingTurns) : final;
}

type Candidate = { hit: FusedHit; entry: MemoryEntry };

/** The store's re-check, or, when it misses the deadline, `fallback` and a degradation record. Other failures still fail the run. */
async function boundedRecheck(
  deadline: RunDeadline,
  degraded: Degradation[],
  check: () => Promise<Candidate[]>,
  fallback: () => Candidate[],
): Promise<Candidate[]> {
  try {
    return await withinDeadline(deadline, check);
  } catch (error) {
    if (!(error instanceof DeadlineError)) throw error;
    degraded.push({ step: "finalize", error: `${error.message}: store re-check skipped, entries as the views found them this run` });
    return fallback();
  }
}

/**
 * The fused hits with the entries the views read this run, held to what the store would have checked
 * without asking it: an asked namespace and the caller's filter (document versions need the store).
 */
function asFound(state: RetrievalStateValue, fused: readonly FusedHit[]): Candidate[] {
  const asked = new Set(state.namespaces);
  return fused.flatMap((hit) => {
    const entry = state.entries[hit.key];
    const [namespace] = splitHitKey(hit.key);
    return entry && asked.has(namespace) && matchesFilter(entry, state.callerFilter) ? [{ hit, entry }] : [];
  });
}

/** Fused hits whose entry still exists, in an asked namespace, at its document's latest version, meeting the caller's filter. */
async function recheck(
  store: MemoryStore,
  namespaces: readonly string[],
  fused: readonly FusedHit[],
  filter: MemoryFilter | undefined,
): Promise<Candidate[]> {
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
      if (entry.namespace !== namespace || !matchesFilter(entry, filter)) continue;
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
  filter: MemoryFilter | undefined,
  wanted: number,
): Promise<Candidate[]> {
  const first = await recheck(store, namespaces, fused.slice(0, wanted), filter);
  if (first.length >= wanted || fused.length <= wanted) return first;
  return [...first, ...(await recheck(store, namespaces, fused.slice(wanted), filter))];
}

type Ranked = { hit: FusedHit; entry: MemoryEntry; rerankScore: number | undefined };

/**
 * LLM rerank, guarded against a weak model: the model sees the first 400 characters
 * of each hit; when fewer than half the scores parse the rerank is abandoned; ranks are renumbered.
 */
async function rerank(
  model: BaseChatModel,
  question: string,
  ranked: Ranked[],
  limits: ModelCallLimits,
): Promise<{ order?: Ranked[]; reason: string; record: LlmCallRecord }> {
  const reply = await callStructured(
    model,
    RerankOutputSchema,
    { system: RERANK_SYSTEM, user: rerankUserPrompt(question, ranked.map(({ entry }) => entry.text.slice(0, MEMORY_PREVIEW_CHARS))) },
    { step: "rerank", retries: limits.retries ?? 0, timeoutMs: limits.timeoutMs, signal: limits.signal },
  );
  if (!reply.ok) return { reason: `model failed: ${reply.record.error ?? "unknown"}`, record: reply.record };
  const scores = new Map<number, number>();
  for (const { index, score } of reply.value.scores) if (index < ranked.length && !scores.has(index)) scores.set(index, score);
  if (scores.size < ranked.length / 2) {
    return { reason: `only ${scores.size} of ${ranked.length} scores parsed; fused order kept`, record: reply.record };
  }
  const order = ranked
    .map((item, index) => ({ ...item, rerankScore: scores.get(index) ?? -1, index }))
    .sort((a, b) => b.rerankScore - a.rerankScore || a.index - b.index)
    .map(({ index: _index, ...item }) => item);
  return { order, reason: "", record: reply.record };
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
  if (rerankScore !== undefined) result.rerankScore = rerankScore;
  return result;
}
