/**
 * Speed benchmark (a script, not a test): ingest rate, index build, latency of the full graph with the
 * rule-based planner and judge (no LLM: plan, three views, RRF, reflection, re-check), where its time
 * goes, peak RSS and, with an index, the semantic view's recall@10, at several namespace sizes; beside
 * peers that answer the same questions on the same data in the same run.
 *
 *   npm run bench:speed -- [--sizes 1000,10000,100000] [--queries 100] [--index exact|hnsw|exact,hnsw] [--scalar-kind f32|f16|i8]
 *                          [--peers inmemory|lancedb|inmemory,lancedb|none] [--embedder use-lite|onnx]
 *                          [--json] [--no-chart] [--markdown]
 *   npm run bench:speed -- --from bench/results/speed.json   (the tables from saved results)
 *   npm run bench:speed -- --sizes 1000000 --index hnsw --keep <dir>/memory.db ...   (the store and its index kept at that path)
 *   npm run bench:speed -- --reuse <dir>/memory.db [--scalar-kind i8] [--queries 100] [--no-exact]   (only the questions, on a kept store; JSON)
 *   npm run bench:speed -- --store qdrant [--sizes 788] [--queries 100]   (the Qdrant path: QDRANT_URL, else the tests' stub; speed-qdrant.ts)
 *
 * Honest setup notes, also printed with the results:
 * - Memories and questions are synthetic (bench/synthetic.ts, fixed seeds), one namespace per size,
 *   sqlite file store. Every side builds its own copy of the same data.
 * - Vectors at every size come from the deterministic hashing embedder (512-d), so building 100k
 *   entries takes seconds, not the hour the offline model would need. The offline model's own rates
 *   are read from bench:embedding's results and reported next to these, not measured here.
 * - `--index hnsw` gives the store `vectorIndex: "hnsw"` with hnswMinEntries 1, so every size is
 *   searched through the index (the store's default indexes only namespaces of 50,000 or more); the
 *   index is built before the questions are timed (indexBuildMs), as are the in-memory lexical terms.
 *   `--scalar-kind` sets its hnswScalarKind. Its answers are compared with exact search on the same file,
 *   the semantic view's (semanticRecallAt10) and the full graph's (graphAgreementAt10), and a second
 *   process then opens the closed store and answers a question (reopen: the saved index and terms loaded, not rebuilt).
 * - "ingestPerSec" is the product's write path (validation, one transaction per batch, FTS5 + vector
 *   + name indexes) with the time spent inside the embedder taken out.
 * - Latencies include embedding the question with the hashing embedder (fractions of a ms).
 * - Each size, each index and each peer runs in a child process of its own, so each peak RSS is that
 *   side's alone.
 * - The per-node breakdown (speed-breakdown.ts, BreakdownSchema) comes from a second pass over the same
 *   questions: each through the graph, then through the same node functions chained by hand.
 * - Peers: LangGraph's InMemoryStore (dense search only, the same embedder); LanceDB's hybrid query,
 *   exact and indexed (speed-lancedb.ts). Ratios are recallgraph's latency over a peer's in this run.
 * - 2 shared cores here: each side records the load average when it began and ended.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { PerformanceObserver } from "node:perf_hooks";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { Embeddings } from "@langchain/core/embeddings";
import { InMemoryStore, type PutOperation } from "@langchain/langgraph";
import type { z } from "zod";
import { ValidationError } from "../src/core/errors.js";
import { latencySummary as latency, roundTo as round } from "../src/eval/metrics.js";
import { createRetrievalGraph, type RetrievalGraph } from "../src/graph/graph.js";
import { writeMemories } from "../src/ingest/write-memories.js";
import { retrieve } from "../src/library/retrieve.js";
import { openSqliteStore, type SqliteMemoryStore, type SqliteStoreOptions } from "../src/stores/sqlite/store.js";
import type { HnswScalarKind } from "../src/stores/sqlite/hnsw-index.js";
import type { VectorIndexKind } from "../src/stores/sqlite/vector-search-fields.js";
import type { Embedder } from "../src/text/embedder.js";
import { createHashEmbedder } from "../src/text/embedders/create-embedder.js";
import { hashEmbed } from "../src/text/embedders/hash-features.js";
import { EmbeddingBenchSchema, embeddingResultsPath, type BenchedEmbedder } from "./embedding.js";
import { machineDescription } from "./machine.js";
import { ownPeakRssMb } from "./peak-rss.js";
import { recallAgainstExact, type RankedHit } from "./recall.js";
import { parseSpeedArgs, speedUsage, type SpeedArgs } from "./speed-args.js";
import { breakdownOf } from "./speed-breakdown.js";
import { speedBreakdownChart, speedChart, speedMemoryChart, speedReadmeTables } from "./speed-chart.js";
import { floorSide } from "./graph-floor.js";
import { lancedbSide, loadLancedb } from "./speed-lancedb.js";
import { qdrantNotes, qdrantSide, qdrantSpeedTable, withQdrantTarget } from "./speed-qdrant.js";
import {
  ChildOutputSchema,
  FloorSideSchema,
  GraphAgreementSchema,
  InMemorySideSchema,
  LancedbSideSchema,
  QdrantSideSchema,
  QdrantSpeedResultsSchema,
  RecallgraphSideSchema,
  ReopenSideSchema,
  questionsAsked,
  ratiosOf,
  SpeedResultsSchema,
  type QdrantSpeedResults,
  type MemoryPhase,
  type RecallgraphSide,
  type ReopenSide,
  type SizeResult,
  type SpeedEmbedding,
  type SpeedResults,
} from "./speed-results.js";
import { SYNTHETIC_NOW, syntheticMemoryBatches, syntheticQuestions } from "./synthetic.js";

const NAMESPACE = "bench";
/**
 * Memories per write call: a call holds its inputs, vectors and checked copies until it commits
 * (write-memories.ts), so one call of 100k would measure that transient, not the store's own memory.
 */
const INGEST_BATCH = 10_000;
const HERE = dirname(fileURLToPath(import.meta.url));
const RESULTS_DIR = join(HERE, "results");

/** Embeddings that add up the time spent inside the wrapped ones, so ingest can be timed without them. */
class TimedEmbeddings extends Embeddings {
  spentMs = 0;

  constructor(private readonly inner: Embeddings) {
    super({ maxRetries: 0 });
  }

  override async embedDocuments(texts: string[]): Promise<number[][]> {
    return this.measure(() => this.inner.embedDocuments(texts));
  }

  override async embedQuery(text: string): Promise<number[]> {
    return this.measure(() => this.inner.embedQuery(text));
  }

  private async measure<T>(work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await work();
    } finally {
      this.spentMs += performance.now() - started;
    }
  }
}

/** The process's memory now, after `phase`. */
function memoryAfter(phase: string): MemoryPhase {
  const mb = (bytes: number) => Math.round(bytes / (1024 * 1024));
  const usage = process.memoryUsage();
  return {
    phase,
    rssMb: mb(usage.rss),
    heapUsedMb: mb(usage.heapUsed),
    externalMb: mb(usage.external),
    arrayBuffersMb: mb(usage.arrayBuffers),
    peakRssMb: ownPeakRssMb(),
  };
}

/** ms that `work` took. */
async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return round(performance.now() - started, 1);
}

/** The store's settings for each dense search: every size through the index with hnsw, so small sizes measure it too. */
function storeOptions(index: VectorIndexKind, scalarKind: HnswScalarKind): Partial<SqliteStoreOptions> {
  return index === "hnsw" ? { vectorIndex: "hnsw", hnswMinEntries: 1, hnswScalarKind: scalarKind } : { vectorIndex: "exact" };
}

/**
 * Writes the synthetic memories through the product's write path, INGEST_BATCH per call as they are
 * generated; ms in all and ms outside the embedder.
 */
async function ingest(store: SqliteMemoryStore, size: number): Promise<{ embedder: Embedder; writeMs: number; ingestMs: number }> {
  const hash = createHashEmbedder();
  const timedEmbeddings = new TimedEmbeddings(hash.embeddings);
  const embedder: Embedder = { ...hash, embeddings: timedEmbeddings };
  const started = performance.now();
  for (const batch of syntheticMemoryBatches(size, INGEST_BATCH)) await writeMemories(store, embedder, NAMESPACE, batch);
  const writeMs = performance.now() - started;
  return { embedder, writeMs, ingestMs: writeMs - timedEmbeddings.spentMs };
}

/** Questions timed, and answered before them untimed. */
interface Asking {
  queries: number;
  warmup: number;
}

/** One timed question: its wall time and the garbage collection's pauses within it. */
interface QuestionTime {
  ms: number;
  gcMs: number;
}

/** Wall time of the full graph per question, after the warm-up questions, with the GC pauses within each. */
async function retrieveTimes(graph: RetrievalGraph, questions: readonly string[], warmup: number): Promise<QuestionTime[]> {
  const pauses: Array<{ start: number; end: number }> = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) pauses.push({ start: entry.startTime, end: entry.startTime + entry.duration });
  });
  observer.observe({ entryTypes: ["gc"] });
  const spans: Array<{ start: number; end: number }> = [];
  try {
    for (const [i, question] of questions.entries()) {
      const asked = performance.now();
      await retrieve(graph, { question, namespace: NAMESPACE, now: SYNTHETIC_NOW });
      if (i >= warmup) spans.push({ start: asked, end: performance.now() });
    }
    // The observer reports after the fact: give it the last pauses before reading them.
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    observer.disconnect();
  }
  const within = (span: { start: number; end: number }) =>
    pauses.reduce((sum, pause) => sum + Math.max(0, Math.min(pause.end, span.end) - Math.max(pause.start, span.start)), 0);
  return spans.map((span) => ({ ms: span.end - span.start, gcMs: within(span) }));
}

/** Each question's top 10 ids and texts through the full graph. */
async function graphTopTens(graph: RetrievalGraph, questions: readonly string[]): Promise<GraphHit[][]> {
  const answers: GraphHit[][] = [];
  for (const question of questions) {
    const { results } = await retrieve(graph, { question, namespace: NAMESPACE, now: SYNTHETIC_NOW });
    answers.push(results.slice(0, 10).map(({ id, text }) => ({ id, text })));
  }
  return answers;
}

interface GraphHit {
  id: string;
  text: string;
}

/** How much of each exact top 10 the indexed one holds, by id and by text, and how many are the same list. */
function graphAgreement(found: readonly GraphHit[][], truth: readonly GraphHit[][]): z.infer<typeof GraphAgreementSchema> {
  // Scored alike, so only recallAgainstExact's share of ids counts: by id, then with each text as the id.
  const keyed = (lists: readonly GraphHit[][], key: keyof GraphHit): RankedHit[][] => lists.map((hits) => hits.map((hit) => ({ id: hit[key], score: 0 })));
  const same = truth.filter((exact, q) => exact.map((hit) => hit.id).join("\n") === (found[q] ?? []).map((hit) => hit.id).join("\n")).length;
  return {
    byId: round(recallAgainstExact(keyed(found, "id"), keyed(truth, "id")).byId, 4),
    byText: round(recallAgainstExact(keyed(found, "text"), keyed(truth, "text")).byId, 4),
    identical: round(same / Math.max(1, truth.length), 4),
  };
}

/**
 * The indexed store's answers against exact search on the same file, opened read-only beside it: the
 * semantic view's dense search (k 10, each question's vector) and the full graph's top 10.
 */
async function againstExact(indexed: SqliteMemoryStore, embedder: Embedder, path: string, questions: readonly string[]) {
  const spec = embedder.spec;
  const exact = await openSqliteStore({ path, embedding: spec, readOnly: true, vectorIndex: "exact", vectorCacheMiB: 16_384 });
  try {
    const ranked = (hits: ReadonlyArray<{ entry: { id: string }; score: number }>): RankedHit[] => hits.map((hit) => ({ id: hit.entry.id, score: hit.score }));
    const found: RankedHit[][] = [];
    const truth: RankedHit[][] = [];
    for (const question of questions) {
      const vector = hashEmbed(question, spec.dimension);
      found.push(ranked(await indexed.denseSearch(NAMESPACE, vector, { k: 10 })));
      truth.push(ranked(await exact.denseSearch(NAMESPACE, vector, { k: 10 })));
    }
    const recall = recallAgainstExact(found, truth);
    const indexedAnswers = await graphTopTens(createRetrievalGraph({ store: indexed, embedder }), questions);
    const exactAnswers = await graphTopTens(createRetrievalGraph({ store: exact, embedder }), questions);
    return {
      semanticRecallAt10: { tieAware: round(recall.tieAware, 4), byId: round(recall.byId, 4) },
      graphAgreementAt10: graphAgreement(indexedAnswers, exactAnswers),
    };
  } finally {
    await exact.close();
  }
}

interface AskedStore extends Asking {
  store: SqliteMemoryStore;
  embedder: Embedder;
  path: string;
  /** The phases' memory, to which the questions' phases are added. */
  memory: MemoryPhase[];
  /** Whether to compare the answers with exact search on the same file (an indexed store). */
  compare: boolean;
}

/** The timed questions, their breakdown, the peak RSS, and the comparison with exact search, on a store whose terms and index are ready. */
async function askQuestions({ store, embedder, path, queries, warmup, memory, compare }: AskedStore) {
  const graph = createRetrievalGraph({ store, embedder });
  const questions = syntheticQuestions(queries + warmup);
  const times = await retrieveTimes(graph, questions, warmup);
  memory.push(memoryAfter("questions asked"));
  const breakdown = await breakdownOf(graph, { store, embedder }, NAMESPACE, questions.slice(warmup));
  memory.push(memoryAfter("breakdown pass"));
  // Read before the comparison with exact search, whose copy of the vectors is the benchmark's, not the product's.
  const peakRssMb = ownPeakRssMb();
  const compared = compare ? await againstExact(store, embedder, path, questions.slice(warmup)) : null;
  const measured = {
    retrieveMs: latency(times.map((time) => time.ms)),
    breakdown,
    peakRssMb,
    semanticRecallAt10: compared?.semanticRecallAt10 ?? null,
    graphAgreementAt10: compared?.graphAgreementAt10 ?? null,
  };
  return { questions: questions.slice(warmup), times, measured };
}

/** Measures one side on a new store file at `path`, closed when done (an index saved with it). */
async function measureStore(path: string, size: number, asking: Asking, index: VectorIndexKind, scalarKind: HnswScalarKind) {
  const before = loadavg();
  const spec = createHashEmbedder().spec;
  const memory = [memoryAfter("started")];
  const store = await openSqliteStore({ path, embedding: spec, ...storeOptions(index, scalarKind) });
  try {
    const { embedder, writeMs, ingestMs } = await ingest(store, size);
    memory.push(memoryAfter("ingested"));
    // Read now rather than in the background among the timed questions (InMemoryStore indexes at put time).
    const lexicalBuildMs = await timed(() => store.buildLexicalIndex(NAMESPACE));
    memory.push(memoryAfter("lexical terms read"));
    const indexBuildMs = index === "hnsw" ? await timed(() => buildIndex(store)) : null;
    if (index === "hnsw") memory.push(memoryAfter("index built"));
    const asked = await askQuestions({ store, embedder, path, ...asking, memory, compare: index === "hnsw" });
    return {
      ingestPerSec: Math.round(size / (ingestMs / 1000)),
      ingestWithHashEmbeddingPerSec: Math.round(size / (writeMs / 1000)),
      indexBuildMs,
      lexicalBuildMs,
      ...asked.measured,
      memory,
      load: { before, after: loadavg() },
    };
  } finally {
    await store.close();
  }
}

/** Measures recallgraph on a new store: in a temporary folder, removed when done, or at `keep`, kept with its index for --reuse. */
async function recallgraphSide(size: number, asking: Asking, index: VectorIndexKind, scalarKind: HnswScalarKind, keep: string | undefined): Promise<RecallgraphSide> {
  if (keep !== undefined && existsSync(keep)) throw new ValidationError("keep", `"${keep}" exists: --keep builds a new store there`);
  const directory = keep === undefined ? mkdtempSync(join(tmpdir(), "recallgraph-speed-")) : undefined;
  const path = directory === undefined ? (keep ?? "") : join(directory, "memory.db");
  try {
    const measured = await measureStore(path, size, asking, index, scalarKind);
    // After the close: the second process finds the index as a restart would, saved with the store.
    const reopen = index === "hnsw" ? reopenInChild(path, scalarKind) : null;
    return { side: "recallgraph", index, entries: size, ...(index === "hnsw" ? { scalarKind } : {}), ...measured, reopen };
  } finally {
    if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
  }
}

/** A second process opening the closed store: what `--child reopen` measures. */
function reopenInChild(path: string, scalarKind: HnswScalarKind): Omit<ReopenSide, "side"> {
  const { side: _side, ...run } = ReopenSideSchema.parse(inChild(["--child", "reopen", "--path", path, "--scalar-kind", scalarKind]));
  return run;
}

/** Opens the store at `path` as the hnsw side did, readies its index (which must load, not build) and answers one question. */
async function reopenSide(path: string, scalarKind: HnswScalarKind): Promise<ReopenSide> {
  const embedder = createHashEmbedder();
  const memory = [memoryAfter("started")];
  const opening = performance.now();
  const store = await openSqliteStore({ path, embedding: embedder.spec, ...storeOptions("hnsw", scalarKind) });
  const openMs = round(performance.now() - opening, 1);
  memory.push(memoryAfter("opened"));
  try {
    const loading = performance.now();
    const result = await store.buildVectorIndex(NAMESPACE);
    const indexLoadMs = round(performance.now() - loading, 1);
    if (result !== "loaded") throw new Error(`reopen: expected the saved index to load, the store answered "${result}"`);
    memory.push(memoryAfter("index loaded"));
    const termsLoadMs = await timed(() => store.buildLexicalIndex(NAMESPACE));
    if (store.lexicalIndexCounters().loaded !== 1) throw new Error("reopen: expected the saved lexical terms to load, the store read them again");
    memory.push(memoryAfter("lexical terms loaded"));
    const graph = createRetrievalGraph({ store, embedder });
    const [question = ""] = syntheticQuestions(1);
    const firstQuestionMs = await timed(() => retrieve(graph, { question, namespace: NAMESPACE, now: SYNTHETIC_NOW }));
    memory.push(memoryAfter("first question"));
    return { side: "reopen", openMs, indexLoadMs, termsLoadMs, firstQuestionMs, built: store.vectorSearchCounters().built, peakRssMb: ownPeakRssMb(), memory };
  } finally {
    await store.close();
  }
}

/** The slowest questions --reuse reports. */
const SLOWEST = 8;

/**
 * `--reuse`: the store --keep kept, opened as the hnsw side opens it, its terms read and its saved index
 * loaded, then only the questions measured (as measureStore does), with the slowest of them and the GC
 * pauses within each: the 1M store is built once (~15 minutes), then measured again in ~2-3.
 */
async function reuseStore(args: SpeedArgs, path: string) {
  if (!existsSync(path)) throw new ValidationError("reuse", `no store at "${path}": build one with --keep`);
  const before = loadavg();
  const embedder = createHashEmbedder();
  const memory = [memoryAfter("started")];
  const store = await openSqliteStore({ path, embedding: embedder.spec, ...storeOptions("hnsw", args.scalarKind) });
  try {
    const lexicalBuildMs = await timed(() => store.buildLexicalIndex(NAMESPACE));
    memory.push(memoryAfter("lexical terms read"));
    const loading = performance.now();
    const result = await store.buildVectorIndex(NAMESPACE);
    if (result !== "loaded") throw new Error(`--reuse: expected the saved index to load, the store answered "${result}" (same --scalar-kind as --keep?)`);
    const indexLoadMs = round(performance.now() - loading, 1);
    memory.push(memoryAfter("index loaded"));
    const asked = await askQuestions({ store, embedder, path, queries: args.queries, warmup: args.warmup, memory, compare: args.exact });
    const slowest = asked.times
      .map((time, i) => ({ question: asked.questions[i] ?? "", ms: round(time.ms, 1), gcMs: round(time.gcMs, 1), order: i }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, SLOWEST);
    return {
      path,
      lexicalBuildMs,
      indexLoadMs,
      ...asked.measured,
      gcMsPerQuestion: round(asked.times.reduce((sum, time) => sum + time.gcMs, 0) / Math.max(1, asked.times.length), 2),
      slowest,
      memory,
      load: { before, after: loadavg() },
    };
  } finally {
    await store.close();
  }
}

async function buildIndex(store: SqliteMemoryStore): Promise<void> {
  const result = await store.buildVectorIndex(NAMESPACE);
  if (result !== "built") throw new Error(`--index hnsw: expected the store to build an HNSW index, it answered "${result}" (is usearch installed?)`);
}

async function inMemorySide(size: number, { queries, warmup }: Asking): Promise<z.infer<typeof InMemorySideSchema>> {
  const before = loadavg();
  const embedder = createHashEmbedder();
  const store = new InMemoryStore({ index: { embeddings: embedder.embeddings, dims: embedder.spec.dimension, fields: ["text"] } });
  const started = performance.now();
  for (const batch of syntheticMemoryBatches(size, 1000)) {
    const operations: PutOperation[] = batch.map((memory) => ({ namespace: [NAMESPACE], key: memory.id ?? "", value: { text: memory.text } }));
    await store.batch(operations);
  }
  const buildMs = performance.now() - started;
  const questions = syntheticQuestions(queries + warmup);
  const times: number[] = [];
  for (const [i, question] of questions.entries()) {
    const asked = performance.now();
    await store.search([NAMESPACE], { query: question, limit: 10 });
    if (i >= warmup) times.push(performance.now() - asked);
  }
  return { side: "inmemory", buildPerSec: Math.round(size / (buildMs / 1000)), searchMs: latency(times), peakRssMb: ownPeakRssMb(), load: { before, after: loadavg() } };
}

/** Runs one measurement in a fresh process (its own heap, its own peak RSS) and reads its JSON line. */
function inChild(args: readonly string[], env: Record<string, string> = {}): z.infer<typeof ChildOutputSchema> {
  const child = spawnSync(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url), ...args], {
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, RECALLGRAPH_LOG_LEVEL: "error", ...env },
  });
  if (child.status !== 0) throw new Error(`benchmark child ${args.join(" ")} failed (${child.status ?? child.signal}): ${child.stderr.slice(-2000)}`);
  const lastLine = child.stdout.trim().split("\n").at(-1) ?? "";
  return ChildOutputSchema.parse(JSON.parse(lastLine));
}

/** One size: recallgraph with each dense search asked for, then each peer, each in a child process. */
function measureSize(args: SpeedArgs, size: number, note: (text: string) => void): SizeResult {
  const counts = ["--size", String(size), ...askingFlags(args)];
  const measured: Omit<SizeResult, "ratios"> = { entries: size, recallgraph: {} };
  for (const index of args.index) {
    note(`  ${size} entries: recallgraph, ${index} dense search ... (load ${loadLine()})`);
    const kept = args.keep === undefined ? [] : ["--keep", args.keep];
    const child = ["--child", "recallgraph", "--index", index, "--scalar-kind", args.scalarKind, ...counts, ...kept];
    const { side: _side, index: _index, entries: _entries, ...run } = RecallgraphSideSchema.parse(inChild(child));
    measured.recallgraph[index] = run;
  }
  if (args.peers.includes("inmemory")) {
    note(`  ${size} entries: InMemoryStore ... (load ${loadLine()})`);
    const { side: _side, ...run } = InMemorySideSchema.parse(inChild(["--child", "inmemory", ...counts]));
    measured.inMemoryStore = run;
  }
  if (args.peers.includes("lancedb")) {
    note(`  ${size} entries: LanceDB ... (load ${loadLine()})`);
    const { side: _side, entries: _entries, ...run } = LancedbSideSchema.parse(inChild(["--child", "lancedb", ...counts]));
    measured.lancedb = run;
  }
  return { ...measured, ratios: ratiosOf(measured) };
}

/** How many questions a child asks, timed and before. */
const askingFlags = (args: SpeedArgs) => ["--queries", String(args.queries), "--warmup", String(args.warmup)];

const loadLine = () => loadavg().map((value) => value.toFixed(2)).join(" ");

async function main(): Promise<void> {
  if (process.argv.includes("--help")) {
    process.stdout.write(`${speedUsage()}\n`);
    return;
  }
  const args = parseSpeedArgs(process.argv.slice(2));
  if (args.child) {
    process.stdout.write(`${JSON.stringify(await childSide(args))}\n`);
    return;
  }
  if (args.store === "qdrant") return qdrantMain(args);
  if (args.reuse !== undefined) {
    process.stdout.write(`${JSON.stringify(await reuseStore(args, args.reuse), null, 2)}\n`);
    return;
  }
  if (args.keep !== undefined && (args.sizes.length !== 1 || args.index.length !== 1)) {
    throw new ValidationError("keep", "--keep keeps one store: give one size (--sizes) and one index (--index)");
  }

  if (args.from) {
    const saved = SpeedResultsSchema.parse(JSON.parse(readFileSync(args.from, "utf8")));
    process.stdout.write(`${args.markdown ? markdownOf(saved) : speedReport(saved)}\n`);
    return;
  }
  const note = (text: string) => process.stderr.write(`${text}\n`);
  note(`speed benchmark: sizes ${args.sizes.join(", ")}, ${args.queries} questions each after ${args.warmup} untimed, index ${args.index.join(" and ")} (hnsw ${args.scalarKind}), peers ${args.peers.join(", ") || "none"}; ${machineDescription()}`);
  // Checked first, so that a missing results file or native binary fails before minutes of measuring, not after.
  const embedding = embeddingRates(args.embedder);
  if (embedding.status === "missing") note(`  ${embedding.note}`);
  if (args.peers.includes("lancedb")) {
    const loaded = await loadLancedb();
    if ("missing" in loaded) throw new Error(`--peers lancedb: ${loaded.missing}`);
  }
  const results: SpeedResults = {
    version: 2,
    measuredAt: new Date().toISOString(),
    sizes: {},
    embedding,
    queries: args.queries,
    warmup: args.warmup,
    machine: machineDescription(),
    load: { before: loadavg(), after: loadavg() },
    notes: NOTES,
  };
  note(`  the framework's floor (nodes that do nothing) ... (load ${loadLine()})`);
  const { side: _side, ...floor } = FloorSideSchema.parse(inChild(["--child", "floor", ...askingFlags(args)]));
  results.frameworkFloor = floor;
  for (const size of args.sizes) {
    results.sizes[String(size)] = measureSize(args, size, note);
    results.load.after = loadavg();
    // Saved after every size: a large size takes long here, and what was measured before a failure is kept.
    if (args.chart) saveResults(results, note);
  }
  if (args.json) {
    process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
    return;
  }
  process.stdout.write(`${args.markdown ? markdownOf(results) : speedReport(results)}\n`);
}

const NOTES = [
  "synthetic memories and questions (bench/synthetic.ts, fixed seeds), one namespace per size, sqlite file store; every side builds its own copy of the same data, generated and written a batch at a time (recallgraph: 10k memories per writeMemories call), so no side's peak RSS holds the whole data set as JS objects",
  "vectors from the deterministic hashing embedder (512-d) at every size, for every side; the offline model's rates are read from the embedding benchmark's results, not measured here",
  "recallgraph runs plan + 3 views + RRF + reflection + re-check by rules, no LLM; ingestPerSec excludes time inside the embedder; latencies include embedding the question",
  "hnsw: vectorIndex hnsw with hnswMinEntries 1 (every size indexed) and the run's hnswScalarKind, built before the questions; semantic recall@10 = denseSearch k 10 of each question's vector against exact search, tie-aware; graph agreement = the full graph's top 10 against the same graph over exact search; reopen = a second process opening the closed store, its saved index and lexical terms loaded (not rebuilt), one question answered",
  "breakdown: ms per question (means of a second pass); nodes' own wall time (run account) and CPU time from the same node functions chained by hand (same answers checked); framework = graph invoke minus the nodes' own time",
  "framework floor: the retrieval graph's shape (the same state channels, node wrappers, Send fan-out to the three views, one round) with nodes that return nothing, asked the same questions in a process of its own: LangGraph's own cost per question, below which no graph of this shape answers",
  "InMemoryStore: LangGraph's, dense search only on the same vectors; LanceDB: its hybrid query (full-text + cosine vector search, RRF k 60, top 10), exact (bypassVectorIndex), through IVF_HNSW_SQ at its defaults, and through the same index refined on full vectors (the smallest refineFactor of 2, 5, 10, 20 whose vector recall@10 reaches 0.95, the recall recallgraph's index is held to); each vector recall@10 against its own exact search",
  "ratios: recallgraph's latency over the peer's, measured in the same run; each side in a process of its own, its load average recorded (2 shared cores)",
];

function saveResults(results: SpeedResults, note: (text: string) => void): void {
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(join(RESULTS_DIR, "speed.json"), `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(join(RESULTS_DIR, "speed.svg"), speedChart(results));
  writeFileSync(join(RESULTS_DIR, "speed-breakdown.svg"), speedBreakdownChart(results));
  writeFileSync(join(RESULTS_DIR, "speed-memory.svg"), speedMemoryChart(results));
  note(`  wrote ${join("bench", "results", "speed.json")}, speed.svg, speed-breakdown.svg and speed-memory.svg`);
}

/** One side's measurement, in this (child) process. */
function childSide(args: SpeedArgs): Promise<z.infer<typeof ChildOutputSchema>> {
  const size = args.size ?? 1000;
  const asking: Asking = { queries: args.queries, warmup: args.warmup };
  if (args.child === "qdrant") return qdrantSide(size, args.queries, args.warmup);
  if (args.child === "lancedb") return lancedbSide(size, args.queries, args.warmup);
  if (args.child === "inmemory") return inMemorySide(size, asking);
  if (args.child === "floor") return floorSide(syntheticQuestions(args.queries + args.warmup), args.warmup);
  if (args.child === "reopen") {
    if (!args.path) throw new Error("--child reopen needs --path");
    return reopenSide(args.path, args.scalarKind);
  }
  return recallgraphSide(size, asking, args.index[0] ?? "exact", args.scalarKind, args.keep);
}

/**
 * `--store qdrant`: each size on the Qdrant path and, for the ratio, on sqlite, each in a child; saved
 * to bench/results/speed-qdrant.json (speed-qdrant-stub.json when the target was the stub).
 */
async function qdrantMain(args: SpeedArgs): Promise<void> {
  const note = (text: string) => process.stderr.write(`${text}\n`);
  if (args.from) {
    process.stdout.write(`${qdrantSpeedTable(QdrantSpeedResultsSchema.parse(JSON.parse(readFileSync(args.from, "utf8"))))}\n`);
    return;
  }
  const results = await withQdrantTarget(async (target): Promise<QdrantSpeedResults> => {
    note(`speed benchmark, Qdrant path (${target.kind === "stub" ? "SpecCheckingQdrantStub, not Qdrant" : target.url}): sizes ${args.sizes.join(", ")}, ${args.queries} questions each`);
    const env = { QDRANT_URL: target.url, ...(target.apiKey ? { QDRANT_API_KEY: target.apiKey } : {}) };
    const sizes: QdrantSpeedResults["sizes"] = {};
    for (const size of args.sizes) {
      const counts = ["--size", String(size), ...askingFlags(args)];
      note(`  ${size} entries: qdrant (${target.kind}) ...`);
      const { side: _side, ...qdrant } = QdrantSideSchema.parse(inChild(["--child", "qdrant", ...counts], env));
      note(`  ${size} entries: sqlite ...`);
      const sqlite = RecallgraphSideSchema.parse(inChild(["--child", "recallgraph", ...counts]));
      sizes[String(size)] = { ...qdrant, sqliteRetrieveMs: sqlite.retrieveMs, ratioP50: round(qdrant.retrieveMs.p50 / Math.max(sqlite.retrieveMs.p50, 1e-6), 2) };
    }
    return { target: target.kind, sizes, queries: args.queries, machine: machineDescription(), notes: qdrantNotes(target.kind) };
  });
  if (args.chart) {
    const file = join(RESULTS_DIR, results.target === "stub" ? "speed-qdrant-stub.json" : "speed-qdrant.json");
    mkdirSync(RESULTS_DIR, { recursive: true });
    writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
    note(`  wrote ${relative(join(HERE, ".."), file)}`);
  }
  process.stdout.write(`${args.json ? JSON.stringify(results, null, 2) : qdrantSpeedTable(results)}\n`);
}

/** The embedder's rates as the embedding benchmark last measured them, or why there are none. */
function embeddingRates(embedder: BenchedEmbedder): SpeedEmbedding {
  const file = embeddingResultsPath(embedder);
  const source = relative(join(HERE, ".."), file);
  if (!existsSync(file)) {
    return {
      status: "missing",
      source,
      note: `no ${embedder} embedding rates: ${source} does not exist; run \`npm run bench:embedding -- --embedder ${embedder}\` to measure them`,
    };
  }
  const bench = EmbeddingBenchSchema.parse(JSON.parse(readFileSync(file, "utf8")));
  const path = (configuration: (typeof bench.configurations)[number]) => ({
    workers: configuration.workers,
    textsPerSec: configuration.textsPerSec,
    parallelism: configuration.parallelism,
    rssPerModelMb: configuration.rssPerModelMb,
  });
  const single = bench.configurations.find((configuration) => configuration.workers === 1);
  if (!single) throw new Error(`${source} has no 1-worker (in-process) configuration: run \`npm run bench:embedding\` with its default --workers`);
  // The pool the embedding benchmark compares with (its speedup's): the default worker count, else any.
  const pool =
    bench.configurations.find((configuration) => configuration.workers === bench.defaultWorkers && configuration.workers > 1) ??
    bench.configurations.find((configuration) => configuration.workers > 1);
  return {
    status: "measured",
    model: bench.modelName ?? bench.model,
    source,
    measuredAt: bench.measuredAt,
    texts: bench.texts,
    inProcess: path(single),
    ...(pool ? { pool: path(pool) } : {}),
    speedup: bench.speedup,
    identical: bench.identical,
    machine: bench.machine,
  };
}

/** The embedding rates in a sentence, for the printed table and the markdown. */
function embeddingLine(embedding: SpeedResults["embedding"]): string | undefined {
  if (!embedding) return undefined;
  if (embedding.status === "missing") return `Embedding: ${embedding.note}.`;
  const rate = (label: string, path: { workers: number; textsPerSec: number; parallelism: number; rssPerModelMb: number }) =>
    `${label} (${path.workers} worker${path.workers === 1 ? "" : "s"}) ${path.textsPerSec} texts/s, parallelism ${path.parallelism}, ${path.rssPerModelMb} MB per model copy`;
  const pool = embedding.pool ? `; ${rate("worker pool", embedding.pool)}; ${embedding.speedup}x, vectors identical: ${embedding.identical}` : "; no worker pool measured";
  return (
    `Embedding (${embedding.model}, ${embedding.texts} texts, from ${embedding.source}, measured ${embedding.measuredAt} by \`npm run bench:embedding\`): ` +
    `${rate("in-process", embedding.inProcess)}${pool}.`
  );
}

/** The README's tables, then the embedding rates. */
function markdownOf(results: SpeedResults): string {
  const line = embeddingLine(results.embedding);
  return line ? `${speedReadmeTables(results)}\n\n${line}` : speedReadmeTables(results);
}

/** The tables, the embedding rates, the machine, its load and the notes. */
function speedReport(results: SpeedResults): string {
  const load = (values: readonly number[]) => values.map((value) => value.toFixed(2)).join(" ");
  return [
    markdownOf(results),
    "",
    `${questionsAsked(results)}; ${results.machine}; load average ${load(results.load.before)} at the start, ${load(results.load.after)} at the end.`,
    ...results.notes.map((text) => `- ${text}`),
  ].join("\n");
}

await main();
