/**
 * Speed benchmark (a script, not a test): ingest throughput, retrieve latency of the full graph with
 * the rule-based planner and judge (no LLM: plan, three views, RRF, reflection, re-check), and LangGraph's
 * InMemoryStore.search on the same vectors, at several namespace sizes.
 *
 *   npm run bench:speed -- [--sizes 1000,10000,100000] [--queries 100] [--embedder use-lite|onnx] [--json] [--no-chart] [--markdown]
 *   npm run bench:speed -- --from bench/results/speed.json --markdown   (the README's tables from saved results)
 *   npm run bench:speed -- --store qdrant [--sizes 788] [--queries 100]   (the Qdrant path: QDRANT_URL, else the tests' stub; speed-qdrant.ts)
 *
 * Honest setup notes, also printed with the results:
 * - Memories and questions are synthetic (bench/synthetic.ts), one namespace per size, sqlite file store.
 * - Vectors at every size come from the deterministic hashing embedder (512-d), so building 100k
 *   entries takes seconds, not the hour the offline model would need. The offline model's own rates
 *   (USE-lite, the embedded default, in this thread and over its worker pool) are not measured here:
 *   they are read from bench/results/embedding.json, which `npm run bench:embedding` writes, and
 *   reported next to these (measuring them twice would give two numbers for one thing); with
 *   `--embedder onnx`, the ONNX embedder's, from embedding-onnx.json.
 * - "ingestPerSec" is the product's write path (validation, one transaction per batch, FTS5 + vector
 *   + name indexes) with the time spent inside the embedder taken out; with embedding included it is
 *   reported for the hashing embedder.
 * - Both latencies include embedding the question with the hashing embedder (fractions of a ms).
 * - The sqlite store's in-memory lexical terms (lexical-index.ts) are read before the questions are
 *   timed; otherwise they are read in the background from the first search on.
 *   InMemoryStore gets the same embedder, hence exactly the same vectors.
 * - Each size and each side (recallgraph, InMemoryStore) runs in a child process of its own, so each
 *   peak RSS is that side's alone.
 * - The per-node breakdown (speed-results.ts, BreakdownSchema) comes from a second pass over the same
 *   questions after the latency pass: each question through the graph, then through the same node
 *   functions chained by hand (each node's own time from its run account); the framework's share is
 *   the invoke's wall time minus the nodes' own.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { Embeddings } from "@langchain/core/embeddings";
import { InMemoryStore, Overwrite, type PutOperation, type Send } from "@langchain/langgraph";
import { schemaMetaRegistry } from "@langchain/langgraph/zod";
import { z } from "zod";
import { latencySummary as latency, roundTo as round } from "../src/eval/metrics.js";
import { table } from "../src/eval/report.js";
import { dependencyAccessor } from "../src/graph/dependencies.js";
import { createRetrievalGraph, type RetrievalGraph } from "../src/graph/graph.js";
import { routeAfterPlan, routeAfterReflect } from "../src/graph/routing.js";
import { RetrievalState, type RetrievalStateValue, type ViewTask } from "../src/graph/state.js";
import { finalizeNode } from "../src/nodes/finalize.js";
import { mergeNode } from "../src/nodes/merge.js";
import { planNode } from "../src/nodes/plan.js";
import { reflectNode } from "../src/nodes/reflect.js";
import { viewNode } from "../src/nodes/view-definition.js";
import { VIEWS } from "../src/graph/views.js";
import { writeMemories } from "../src/ingest/write-memories.js";
import { retrieve } from "../src/library/retrieve.js";
import type { MemoryStore } from "../src/stores/port.js";
import { openSqliteStore } from "../src/stores/sqlite/store.js";
import type { Embedder } from "../src/text/embedder.js";
import { createHashEmbedder } from "../src/text/embedders/create-embedder.js";
import { BENCHED_EMBEDDERS, EmbeddingBenchSchema, embeddingResultsPath, type BenchedEmbedder } from "./embedding.js";
import { speedBreakdownChart, speedChart, speedReadmeTables } from "./speed-chart.js";
import { qdrantNotes, qdrantSide, qdrantSpeedTable, withQdrantTarget } from "./speed-qdrant.js";
import {
  GRAPH_NODES,
  InMemorySideSchema,
  QdrantSideSchema,
  QdrantSpeedResultsSchema,
  RecallgraphSideSchema,
  ChildOutputSchema,
  SpeedResultsSchema,
  type QdrantSpeedResults,
  type Breakdown,
  type SpeedEmbedding,
  type SpeedResults,
} from "./speed-results.js";
import { SYNTHETIC_NOW, syntheticMemories, syntheticQuestions } from "./synthetic.js";
import { machineDescription } from "./machine.js";

const NAMESPACE = "bench";
const WARMUP_QUERIES = 5;
const HERE = dirname(fileURLToPath(import.meta.url));
const RESULTS_DIR = join(HERE, "results");

const ArgsSchema = z.object({
  sizes: z.array(z.number().int().min(10).max(1_000_000)).min(1),
  queries: z.number().int().min(10).max(10_000),
  json: z.boolean(),
  chart: z.boolean(),
  markdown: z.boolean(),
  from: z.string().optional(),
  child: z.enum(["recallgraph", "inmemory", "qdrant"]).optional(),
  size: z.number().int().min(1).optional(),
  embedder: z.enum(BENCHED_EMBEDDERS).describe("Whose embedding rates (bench:embedding's results) go with the figures"),
  store: z
    .enum(["sqlite", "qdrant"])
    .describe("sqlite: recallgraph beside InMemoryStore; qdrant: the Qdrant path beside sqlite, with requests and server time per question"),
});
type Args = z.infer<typeof ArgsSchema>;

function parseArgs(argv: readonly string[]): Args {
  const value = (flag: string) => {
    const at = argv.indexOf(flag);
    return at >= 0 ? argv[at + 1] : undefined;
  };
  const numbers = (text: string | undefined) => text?.split(",").map((item) => Number(item.trim()));
  return ArgsSchema.parse({
    sizes: numbers(value("--sizes")) ?? [1000, 10_000, 100_000],
    queries: Number(value("--queries") ?? 100),
    json: argv.includes("--json"),
    chart: !argv.includes("--no-chart"),
    markdown: argv.includes("--markdown"),
    from: value("--from"),
    child: value("--child"),
    size: value("--size") === undefined ? undefined : Number(value("--size")),
    embedder: value("--embedder") ?? "use-lite",
    store: value("--store") ?? "sqlite",
  });
}

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

function peakRssMb(): number {
  return Math.round(process.resourceUsage().maxRSS / 1024);
}

async function recallgraphSide(size: number, queries: number): Promise<z.infer<typeof RecallgraphSideSchema>> {
  const directory = mkdtempSync(join(tmpdir(), "recallgraph-speed-"));
  const hash = createHashEmbedder();
  const timed = new TimedEmbeddings(hash.embeddings);
  const embedder: Embedder = { ...hash, embeddings: timed };
  const store = await openSqliteStore({ path: join(directory, "memory.db"), embedding: embedder.spec });
  try {
    const memories = syntheticMemories(size);
    const started = performance.now();
    await writeMemories(store, embedder, NAMESPACE, memories);
    const writeMs = performance.now() - started;
    const ingestMs = writeMs - timed.spentMs;
    // Read now rather than in the background among the timed questions (InMemoryStore indexes at put time).
    await store.buildLexicalIndex(NAMESPACE);

    const graph = createRetrievalGraph({ store, embedder });
    const questions = syntheticQuestions(queries + WARMUP_QUERIES);
    const times: number[] = [];
    for (const [i, question] of questions.entries()) {
      const asked = performance.now();
      await retrieve(graph, { question, namespace: NAMESPACE, now: SYNTHETIC_NOW });
      if (i >= WARMUP_QUERIES) times.push(performance.now() - asked);
    }
    return {
      side: "recallgraph",
      entries: size,
      ingestPerSec: Math.round(size / (ingestMs / 1000)),
      ingestWithHashEmbeddingPerSec: Math.round(size / (writeMs / 1000)),
      retrieveMs: latency(times),
      breakdown: await breakdownOf(graph, store, embedder, questions.slice(WARMUP_QUERIES)),
      peakRssMb: peakRssMb(),
    };
  } finally {
    await store.close();
    rmSync(directory, { recursive: true, force: true });
  }
}

/**
 * Where the time of a question goes (see BreakdownSchema). Each question is asked twice in a row: once
 * through the graph (the invoke's wall time), once through the same node functions chained by hand,
 * one at a time (handChain), whose run account gives each node's own time; the graph first for every
 * other question, the chain first for the rest. The framework's share is the
 * difference. The two answers must be the same, or the breakdown would not describe the graph's run.
 */
async function breakdownOf(graph: RetrievalGraph, store: MemoryStore, embedder: Embedder, questions: readonly string[]): Promise<Breakdown> {
  const chain = handChain({ store, embedder });
  const nodes = Object.fromEntries(GRAPH_NODES.map((node) => [node, 0])) as Breakdown["nodesMs"];
  let invokeMs = 0;
  let invokeCpuMs = 0;
  let chainCpuMs = 0;
  let rounds = 0;
  const cpuMs = (since: NodeJS.CpuUsage) => {
    const used = process.cpuUsage(since);
    return (used.user + used.system) / 1000;
  };
  for (const [index, question] of questions.entries()) {
    const viaGraph = async () => {
      const asked = performance.now();
      const cpuBefore = process.cpuUsage();
      const answer = await retrieve(graph, { question, namespace: NAMESPACE, now: SYNTHETIC_NOW });
      invokeCpuMs += cpuMs(cpuBefore);
      invokeMs += performance.now() - asked;
      return answer;
    };
    const byHand = async () => {
      const cpuBefore = process.cpuUsage();
      const answer = await chain(question);
      chainCpuMs += cpuMs(cpuBefore);
      return answer;
    };
    // Whichever asks second finds the store's caches warm for this question (its parsed entries, its
    // speaker's filter matches, its terms' idf): each goes first for half of the questions.
    const graphFirst = index % 2 === 0;
    const output = graphFirst ? await viaGraph() : undefined;
    const chained = await byHand();
    const answered = output ?? (await viaGraph());
    const same = (results: ReadonlyArray<{ id: string; score: number }>) => JSON.stringify(results.map(({ id, score }) => [id, score]));
    if (same(chained.results) !== same(answered.results) || (chained.account?.rounds ?? -1) !== answered.rounds) {
      throw new Error(`the nodes chained by hand answered "${question}" differently from the graph: the breakdown would not describe its run`);
    }
    rounds += answered.rounds;
    for (const node of GRAPH_NODES) nodes[node] += chained.nodeMs[node] ?? 0;
  }
  const perQuestion = (total: number) => round(total / questions.length, 3);
  const nodesMs = Object.fromEntries(GRAPH_NODES.map((node) => [node, perQuestion(nodes[node])])) as Breakdown["nodesMs"];
  const ownMs = GRAPH_NODES.reduce((sum, node) => sum + nodes[node], 0);
  return {
    invokeMs: perQuestion(invokeMs),
    nodesMs,
    frameworkMs: perQuestion(invokeMs - ownMs),
    cpu: { invokeMs: perQuestion(invokeCpuMs), nodesMs: perQuestion(chainCpuMs), frameworkMs: perQuestion(invokeCpuMs - chainCpuMs) },
    rounds: round(rounds / questions.length, 2),
  };
}

/**
 * The retrieval graph's run without LangGraph: its node functions and routes (src/nodes, src/graph/routing)
 * called in the graph's order, each round's views one after the other, each update applied as the
 * graph's channels apply it (the state's reducers, Overwrite, last value otherwise).
 */
function handChain(dependencies: { store: MemoryStore; embedder: Embedder }) {
  const deps = dependencyAccessor(dependencies);
  const plan = planNode(deps);
  const views = Object.fromEntries(VIEWS.map((view) => [view.name, viewNode(view, deps)]));
  const merge = mergeNode();
  const reflect = reflectNode(deps);
  const finalize = finalizeNode(deps);
  const config = { configurable: {} };
  const fields: Record<string, z.ZodType> = RetrievalState.shape;
  const reducers = new Map<string, (current: unknown, update: unknown) => unknown>();
  for (const [key, field] of Object.entries(fields)) {
    const reducer = schemaMetaRegistry.get(field)?.reducer?.fn;
    if (reducer) reducers.set(key, reducer);
  }
  const apply = (state: RetrievalStateValue, updates: ReadonlyArray<object>): RetrievalStateValue => {
    const next: Record<string, unknown> = { ...state };
    for (const update of updates) {
      for (const [key, value] of Object.entries(update)) {
        const reducer = reducers.get(key);
        if (Overwrite.isInstance(value)) next[key] = (value as Overwrite<unknown>).value;
        else next[key] = reducer ? reducer(next[key], value) : value;
      }
    }
    return next as RetrievalStateValue;
  };
  const runViews = async (state: RetrievalStateValue, sends: Send[]) => {
    const updates: object[] = [];
    for (const send of sends) updates.push((await views[send.node]?.(send.args as ViewTask)) ?? {});
    return apply(state, updates);
  };
  return async (question: string): Promise<RetrievalStateValue> => {
    const initial = { question, namespaces: [NAMESPACE], now: SYNTHETIC_NOW, round: 0, viewHits: [], entries: {}, fused: [], results: [], degraded: [], llmCalls: [], nodeMs: {} };
    let state = apply(initial as unknown as RetrievalStateValue, [await plan(initial as unknown as RetrievalStateValue, config)]);
    let sends: Send[] | "finalize" = routeAfterPlan(state);
    while (sends !== "finalize") {
      state = await runViews(state, sends);
      state = apply(state, [await merge(state)]);
      state = apply(state, [await reflect(state, config)]);
      sends = routeAfterReflect(state);
    }
    return apply(state, [await finalize(state, config)]);
  };
}

async function inMemorySide(size: number, queries: number): Promise<z.infer<typeof InMemorySideSchema>> {
  const embedder = createHashEmbedder();
  const store = new InMemoryStore({ index: { embeddings: embedder.embeddings, dims: embedder.spec.dimension, fields: ["text"] } });
  const memories = syntheticMemories(size);
  const started = performance.now();
  for (let start = 0; start < memories.length; start += 1000) {
    const operations: PutOperation[] = memories.slice(start, start + 1000).map((memory, i) => ({
      namespace: [NAMESPACE],
      key: memory.id ?? String(start + i),
      value: { text: memory.text },
    }));
    await store.batch(operations);
  }
  const buildMs = performance.now() - started;
  const questions = syntheticQuestions(queries + WARMUP_QUERIES);
  const times: number[] = [];
  for (const [i, question] of questions.entries()) {
    const asked = performance.now();
    await store.search([NAMESPACE], { query: question, limit: 10 });
    if (i >= WARMUP_QUERIES) times.push(performance.now() - asked);
  }
  return { side: "inmemory", buildPerSec: Math.round(size / (buildMs / 1000)), searchMs: latency(times), peakRssMb: peakRssMb() };
}

/** Runs one measurement in a fresh process (its own heap, its own peak RSS) and reads its JSON line. */
function inChild(args: readonly string[], env: Record<string, string> = {}): z.infer<typeof ChildOutputSchema> {
  const child = spawnSync(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url), ...args], {
    encoding: "utf8",
    maxBuffer: 16 * 1024 * 1024,
    env: { ...process.env, RECALLGRAPH_LOG_LEVEL: "error", ...env },
  });
  if (child.status !== 0) throw new Error(`benchmark child ${args.join(" ")} failed (${child.status}): ${child.stderr.slice(-2000)}`);
  const lastLine = child.stdout.trim().split("\n").at(-1) ?? "";
  return ChildOutputSchema.parse(JSON.parse(lastLine));
}


async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  if (args.child) {
    process.stdout.write(`${JSON.stringify(await childSide(args.child, args.size ?? 1000, args.queries))}\n`);
    return;
  }
  if (args.store === "qdrant") return qdrantMain(args);

  if (args.from) {
    const saved = SpeedResultsSchema.parse(JSON.parse(readFileSync(args.from, "utf8")));
    process.stdout.write(`${args.markdown ? markdownOf(saved) : speedTable(saved)}\n`);
    return;
  }
  const note = (text: string) => process.stderr.write(`${text}\n`);
  note(`speed benchmark: sizes ${args.sizes.join(", ")}, ${args.queries} questions each; ${machineDescription()}`);
  // Read first, so that an unreadable results file fails before minutes of measuring, not after.
  const embedding = embeddingRates(args.embedder);
  if (embedding.status === "missing") note(`  ${embedding.note}`);
  const sizes: SpeedResults["sizes"] = {};
  for (const size of args.sizes) {
    note(`  ${size} entries: recallgraph ...`);
    const ours = RecallgraphSideSchema.parse(inChild(["--child", "recallgraph", "--size", String(size), "--queries", String(args.queries)]));
    note(`  ${size} entries: InMemoryStore ...`);
    const theirs = InMemorySideSchema.parse(inChild(["--child", "inmemory", "--size", String(size), "--queries", String(args.queries)]));
    sizes[String(size)] = {
      entries: ours.entries,
      ingestPerSec: ours.ingestPerSec,
      ingestWithHashEmbeddingPerSec: ours.ingestWithHashEmbeddingPerSec,
      retrieveMs: ours.retrieveMs,
      inMemoryStoreMs: theirs.searchMs,
      ratioP50: round(ours.retrieveMs.p50 / Math.max(theirs.searchMs.p50, 1e-6), 2),
      breakdown: ours.breakdown,
      peakRssMb: ours.peakRssMb,
      inMemoryStorePeakRssMb: theirs.peakRssMb,
    };
  }
  const results: SpeedResults = {
    sizes,
    embedding,
    queries: args.queries,
    machine: machineDescription(),
    notes: [
      "synthetic memories and questions (bench/synthetic.ts), one namespace per size, sqlite file store",
      "vectors from the deterministic hashing embedder (512-d) at every size; USE-lite's rates (in this thread and over its worker pool) read from the embedding benchmark's results, not measured here",
      "ingestPerSec excludes time inside the embedder; recallgraph runs plan + 3 views + RRF + reflection + re-check by rules, no LLM",
      "both latencies include embedding the question with the hashing embedder; InMemoryStore searches the same vectors (dense only)",
      "breakdown: ms per question (means of a second pass); nodes' own time from the same node functions chained by hand (same answers checked); framework = graph invoke wall minus the nodes' own time",
    ],
  };

  if (args.chart) {
    mkdirSync(RESULTS_DIR, { recursive: true });
    writeFileSync(join(RESULTS_DIR, "speed.json"), `${JSON.stringify(results, null, 2)}\n`);
    writeFileSync(join(RESULTS_DIR, "speed.svg"), speedChart(results));
    writeFileSync(join(RESULTS_DIR, "speed-breakdown.svg"), speedBreakdownChart(results));
    note(`  wrote ${join("bench", "results", "speed.json")}, speed.svg and speed-breakdown.svg`);
  }
  if (args.json) {
    process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
    return;
  }
  process.stdout.write(`${args.markdown ? markdownOf(results) : speedTable(results)}\n`);
}

/** One side's measurement, in this (child) process. */
function childSide(side: NonNullable<Args["child"]>, size: number, queries: number): Promise<z.infer<typeof ChildOutputSchema>> {
  if (side === "qdrant") return qdrantSide(size, queries, WARMUP_QUERIES);
  return side === "recallgraph" ? recallgraphSide(size, queries) : inMemorySide(size, queries);
}

/**
 * `--store qdrant`: each size on the Qdrant path and, for the ratio, on sqlite, each in a child; saved
 * to bench/results/speed-qdrant.json (speed-qdrant-stub.json when the target was the stub).
 */
async function qdrantMain(args: Args): Promise<void> {
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
      const counts = ["--size", String(size), "--queries", String(args.queries)];
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
  if (!("status" in embedding)) {
    return `Embedding (${embedding.model}), on a ${embedding.sample}-text sample: ${embedding.textsPerSec} texts/s; ingest with it ${embedding.ingestPerSec} entries/s.`;
  }
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

function speedTable(results: SpeedResults): string {
  const head = ["entries", "ingest/s", "ingest/s +hash emb", "retrieve p50", "p95", "InMemoryStore p50", "p95", "ratio p50", "peak RSS", "IMS peak RSS"];
  const rows = Object.values(results.sizes).map((size) => [
    String(size.entries),
    String(size.ingestPerSec),
    String(size.ingestWithHashEmbeddingPerSec),
    `${size.retrieveMs.p50} ms`,
    `${size.retrieveMs.p95} ms`,
    `${size.inMemoryStoreMs.p50} ms`,
    `${size.inMemoryStoreMs.p95} ms`,
    `${size.ratioP50}x`,
    `${size.peakRssMb} MB`,
    `${size.inMemoryStorePeakRssMb} MB`,
  ]);
  const lines = [table(head, rows)];
  const withBreakdown = Object.values(results.sizes).filter((size) => size.breakdown !== undefined);
  if (withBreakdown.length) {
    const parts = ["framework", ...GRAPH_NODES] as const;
    const partMs = (breakdown: Breakdown, part: (typeof parts)[number]) => (part === "framework" ? breakdown.frameworkMs : breakdown.nodesMs[part]);
    lines.push(
      "",
      "Per question, ms (means; node time from the nodes chained by hand, framework = invoke minus nodes):",
      table(
        ["entries", "invoke", ...parts, "rounds", "CPU: invoke", "nodes", "framework"],
        withBreakdown.map((size) => {
          const breakdown = size.breakdown as Breakdown;
          return [
            String(size.entries),
            String(round(breakdown.invokeMs, 2)),
            ...parts.map((part) => String(round(partMs(breakdown, part), 2))),
            String(breakdown.rounds),
            String(round(breakdown.cpu.invokeMs, 2)),
            String(round(breakdown.cpu.nodesMs, 2)),
            String(round(breakdown.cpu.frameworkMs, 2)),
          ];
        }),
      ),
    );
  }
  const embedding = embeddingLine(results.embedding);
  if (embedding) lines.push("", embedding);
  lines.push(`${results.queries} questions per size; ${results.machine}.`, ...results.notes.map((text) => `- ${text}`));
  return lines.join("\n");
}

await main();
