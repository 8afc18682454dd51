import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { log } from "../core/log.js";
import type { RetrievalConfigInput } from "../graph/configuration.js";
import { DEFAULT_RULES, withRuleOff } from "../graph/default-rules.js";
import type { PresetName } from "../graph/preset-names.js";
import { createRetrievalGraph, type RetrievalGraph } from "../graph/graph.js";
import { closeEach } from "../library/open-recallgraph.js";
import type { MemoryStore } from "../stores/port.js";
import type { Embedder } from "../text/embedder.js";
import { createEmbedder, type EmbedderConfig } from "../text/embedders/create-embedder.js";
import { embedderProfileFor } from "../text/embedders/profiles.js";
import { cachedEmbedder, type CachedEmbeddings } from "./cached-embeddings.js";
import { loadEmbeddingCache, saveEmbeddingCache } from "./embedding-cache-file.js";
import { withSupersessionsHidden } from "./hidden-supersessions.js";
import { lancedbPeer, loadLancedb } from "./lancedb-peer.js";
import { openEvalStore, type EvalStore, type EvalStoreKind, type EvalStoreSettings } from "./eval-store.js";
import { newestFirst, scoreRanking, type Judgements, type QuestionResult, type RankedIds, type RankingScore } from "./metrics.js";
import { bm25Peer, inMemoryStorePeer, recallgraphRetriever, type CorpusEntry, type EvalCorpus, type EvalRetriever, type JudgedIdsOf, type RetrieverAnswer } from "./peers.js";

/**
 * What every benchmark's evaluation shares: the embedder with its cache, the retrievers (the asked
 * mode, then with peers every other mode, the default's rules off one at a time, LangGraph's
 * InMemoryStore and BM25), asking every question of each, scoring and timing. A benchmark (run.ts for
 * LoCoMo, beir-run.ts for BEIR) brings its corpus, its questions and their judgements.
 */

export interface EvalProgress {
  /** "ingest and ask": a run of several rounds (see Benchmark.rounds), counted in rounds. */
  phase: "embed entries" | "ingest" | "embed questions" | "ask" | "ingest and ask";
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
  /** The benchmark's unjudged questions (see BenchmarkRound.unjudged), asked and not scored; absent when it has none. */
  unjudged?: UnjudgedResult[];
  /** The same answers scored at the benchmark's other levels (see Benchmark.levels), by level name. */
  levels?: Record<string, QuestionResult[]>;
}

/** A question asked without judgements (nothing relevant exists): what came back, not a score. */
export interface UnjudgedResult {
  questionId: string;
  category?: number;
  /** Entries returned, at most the largest k: 0 is the right answer. */
  returned: number;
  latencyMs: number;
  /** The answer's highest dense similarity, where its retriever reports one. */
  bestSimilarity?: number;
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
  /** The relevant ids that state the current value where the others state an older one (BEAM's updated_info): their rank against the older ones is reported. */
  newest?: readonly string[];
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

/** What a benchmark's run is asked for: its embedder, the vector cache file, the store it writes to, the mode scored, and whether peers run too. */
export interface BenchmarkSettings {
  embedder: EmbedderConfig;
  store: EvalStoreSettings;
  embeddingCache?: string | undefined;
  mode: PresetName;
  peers: boolean;
  /** Also ask the mode of the same store with its supersessions hidden (withSupersessionsHidden), compared question by question. */
  supersessionBaseline?: boolean | undefined;
}

/**
 * What a benchmark brings to the shared run: how its corpus is embedded (once, before anything is
 * written), its rounds of writing and asking, and how a retriever's answers are scored.
 */
export interface Benchmark<Prepared> {
  /** Every text of the corpus through the model once; what the rounds' writes need of it. */
  embedCorpus(embeddings: CachedEmbeddings, progress: ReportProgress): Promise<Prepared>;
  /**
   * In order: each round's part of the corpus is written, then its questions are asked of every
   * retriever. A benchmark whose questions all come after the whole corpus has one round; RealMem
   * has one per asking session, so that a question sees only the sessions before its own.
   */
  rounds: readonly BenchmarkRound<Prepared>[];
  ks: readonly number[];
  /** The modes a peers run compares. */
  peerModes: readonly PresetName[];
  judgedIdsOf: JudgedIdsOf;
  rankingOf?: RankingOf;
  /** Further scorings of the same answers, beside `rankingOf` against each case's `judgements` (RealMem: turns, beside sessions). */
  levels?: readonly ScoringLevel[];
}

/** Part of a benchmark's run: a write, then questions asked of what has been written so far. */
export interface BenchmarkRound<Prepared> {
  /** This round's part of the corpus written through the product's ingest path into the run's store; returned by namespace, as the peers add it. */
  write(store: MemoryStore, embedder: EvalEmbedder, prepared: Prepared, progress: ReportProgress): Promise<EvalCorpus>;
  cases: readonly EvalCase[];
  /**
   * Questions whose right answer is that nothing relevant was said (BEAM's abstention questions):
   * asked of every retriever like the others, and what each returns counted, since no ranking of
   * nothing can be scored. Their `judgements` are empty.
   */
  unjudged?: readonly EvalCase[];
}

/** Another scoring of the answers a run got: its own ranking rule and judgements. */
export interface ScoringLevel {
  name: string;
  rankingOf: RankingOf;
  /** The question's judgements at this level; a question without any is not scored at this level. */
  judgementsOf(question: EvalCase): Judgements | undefined;
}

/** What the shared run gives back for a benchmark's report. */
export interface BenchmarkOutcome {
  /** The embedder, as a report names it. */
  embedder: string;
  /** Which kind of store the recallgraph modes searched (the peers keep their own indexes). */
  store: EvalStoreKind;
  /** Everything the rounds wrote, by namespace. */
  corpus: EvalCorpus;
  retrievers: RetrieverRun[];
  timings: EvalTimings;
}

/** What every run's result takes from its benchmark's outcome as it is. */
export function outcomeFields({ embedder, store, retrievers, timings }: BenchmarkOutcome): Pick<BenchmarkOutcome, "embedder" | "store" | "retrievers" | "timings"> {
  return { embedder, store, retrievers, timings };
}

/**
 * The phases every benchmark runs alike: the embedder and its cache, a fresh store (sqlite in memory, or
 * a new Qdrant collection), the corpus and the questions embedded, the vectors kept (once before the
 * first write, so a run that fails later keeps the slow part, and again after), then each round written
 * and its questions asked of every entrant, everything timed; then the store is discarded, whether the
 * run succeeded or not. `started` is when the benchmark began (reading its files counts in the total).
 */
export async function runBenchmark<Prepared>(benchmark: Benchmark<Prepared>, settings: BenchmarkSettings, context: EvalContext, started: number): Promise<BenchmarkOutcome> {
  const progress = context.onProgress ?? (() => {});
  const source = context.embedder ?? createEmbedder(settings.embedder);
  const ownsEmbedder = context.embedder === undefined;
  const embedder = cachedEmbedder(source);
  const embeddings = embedder.embeddings;
  const cacheFile = settings.embeddingCache;
  let opened: EvalStore | undefined;
  let entrants: EvalEntrant[] = [];
  const run = async (): Promise<BenchmarkOutcome> => {
    const vectorsFromCache = cacheFile ? await loadEmbeddingCache(cacheFile, embedder.spec, embeddings) : 0;
    opened = await openEvalStore(settings.store, embedder.spec);
    const { store } = opened;
    const prepared = await timed(() => benchmark.embedCorpus(embeddings, progress));
    const asked = benchmark.rounds.flatMap((round) => [...round.cases, ...(round.unjudged ?? [])]);
    const questionEmbedding = await timed(() => embedQuestions(asked, embeddings, progress));
    const kept = await keepEmbeddings(embedder, cacheFile, vectorsFromCache);
    const entrantSettings = {
      mode: settings.mode,
      peers: settings.peers,
      supersessionBaseline: settings.supersessionBaseline ?? false,
      peerModes: benchmark.peerModes,
      judgedIdsOf: benchmark.judgedIdsOf,
    };
    entrants = await evalEntrants(store, embedder, entrantSettings, context);
    const played = await playRounds(benchmark, { store, embedder, prepared: prepared.value, entrants }, progress);
    await keepEmbeddings(embedder, cacheFile, kept);
    const phases = { embedEntries: prepared.seconds, ingest: played.ingestSeconds, embedQuestions: questionEmbedding.seconds, askSeconds: played.askSeconds, started };
    return {
      embedder: `${embedder.spec.model} (${embedder.spec.dimension}-d)`,
      store: opened.kind,
      corpus: played.corpus,
      retrievers: played.runs,
      timings: evalTimings(phases, embeddings, vectorsFromCache),
    };
  };
  // The embedder is closed only when this run created it (a caller's is the caller's).
  const closers = () => entrants.map(({ retriever }) => (retriever.close ? () => retriever.close?.() : undefined));
  return afterwards(run, () => closeEach([...closers(), opened?.discard, ownsEmbedder ? () => source.close?.() : undefined]));
}

/** What the rounds are played with: the run's store and embedder, the embedded corpus, the entrants. */
interface RoundTools<Prepared> {
  store: MemoryStore;
  embedder: EvalEmbedder;
  prepared: Prepared;
  entrants: readonly EvalEntrant[];
}

/**
 * Each round in turn: its corpus written (and added to the peers' own indexes), then its questions
 * asked of every entrant. A run of several rounds reports progress in rounds, not the rounds' own steps.
 */
async function playRounds<Prepared>(
  benchmark: Benchmark<Prepared>,
  tools: RoundTools<Prepared>,
  progress: ReportProgress,
): Promise<{ corpus: EvalCorpus; runs: RetrieverRun[]; ingestSeconds: number; askSeconds: Record<string, number> }> {
  const { rounds } = benchmark;
  const stepProgress: ReportProgress = rounds.length > 1 ? () => {} : progress;
  const embeddings = tools.embedder.embeddings;
  const scoring: Scoring = { ks: benchmark.ks, rankingOf: benchmark.rankingOf, levels: benchmark.levels ?? [] };
  const corpus = new Map<string, CorpusEntry[]>();
  const seats = tools.entrants.map(({ retriever, primary }) => ({ retriever, run: emptyRun(retriever, primary, benchmark) }));
  const askSeconds: Record<string, number> = Object.fromEntries(seats.map(({ run }) => [run.name, 0]));
  let ingestSeconds = 0;
  for (const [index, round] of rounds.entries()) {
    const written = await timedOutsideModel(embeddings, () => round.write(tools.store, tools.embedder, tools.prepared, stepProgress));
    ingestSeconds += written.seconds;
    for (const [namespace, entries] of written.value) corpus.set(namespace, (corpus.get(namespace) ?? []).concat(entries));
    for (const { retriever, run } of seats) {
      await retriever.add?.(written.value);
      askSeconds[run.name] = (askSeconds[run.name] ?? 0) + (await askRound(retriever, round, scoring, run, embeddings, stepProgress));
    }
    if (rounds.length > 1) progress({ phase: "ingest and ask", done: index + 1, total: rounds.length });
  }
  return { corpus, runs: seats.map(({ run }) => run), ingestSeconds, askSeconds };
}

/** An entrant's run before any question: unjudged answers and further levels only where the benchmark has them. */
function emptyRun<Prepared>(retriever: EvalRetriever, primary: boolean, benchmark: Benchmark<Prepared>): RetrieverRun {
  const run: RetrieverRun = { name: retriever.name, description: retriever.description, primary, results: [] };
  if (benchmark.rounds.some((round) => (round.unjudged ?? []).length > 0)) run.unjudged = [];
  if (benchmark.levels?.length) run.levels = Object.fromEntries(benchmark.levels.map((level) => [level.name, []]));
  return run;
}

/**
 * Runs `work`, then `cleanup` however `work` ended. When both fail, `work`'s error is the one thrown
 * (it says why the run stopped) and the cleanup's is logged beside it (it may name a Qdrant collection
 * left behind); when only the cleanup fails, its error is thrown: a run that leaves something behind
 * has not ended well.
 */
async function afterwards<T>(work: () => Promise<T>, cleanup: () => Promise<void>): Promise<T> {
  let result: T;
  try {
    result = await work();
  } catch (error) {
    await cleanup().catch((cleanupError: unknown) => log.error("eval_cleanup_failed", { error: String(cleanupError) }));
    throw error;
  }
  await cleanup();
  return result;
}

/**
 * Saves the run's vectors when a cache file was named and the cache holds more than `kept` (what the
 * file already has); returns what the file holds now. Called once the corpus and questions are
 * embedded, so a run that fails later still leaves the slow part done, and again at the end.
 */
async function keepEmbeddings(embedder: EvalEmbedder, cacheFile: string | undefined, kept: number): Promise<number> {
  const size = embedder.embeddings.saved().size;
  if (!cacheFile || size <= kept) return kept;
  await saveEmbeddingCache(cacheFile, embedder.spec, embedder.embeddings);
  return size;
}

interface EntrantSettings {
  mode: PresetName;
  peers: boolean;
  supersessionBaseline: boolean;
  /** The modes a peers run compares (the requested one is asked first, whether listed or not). */
  peerModes: readonly PresetName[];
  judgedIdsOf: JudgedIdsOf;
}

/**
 * The requested mode, then with peers every other mode, the default with each of its rules off (when
 * the default is the mode asked), LangGraph's InMemoryStore, BM25 and LanceDB's hybrid search where its
 * package loads (the peers fill their indexes as rounds write).
 */
async function evalEntrants(store: MemoryStore, embedder: EvalEmbedder, settings: EntrantSettings, context: EvalContext): Promise<EvalEntrant[]> {
  const graph = createRetrievalGraph(context.model ? { store, embedder, model: context.model } : { store, embedder });
  const mode = (name: PresetName) => recallgraphRetriever(graph, name, settings.judgedIdsOf, context.retrieval);
  const entrants: EvalEntrant[] = [{ retriever: mode(settings.mode), primary: true }];
  if (settings.supersessionBaseline) entrants.push({ retriever: supersessionsHidden(store, embedder, settings, context), primary: false });
  if (!settings.peers) return entrants;
  for (const name of settings.peerModes) if (name !== settings.mode) entrants.push({ retriever: mode(name), primary: false });
  if (settings.mode === "full") entrants.push(...ruleAblations(graph, embedder, settings, context));
  entrants.push({ retriever: inMemoryStorePeer(embedder.embeddings, embedder.spec.dimension), primary: false });
  entrants.push({ retriever: bm25Peer(), primary: false });
  const loaded = await loadLancedb();
  if ("missing" in loaded) log.warn("eval_peer_skipped", { peer: "LanceDB hybrid", reason: loaded.missing });
  else entrants.push({ retriever: lancedbPeer(loaded.lancedb, embedder.embeddings), primary: false });
  return entrants;
}

/** The default asked again with each of its rules off that applies to this embedder, one rule at a time. */
function ruleAblations(graph: RetrievalGraph, embedder: EvalEmbedder, settings: EntrantSettings, context: EvalContext): EvalEntrant[] {
  const profile = embedderProfileFor(embedder.spec);
  return DEFAULT_RULES.flatMap((rule) => {
    const off = rule.off(profile);
    if (!off) return [];
    const retriever = recallgraphRetriever(graph, settings.mode, settings.judgedIdsOf, withRuleOff(context.retrieval ?? {}, off));
    return [{ retriever: { ...retriever, name: `${retriever.name} without ${rule.name}`, description: `${retriever.description}, ${rule.name} off` }, primary: false }];
  });
}

/** The requested mode over the same store with its supersessions hidden. */
function supersessionsHidden(store: MemoryStore, embedder: EvalEmbedder, settings: EntrantSettings, context: EvalContext): EvalRetriever {
  const hidden = withSupersessionsHidden(store);
  const graph = createRetrievalGraph(context.model ? { store: hidden, embedder, model: context.model } : { store: hidden, embedder });
  const retriever = recallgraphRetriever(graph, settings.mode, settings.judgedIdsOf, context.retrieval);
  return { ...retriever, name: `${retriever.name}, supersessions hidden`, description: `${retriever.description}, the same store with no memory superseding another` };
}

/** Warms the question texts, so asking measures retrieval and not the model. */
async function embedQuestions(cases: readonly EvalCase[], embeddings: CachedEmbeddings, progress: ReportProgress): Promise<void> {
  await embeddings.warm(
    cases.map((question) => question.question),
    (done, total) => progress({ phase: "embed questions", done, total }),
  );
}

/** How a round's answers are scored. */
interface Scoring {
  ks: readonly number[];
  rankingOf: RankingOf | undefined;
  levels: readonly ScoringLevel[];
}

/** Asks one entrant a round's questions, adding what it got to `run`; returns the seconds it took, without embedding-model time. */
async function askRound<Prepared>(
  retriever: EvalRetriever,
  round: BenchmarkRound<Prepared>,
  scoring: Scoring,
  run: RetrieverRun,
  embeddings: CachedEmbeddings,
  progress: ReportProgress,
): Promise<number> {
  const report = (done: number, total: number) => progress({ phase: "ask", label: retriever.name, done, total });
  const maxK = Math.max(...scoring.ks);
  const asked = await timedOutsideModel(embeddings, () => askAll(retriever, round.cases, scoring, run, embeddings, report));
  const unjudged = await timedOutsideModel(embeddings, () => askUnjudged(retriever, round.unjudged ?? [], maxK, embeddings));
  run.unjudged?.push(...unjudged.value);
  return asked.seconds + unjudged.seconds;
}

async function askAll(
  retriever: EvalRetriever,
  cases: readonly EvalCase[],
  scoring: Scoring,
  run: RetrieverRun,
  embeddings: CachedEmbeddings,
  onProgress: (done: number, total: number) => void,
): Promise<void> {
  const maxK = Math.max(...scoring.ks);
  onProgress(0, cases.length);
  for (const [i, question] of cases.entries()) {
    const modelMsBefore = embeddings.modelMs;
    const askStarted = performance.now();
    const answer = await retriever.ask({ namespace: question.namespace, question: question.question, now: question.now }, maxK);
    // Time inside the embedding model (sub-queries, gap queries not seen before) is not retrieval time.
    const latencyMs = performance.now() - askStarted - (embeddings.modelMs - modelMsBefore);
    const scored = (rankingOf: RankingOf, judgements: Judgements) => questionResult(question, answer, latencyMs, scoreRanking(rankingOf(answer.ranked, question), judgements, scoring.ks));
    const ranking = scoring.rankingOf ?? ((ranked) => ranked);
    const result = scored(ranking, question.judgements);
    if (question.newest?.length) result.newestFirst = newestFirst(ranking(answer.ranked, question), question);
    run.results.push(result);
    for (const level of scoring.levels) {
      const judgements = level.judgementsOf(question);
      if (judgements && judgements.size > 0) run.levels?.[level.name]?.push(scored(level.rankingOf, judgements));
    }
    if ((i + 1) % 25 === 0 || i + 1 === cases.length) onProgress(i + 1, cases.length);
  }
}

function questionResult(question: EvalCase, answer: RetrieverAnswer, latencyMs: number, score: RankingScore): QuestionResult {
  return {
    questionId: question.id,
    ...(question.category !== undefined ? { category: question.category } : {}),
    latencyMs,
    llmCalls: answer.llmCalls,
    ...score,
    ...(answer.bestSimilarity !== undefined ? { bestSimilarity: answer.bestSimilarity } : {}),
  };
}

/** Asks each unjudged question, `maxK` deep as the others, and counts what comes back. */
async function askUnjudged(retriever: EvalRetriever, cases: readonly EvalCase[], maxK: number, embeddings: CachedEmbeddings): Promise<UnjudgedResult[]> {
  const results: UnjudgedResult[] = [];
  for (const question of cases) {
    const modelMsBefore = embeddings.modelMs;
    const askStarted = performance.now();
    const answer = await retriever.ask({ namespace: question.namespace, question: question.question, now: question.now }, maxK);
    const latencyMs = performance.now() - askStarted - (embeddings.modelMs - modelMsBefore);
    results.push({
      questionId: question.id,
      ...(question.category !== undefined ? { category: question.category } : {}),
      returned: answer.ranked.length,
      latencyMs,
      ...(answer.bestSimilarity !== undefined ? { bestSimilarity: answer.bestSimilarity } : {}),
    });
  }
  return results;
}

/** The run's timings from its phases' seconds and the embedder's counters. */
function evalTimings(
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
async function timedOutsideModel<T>(embeddings: CachedEmbeddings, phase: () => Promise<T>): Promise<{ value: T; seconds: number }> {
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
