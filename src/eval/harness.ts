import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { PresetName, RetrievalConfigInput } from "../graph/configuration.js";
import { createRetrievalGraph } from "../graph/graph.js";
import type { MemoryStore } from "../stores/port.js";
import type { Embedder } from "../text/embedder.js";
import { createEmbedder, type EmbedderConfig } from "../text/embedders/create-embedder.js";
import { cachedEmbedder, type CachedEmbeddings } from "./cached-embeddings.js";
import { loadEmbeddingCache, saveEmbeddingCache } from "./embedding-cache-file.js";
import { scoreRanking, type Judgements, type QuestionResult, type RankedIds } from "./metrics.js";
import { bm25Peer, inMemoryStorePeer, recallgraphRetriever, type CorpusEntry, type EvalRetriever, type JudgedIdsOf } from "./peers.js";

/**
 * What every benchmark's evaluation shares: the embedder with its cache, the retrievers (the asked
 * mode, then with peers every other mode, LangGraph's InMemoryStore and BM25), asking every question
 * of each, scoring and timing. A benchmark (run.ts for LoCoMo, beir-run.ts for BEIR) brings its
 * corpus, its questions and their judgements.
 */

export interface EvalProgress {
  phase: "embed entries" | "ingest" | "embed questions" | "ask";
  /** For "ask": the retriever being asked. */
  label?: string;
  done: number;
  total: number;
}

/** Live objects an evaluation may be given instead of configurations. */
export interface EvalContext {
  /** Overrides `options.embedder`. */
  embedder?: Embedder;
  /** A chat model for planning and reflection; default none (rules), the embedded default. */
  model?: BaseChatModel;
  /** Retrieval configuration laid over every recallgraph mode (e.g. to try a setting before making it a default). */
  retrieval?: RetrievalConfigInput;
  onProgress?: (progress: EvalProgress) => void;
}

/** One retriever's per-question results. */
export interface RetrieverRun {
  name: string;
  description: string;
  /** True for the mode the run was asked for (the headline row). */
  primary: boolean;
  results: QuestionResult[];
}

export interface EvalTimings {
  /** Embedding the entry texts once (the offline model is the slow part of the whole run). */
  embedEntriesSeconds: number;
  /** Writing the entries through the product's ingest path, vectors already computed. */
  ingestSeconds: number;
  embedQuestionsSeconds: number;
  /** Asking every question, per retriever (model time excluded). */
  askSeconds: Record<string, number>;
  totalSeconds: number;
  /** Texts the embedding model saw (each distinct text once) and the time it took. */
  textsEmbedded: number;
  modelSeconds: number;
  /** Vectors read from the embedding cache file (0 without one). */
  vectorsFromCache: number;
}

/** A question as the harness asks and scores it. */
export interface EvalCase {
  /** Unique within the run (QuestionResult.questionId). */
  id: string;
  namespace: string;
  question: string;
  /** Reference time, ISO 8601. */
  now: string;
  category?: number;
  judgements: Judgements;
}

/** Turns a retriever's answer into the ranking a benchmark scores (BEIR folds a document's parts into one). */
export type RankingOf = (ranked: RankedIds, question: EvalCase) => RankedIds;

export type EvalEmbedder = Embedder & { embeddings: CachedEmbeddings };
type ReportProgress = (progress: EvalProgress) => void;

/** A retriever to ask, and whether it is the requested mode. */
export interface EvalEntrant {
  retriever: EvalRetriever;
  primary: boolean;
}

/** The embedder every retriever of a run shares, its vectors cached in memory and, given a file, between runs. */
export async function openEvalEmbedder(
  config: EmbedderConfig,
  context: EvalContext,
  cacheFile: string | undefined,
): Promise<{ embedder: EvalEmbedder; vectorsFromCache: number }> {
  const embedder = cachedEmbedder(context.embedder ?? createEmbedder(config));
  const vectorsFromCache = cacheFile ? await loadEmbeddingCache(cacheFile, embedder.spec, embedder.embeddings) : 0;
  return { embedder, vectorsFromCache };
}

/**
 * Saves the run's vectors when a cache file was named and the cache holds more than `kept` (what the
 * file already has); returns what the file holds now. Called once the corpus and questions are
 * embedded, so a run that fails later still leaves the slow part done, and again at the end.
 */
export async function keepEmbeddings(embedder: EvalEmbedder, cacheFile: string | undefined, kept: number): Promise<number> {
  const size = embedder.embeddings.saved().size;
  if (!cacheFile || size <= kept) return kept;
  await saveEmbeddingCache(cacheFile, embedder.spec, embedder.embeddings);
  return size;
}

export interface EntrantSettings {
  mode: PresetName;
  peers: boolean;
  /** The modes a peers run compares (the requested one is asked first, whether listed or not). */
  peerModes: readonly PresetName[];
  judgedIdsOf: JudgedIdsOf;
}

/** The requested mode, then with peers every other mode, LangGraph's InMemoryStore and BM25. */
export async function evalEntrants(
  store: MemoryStore,
  embedder: EvalEmbedder,
  corpus: ReadonlyMap<string, readonly CorpusEntry[]>,
  settings: EntrantSettings,
  context: EvalContext,
): Promise<EvalEntrant[]> {
  const graph = createRetrievalGraph(context.model ? { store, embedder, model: context.model } : { store, embedder });
  const mode = (name: PresetName) => recallgraphRetriever(graph, name, settings.judgedIdsOf, context.retrieval);
  const entrants: EvalEntrant[] = [{ retriever: mode(settings.mode), primary: true }];
  if (!settings.peers) return entrants;
  for (const name of settings.peerModes) if (name !== settings.mode) entrants.push({ retriever: mode(name), primary: false });
  entrants.push({ retriever: await inMemoryStorePeer(embedder.embeddings, embedder.spec.dimension, corpus), primary: false });
  entrants.push({ retriever: bm25Peer(corpus), primary: false });
  return entrants;
}

/** Warms the question texts, so asking measures retrieval and not the model. */
export async function embedQuestions(cases: readonly EvalCase[], embeddings: CachedEmbeddings, progress: ReportProgress): Promise<void> {
  await embeddings.warm(
    cases.map((question) => question.question),
    (done, total) => progress({ phase: "embed questions", done, total }),
  );
}

/** Asks every question of every entrant in turn; ask time is per retriever, without embedding-model time. */
export async function askEveryEntrant(
  entrants: readonly EvalEntrant[],
  cases: readonly EvalCase[],
  ks: readonly number[],
  embeddings: CachedEmbeddings,
  progress: ReportProgress,
  rankingOf: RankingOf = (ranked) => ranked,
): Promise<{ runs: RetrieverRun[]; askSeconds: Record<string, number> }> {
  const askSeconds: Record<string, number> = {};
  const runs: RetrieverRun[] = [];
  for (const { retriever, primary } of entrants) {
    const report = (done: number, total: number) => progress({ phase: "ask", label: retriever.name, done, total });
    const asked = await timedOutsideModel(embeddings, () => askAll(retriever, cases, ks, embeddings, rankingOf, report));
    askSeconds[retriever.name] = asked.seconds;
    runs.push({ name: retriever.name, description: retriever.description, primary, results: asked.value });
  }
  return { runs, askSeconds };
}

async function askAll(
  retriever: EvalRetriever,
  cases: readonly EvalCase[],
  ks: readonly number[],
  embeddings: CachedEmbeddings,
  rankingOf: RankingOf,
  onProgress: (done: number, total: number) => void,
): Promise<QuestionResult[]> {
  const maxK = Math.max(...ks);
  const results: QuestionResult[] = [];
  onProgress(0, cases.length);
  for (const [i, question] of cases.entries()) {
    const modelMsBefore = embeddings.modelMs;
    const askStarted = performance.now();
    const answer = await retriever.ask({ namespace: question.namespace, question: question.question, now: question.now }, maxK);
    // Time inside the embedding model (sub-queries, gap queries not seen before) is not retrieval time.
    const latencyMs = performance.now() - askStarted - (embeddings.modelMs - modelMsBefore);
    results.push({
      questionId: question.id,
      ...(question.category !== undefined ? { category: question.category } : {}),
      latencyMs,
      llmCalls: answer.llmCalls,
      ...scoreRanking(rankingOf(answer.ranked, question), question.judgements, ks),
    });
    if ((i + 1) % 25 === 0 || i + 1 === cases.length) onProgress(i + 1, cases.length);
  }
  return results;
}

/** The run's timings from its phases' seconds and the embedder's counters. */
export function evalTimings(
  phases: { embedEntries: number; ingest: number; embedQuestions: number; askSeconds: Record<string, number>; started: number },
  embeddings: CachedEmbeddings,
  vectorsFromCache: number,
): EvalTimings {
  return {
    embedEntriesSeconds: phases.embedEntries,
    ingestSeconds: phases.ingest,
    embedQuestionsSeconds: phases.embedQuestions,
    askSeconds: phases.askSeconds,
    totalSeconds: secondsSince(phases.started),
    textsEmbedded: embeddings.textsEmbedded,
    modelSeconds: embeddings.modelMs / 1000,
    vectorsFromCache,
  };
}

/** Runs a phase; returns its value and the wall-clock seconds it took. */
export async function timed<T>(phase: () => Promise<T>): Promise<{ value: T; seconds: number }> {
  const started = performance.now();
  const value = await phase();
  return { value, seconds: secondsSince(started) };
}

/** As `timed`, less the time the phase spent inside the embedding model. */
export async function timedOutsideModel<T>(embeddings: CachedEmbeddings, phase: () => Promise<T>): Promise<{ value: T; seconds: number }> {
  const modelMsBefore = embeddings.modelMs;
  const { value, seconds } = await timed(phase);
  return { value, seconds: seconds - (embeddings.modelMs - modelMsBefore) / 1000 };
}

export function secondsSince(started: number): number {
  return (performance.now() - started) / 1000;
}

/** Distinct, ascending cut-offs. */
export function sortedKs(ks: readonly number[]): number[] {
  return [...new Set(ks)].sort((a, b) => a - b);
}
