/** What the speed benchmark measures and saves (bench/results/speed.json), validated when read back. */
import { z } from "zod";
import { HNSW_SCALAR_KINDS } from "../src/stores/sqlite/hnsw-index.js";
import { VECTOR_INDEX_KINDS } from "../src/stores/sqlite/vector-search-fields.js";

const LatencySchema = z.object({ p50: z.number(), p95: z.number() });

/** The retrieval graph's nodes, in the order a run takes them (the views share a step). */
export const GRAPH_NODES = ["plan", "semantic", "lexical", "symbolic", "merge", "reflect", "finalize"] as const;

const NodeTimesSchema = z.object(Object.fromEntries(GRAPH_NODES.map((node) => [node, z.number()])) as Record<(typeof GRAPH_NODES)[number], z.ZodNumber>);

/**
 * Where a question's time goes, in ms per question (means over the questions, so the parts add up to
 * the whole): each node's own time summed over the rounds it ran in (the run account's nodeMs), and the
 * framework's share, the invoke's wall time minus the nodes' own time (LangGraph's supersteps, LangChain's
 * runnables and callbacks around each node call, and retrieve's request check). Measured on a second
 * pass over the same questions: each through the graph (its wall time), then through the same node
 * functions chained by hand, one at a time, whose run account gives each node's own time (in the graph
 * a round's views run concurrently and their wall times overlap). LangGraph's `maxConcurrency: 1` would
 * serialise them in the graph itself, but 1.7.3 then runs only the first task of a step
 * (langchain-ai/langgraphjs#2656).
 */
export const BreakdownSchema = z.object({
  invokeMs: z.number(),
  nodesMs: NodeTimesSchema,
  frameworkMs: z.number(),
  /**
   * The same split in CPU time (process.cpuUsage, user + system), which other processes on the machine
   * disturb less than wall time: the invoke's CPU time, the hand-chained nodes' CPU time, and the
   * difference, the framework's.
   */
  cpu: z.object({ invokeMs: z.number(), nodesMs: z.number(), frameworkMs: z.number() }),
  nodesCpuMs: NodeTimesSchema.describe("Each node's own CPU time (user + system, all threads) in the hand-chained pass, summed over its rounds"),
  storeCalls: z
    .record(z.string(), z.object({ calls: z.number(), ms: z.number() }))
    .describe("Per question in the hand-chained pass, each store operation the nodes made: how many calls and their wall time in ms (means), inside the nodes' own time"),
  /** Mean reflection rounds per question (each round runs the views, merge and reflect again). */
  rounds: z.number(),
});
export type Breakdown = z.infer<typeof BreakdownSchema>;

/** The machine's load average (1, 5 and 15 minutes) when a measurement began and when it ended: 2 shared cores here. */
export const LoadSchema = z.object({
  before: z.array(z.number()).length(3).describe("os.loadavg() when it began"),
  after: z.array(z.number()).length(3).describe("os.loadavg() when it ended"),
});

/** recall@10 of an approximate dense search against exact search (bench/recall.ts). */
export const RecallSchema = z.object({
  tieAware: z.number().min(0).max(1).describe("Share of the exact top 10 found, a hit whose exact similarity reaches the exact 10th's counting as right"),
  byId: z.number().min(0).max(1).describe("Share of the exact top 10's ids found"),
});

/** The process's memory at one point of a measurement, in MB (process.memoryUsage, and the peak RSS so far). */
export const MemoryPhaseSchema = z.object({
  phase: z.string().describe("What the process had done when this was read"),
  rssMb: z.number(),
  heapUsedMb: z.number().describe("V8's heap in use (JS objects, strings)"),
  externalMb: z.number().describe("Memory of C++ objects bound to JS objects, array buffers included"),
  arrayBuffersMb: z.number().describe("ArrayBuffers and Buffers (typed arrays' contents)"),
  peakRssMb: z.number().describe("The process's peak RSS so far: where it rose past the previous phase's, the peak fell in between"),
});
export type MemoryPhase = z.infer<typeof MemoryPhaseSchema>;

/** A second process opening the store the measurement wrote and closed (`--child reopen`): the saved index loaded, not rebuilt. */
export const ReopenSideSchema = z.object({
  side: z.literal("reopen"),
  openMs: z.number().describe("Opening the store file (openSqliteStore)"),
  indexLoadMs: z.number().describe("Making the namespace's index ready (buildVectorIndex), which must answer \"loaded\": its file's SHA-256 checked, then read"),
  termsLoadMs: z
    .number()
    .optional()
    .describe("Making the namespace's lexical terms ready (buildLexicalIndex), which must load the saved ones; absent in results measured before terms were saved"),
  firstQuestionMs: z.number().describe("The first question through the full graph after opening, the index and the lexical terms ready"),
  built: z.number().describe("Indexes the reopened store built (0: the saved one served)"),
  peakRssMb: z.number().describe("The reopening process's peak RSS"),
  memory: z.array(MemoryPhaseSchema).optional().describe("The reopening process's memory after each phase, in order"),
});
export type ReopenSide = z.infer<typeof ReopenSideSchema>;

/** The full graph's answers with the index against the same graph over exact search on the same file. */
export const GraphAgreementSchema = z.object({
  byId: z.number().min(0).max(1).describe("Share of the exact-search graph's top 10 ids that the indexed graph's top 10 holds"),
  byText: z
    .number()
    .min(0)
    .max(1)
    .describe("The same, a result counting as found when the indexed top 10 holds its text (synthetic memories repeat texts, so their vectors tie)"),
  identical: z.number().min(0).max(1).describe("Share of questions whose two top 10s are the same ids in the same order"),
});

export const RecallgraphSideSchema = z.object({
  side: z.literal("recallgraph"),
  index: z.enum(VECTOR_INDEX_KINDS).describe("The sqlite store's dense search: exact, or an HNSW index for every size (hnswMinEntries 1)"),
  entries: z.number(),
  ingestPerSec: z.number().describe("Entries written per second, the time inside the embedder taken out"),
  ingestWithHashEmbeddingPerSec: z.number().describe("Entries written per second, the hashing embedder's time included"),
  indexBuildMs: z
    .number()
    .nullable()
    .describe("hnsw: building the namespace's HNSW index from the store, its first save included; exact: null (no index to build)"),
  lexicalBuildMs: z.number().describe("Reading the namespace's terms into memory for lexical search (buildLexicalIndex)"),
  retrieveMs: LatencySchema.describe("Wall time of the full graph per question (retrieve)"),
  breakdown: BreakdownSchema,
  peakRssMb: z.number().describe("The process's peak RSS after ingest, index and questions (read before exact search is opened for recall)"),
  // Optional: results saved before these were measured lack them.
  memory: z.array(MemoryPhaseSchema).optional().describe("The process's memory after each phase, in order"),
  semanticRecallAt10: RecallSchema.nullable().describe(
    "hnsw: the semantic view's dense search (denseSearch, k 10, each question's vector) against exact search on the same file; exact: null (it is the reference)",
  ),
  // Optional: results saved before these were measured lack them.
  scalarKind: z.enum(HNSW_SCALAR_KINDS).optional().describe("hnsw: how the index held vectors (hnswScalarKind)"),
  graphAgreementAt10: GraphAgreementSchema.nullable().optional().describe("hnsw: the full graph's top 10 against the same graph over exact search; exact: null"),
  reopen: ReopenSideSchema.omit({ side: true }).nullable().optional().describe("hnsw: a second process opening the closed store; exact: null"),
  load: LoadSchema,
});
export type RecallgraphSide = z.infer<typeof RecallgraphSideSchema>;

export const InMemorySideSchema = z.object({
  side: z.literal("inmemory"),
  buildPerSec: z.number(),
  searchMs: LatencySchema,
  peakRssMb: z.number(),
  load: LoadSchema,
});

/** Wall time per query and the mean CPU time (user + system, all threads: LanceDB searches on a thread pool). */
const PeerLatencySchema = LatencySchema.extend({ cpuMean: z.number().describe("Mean CPU time per query, ms") });

/**
 * LanceDB's hybrid query on the same memories, questions and vectors (bench/speed-lancedb.ts): full-text
 * search + vector search fused by its RRF reranker, top 10, exact, then with its vector index.
 */
export const LancedbSideSchema = z.object({
  side: z.literal("lancedb"),
  version: z.string().describe("@lancedb/lancedb's version"),
  entries: z.number(),
  ingestPerSec: z.number().describe("Rows added per second (Table.add in batches, vectors computed beforehand)"),
  ftsBuildMs: z.number().describe("Building the full-text index on the text column"),
  vectorIndex: z.string().describe("The vector index built and its settings"),
  vectorIndexBuildMs: z.number(),
  hybridMs: z.object({
    exact: PeerLatencySchema.describe("Hybrid query with the vector part exact (bypassVectorIndex)"),
    indexed: PeerLatencySchema.describe("Hybrid query with the vector part through the vector index"),
  }),
  vectorRecallAt10: RecallSchema.describe("The indexed vector query (top 10) against LanceDB's exact one, by exact cosine similarity"),
  refined: z
    .object({
      refineFactor: z.number().int().describe("The vector query's refineFactor: its index proposes this many times 10 candidates, re-ranked on full vectors"),
      hybridMs: PeerLatencySchema.describe("Hybrid query with the vector part through the index, refined"),
      vectorRecallAt10: RecallSchema.describe("The refined vector query (top 10) against the exact one"),
    })
    .optional()
    .describe("The indexed query at recallgraph's recall target: the smallest refineFactor of a fixed ladder whose vector recall@10 reaches it (the largest tried where none does); absent in runs before it"),
  peakRssMb: z.number(),
  load: LoadSchema,
});
export type LancedbSide = z.infer<typeof LancedbSideSchema>;

/** `p50`, `p95` and the mean of a per-question figure. */
const PerQuestionSchema = LatencySchema.extend({ mean: z.number() });

/**
 * The framework's floor (bench/graph-floor.ts): the retrieval graph's shape, one round, its nodes doing
 * nothing, asked the same questions; measured once per run, since it does not depend on the store.
 */
export const FloorSideSchema = z.object({
  side: z.literal("floor"),
  invokeMs: LatencySchema.describe("Wall time of one invoke of the graph of nodes that do nothing"),
  cpuMean: z.number().describe("Mean CPU time per invoke, ms"),
  load: LoadSchema,
});
export type FloorSide = z.infer<typeof FloorSideSchema>;

/**
 * The same graph and questions on the Qdrant store (`--store qdrant`), in a collection of its own on
 * the server at QDRANT_URL, or on SpecCheckingQdrantStub in a process of its own when none is set.
 */
export const QdrantSideSchema = z.object({
  side: z.literal("qdrant"),
  entries: z.number(),
  ingestPerSec: z.number().describe("Entries written per second, the hashing embedder's time included"),
  retrieveMs: LatencySchema.describe("Wall time of one question, end to end"),
  requests: PerQuestionSchema.extend({
    first: z.number().describe("The namespace's first question, before anything is kept (qdrant-cache.ts)"),
  }).describe("HTTP requests per question (the store's own count)"),
  serverMs: PerQuestionSchema.describe("Per question, the sum of the `time` Qdrant reports in its answers: the server's own work"),
  outsideServerMs: LatencySchema.describe("Per question, wall time less the server's own: client, HTTP and the graph"),
  peakRssMb: z.number(),
});
export const ChildOutputSchema = z.discriminatedUnion("side", [RecallgraphSideSchema, InMemorySideSchema, LancedbSideSchema, QdrantSideSchema, ReopenSideSchema, FloorSideSchema]);

/** What `--store qdrant` saves (bench/results/speed-qdrant.json). */
export const QdrantSpeedResultsSchema = z.object({
  target: z.enum(["server", "stub"]).describe("A Qdrant server (QDRANT_URL), or SpecCheckingQdrantStub, whose figures say nothing of Qdrant"),
  sizes: z.record(
    z.string(),
    QdrantSideSchema.omit({ side: true }).extend({
      sqliteRetrieveMs: LatencySchema.describe("The same questions on the sqlite store, in this run"),
      ratioP50: z.number().describe("Qdrant's p50 over sqlite's"),
    }),
  ),
  queries: z.number(),
  machine: z.string(),
  notes: z.array(z.string()),
});
export type QdrantSpeedResults = z.infer<typeof QdrantSpeedResultsSchema>;

/** One configuration of the embedding benchmark, as the speed results repeat it. */
const EmbeddingPathSchema = z.object({
  workers: z.number().int().describe("Threads that embed: 1 = in the calling thread (no worker threads), N = a pool of N worker threads"),
  textsPerSec: z.number().describe("USE-lite texts per second, the median of the embedding benchmark's rounds"),
  parallelism: z.number().describe("The process's CPU time (all threads) over wall time while embedding"),
  rssPerModelMb: z.number().describe("Resident memory each model copy adds, MB"),
});

/**
 * USE-lite's embedding rates, read from bench/results/embedding.json (`npm run bench:embedding`), not
 * measured by the speed benchmark: in this thread and over the worker pool.
 */
export const SpeedEmbeddingSchema = z
  .discriminatedUnion("status", [
    z.object({
      status: z.literal("measured"),
      model: z.string(),
      source: z.string().describe("The embedding benchmark's results file these rates come from"),
      measuredAt: z.string().describe("When the embedding benchmark ran (ISO 8601)"),
      texts: z.number().int().describe("Texts embedded per configuration and round"),
      inProcess: EmbeddingPathSchema.describe("One worker: embedding in the calling thread"),
      pool: EmbeddingPathSchema.optional().describe("The worker pool at the default worker count (absent when the benchmark ran none)"),
      speedup: z.number().describe("Pool texts/s over in-process texts/s"),
      identical: z.boolean().describe("Whether every configuration gave bit-identical vectors"),
      machine: z.string(),
    }),
    z.object({
      status: z.literal("missing"),
      source: z.string(),
      note: z.string().describe("Why there are no rates and the command that measures them"),
    }),
  ])
  .describe("USE-lite texts per second with and without worker threads, from the embedding benchmark");
export type SpeedEmbedding = z.infer<typeof SpeedEmbeddingSchema>;

const PEER_SEARCHES = ["InMemoryStore", "LanceDB exact", "LanceDB indexed", "LanceDB refined"] as const;

/** What a peer's answer is compared with: each recallgraph search with the peers that search the same way. */
export const RATIO_PAIRS: ReadonlyArray<{ ours: (typeof VECTOR_INDEX_KINDS)[number]; peer: (typeof PEER_SEARCHES)[number] }> = [
  { ours: "exact", peer: "InMemoryStore" },
  { ours: "exact", peer: "LanceDB exact" },
  { ours: "hnsw", peer: "LanceDB indexed" },
  { ours: "hnsw", peer: "LanceDB refined" },
];

export const RatioSchema = z.object({
  ours: z.enum(VECTOR_INDEX_KINDS).describe("recallgraph's full graph with this dense search"),
  peer: z.enum(PEER_SEARCHES),
  p50: z.number().describe("recallgraph's p50 over the peer's, measured in the same run (below 1: recallgraph is faster)"),
  p95: z.number().describe("recallgraph's p95 over the peer's"),
  cpu: z
    .number()
    .nullable()
    .describe("recallgraph's mean CPU time per question (the breakdown's invoke) over the peer's, all threads; null where the peer's was not measured"),
});
export type Ratio = z.infer<typeof RatioSchema>;

const RecallgraphRunSchema = RecallgraphSideSchema.omit({ side: true, index: true, entries: true });
const InMemoryRunSchema = InMemorySideSchema.omit({ side: true });
const LancedbRunSchema = LancedbSideSchema.omit({ side: true, entries: true });

const SizeResultSchema = z.object({
  entries: z.number(),
  recallgraph: z.object({ exact: RecallgraphRunSchema.optional(), hnsw: RecallgraphRunSchema.optional() }),
  inMemoryStore: InMemoryRunSchema.optional(),
  lancedb: LancedbRunSchema.optional(),
  ratios: z.array(RatioSchema),
});
export type SizeResult = z.infer<typeof SizeResultSchema>;

export const SpeedResultsSchema = z.object({
  version: z.literal(2).describe("2: per size, recallgraph per dense search (exact, hnsw) and each peer apart"),
  measuredAt: z.string().describe("When the run began (ISO 8601)"),
  sizes: z.record(z.string(), SizeResultSchema),
  // Optional: results saved before it was measured lack it.
  frameworkFloor: FloorSideSchema.omit({ side: true })
    .optional()
    .describe("LangGraph's own cost for the retrieval graph's shape with nodes that do nothing (bench/graph-floor.ts), in this run"),
  embedding: SpeedEmbeddingSchema.optional(),
  queries: z.number(),
  // Optional: results saved before it was a flag lack it (they warmed up with 5).
  warmup: z.number().int().optional().describe("Questions each side answered untimed before the timed ones"),
  machine: z.string(),
  load: LoadSchema.describe("The machine's load average when the run began and ended"),
  notes: z.array(z.string()),
});
export type SpeedResults = z.infer<typeof SpeedResultsSchema>;

/** How many questions each side was timed on, and how many it answered untimed first (5 before the flag). */
export function questionsAsked(results: Pick<SpeedResults, "queries" | "warmup">): string {
  return `${results.queries} timed questions per size, each side after ${results.warmup ?? 5} untimed ones`;
}

/** p50, p95 and the mean CPU time per question (where measured) of each side a ratio can compare. */
function timesOf(size: Omit<SizeResult, "ratios">, side: Ratio["ours"] | Ratio["peer"]): { p50: number; p95: number; cpu?: number } | undefined {
  if (side === "exact" || side === "hnsw") {
    const run = size.recallgraph[side];
    return run && { ...run.retrieveMs, cpu: run.breakdown.cpu.invokeMs };
  }
  if (side === "InMemoryStore") return size.inMemoryStore?.searchMs;
  const lance = {
    "LanceDB exact": size.lancedb?.hybridMs.exact,
    "LanceDB indexed": size.lancedb?.hybridMs.indexed,
    "LanceDB refined": size.lancedb?.refined?.hybridMs,
  }[side];
  return lance && { ...lance, cpu: lance.cpuMean };
}

/** recallgraph's times over each peer's, for the pairs of RATIO_PAIRS both sides of which were measured. */
export function ratiosOf(size: Omit<SizeResult, "ratios">): Ratio[] {
  const over = (x: number, y: number) => Math.round((100 * x) / Math.max(y, 1e-6)) / 100;
  return RATIO_PAIRS.flatMap(({ ours, peer }) => {
    const a = timesOf(size, ours);
    const b = timesOf(size, peer);
    if (!a || !b) return [];
    const cpu = a.cpu !== undefined && b.cpu !== undefined ? over(a.cpu, b.cpu) : null;
    return [{ ours, peer, p50: over(a.p50, b.p50), p95: over(a.p95, b.p95), cpu }];
  });
}
