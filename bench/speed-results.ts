/** What the speed benchmark measures and saves (bench/results/speed.json), validated when read back. */
import { z } from "zod";

const LatencySchema = z.object({ p50: z.number(), p95: z.number() });

/** The retrieval graph's nodes, in the order a run takes them (the views share a step). */
export const GRAPH_NODES = ["plan", "semantic", "lexical", "symbolic", "merge", "reflect", "finalize"] as const;

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
  nodesMs: z.object(Object.fromEntries(GRAPH_NODES.map((node) => [node, z.number()])) as Record<(typeof GRAPH_NODES)[number], z.ZodNumber>),
  frameworkMs: z.number(),
  /**
   * The same split in CPU time (process.cpuUsage, user + system), which other processes on the machine
   * disturb less than wall time: the invoke's CPU time, the hand-chained nodes' CPU time, and the
   * difference, the framework's.
   */
  cpu: z.object({ invokeMs: z.number(), nodesMs: z.number(), frameworkMs: z.number() }),
  /** Mean reflection rounds per question (each round runs the views, merge and reflect again). */
  rounds: z.number(),
});
export type Breakdown = z.infer<typeof BreakdownSchema>;

export const RecallgraphSideSchema = z.object({
  side: z.literal("recallgraph"),
  entries: z.number(),
  ingestPerSec: z.number(),
  ingestWithHashEmbeddingPerSec: z.number(),
  retrieveMs: LatencySchema,
  breakdown: BreakdownSchema,
  peakRssMb: z.number(),
});
export const InMemorySideSchema = z.object({
  side: z.literal("inmemory"),
  buildPerSec: z.number(),
  searchMs: LatencySchema,
  peakRssMb: z.number(),
});
/** `p50`, `p95` and the mean of a per-question figure. */
const PerQuestionSchema = LatencySchema.extend({ mean: z.number() });

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
export const ChildOutputSchema = z.discriminatedUnion("side", [RecallgraphSideSchema, InMemorySideSchema, QdrantSideSchema]);

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

/** What speed.json held before the speed benchmark read the embedding benchmark's results: its own sample. */
const SampledEmbeddingSchema = z
  .object({ model: z.string(), sample: z.number(), textsPerSec: z.number(), ingestPerSec: z.number() })
  .describe("USE-lite measured by the speed benchmark itself on a sample (results saved before bench:embedding existed)");

const SizeResultSchema = z.object({
  entries: z.number(),
  ingestPerSec: z.number(),
  ingestWithHashEmbeddingPerSec: z.number(),
  retrieveMs: LatencySchema,
  inMemoryStoreMs: LatencySchema,
  ratioP50: z.number(),
  breakdown: BreakdownSchema.optional(),
  peakRssMb: z.number(),
  inMemoryStorePeakRssMb: z.number(),
});
export const SpeedResultsSchema = z.object({
  sizes: z.record(z.string(), SizeResultSchema),
  embedding: z.union([SpeedEmbeddingSchema, SampledEmbeddingSchema]).optional(),
  queries: z.number(),
  machine: z.string(),
  notes: z.array(z.string()),
});
export type SpeedResults = z.infer<typeof SpeedResultsSchema>;

