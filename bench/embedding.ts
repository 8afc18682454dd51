/**
 * Embedding benchmark (a script, not a test): an in-process embedder's texts per second as ingest
 * embeds them (calls of 64 texts, writeMemories' batch), in this thread (1 worker: the path before the
 * pool) and spread over a pool of worker threads, with each one's CPU use, start-up, memory and, apart
 * from throughput, the time to embed one query.
 *
 *   npm run bench:embedding -- [--embedder use-lite|onnx] [--model <folder or hub id>] [--texts 512]
 *     [--rounds 3] [--workers 1,2] [--json] [--no-write]
 *
 * `--embedder onnx` runs the ONNX embedder on `--model` (default ../shared/models/all-MiniLM-L6-v2-int8).
 *
 * Honest setup notes, also written with the results:
 * - Texts are synthetic memories (bench/synthetic.ts, ~90 characters, the shape of dialogue memories).
 * - Every measurement runs in a child process of its own (its own model copies and peak RSS); the
 *   configurations alternate round by round (1, 2, 2, 1, 1, 2, ...) so that load from other processes
 *   falls on both alike, and the medians are reported with every sample and the load average.
 * - CPU time is the whole process's (every thread); `parallelism` is CPU time over wall time: about 1
 *   for one thread, up to the worker count for the pool when the cores are free.
 * - Model loading (and starting the workers) is done and timed before the clock starts.
 * - The vectors of every configuration are hashed (their float32 bits); `identical` says whether all agree.
 * - Query latency is one short question through `embedQuery`, which always runs in the calling thread;
 *   `poolQueryMs` is the same text through a running pool (`embedDocuments([text])`), for comparison.
 *
 * Writes bench/results/embedding.json for use-lite, embedding-onnx.json for onnx (EmbeddingBenchSchema
 * below), which the speed benchmark reads.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { z } from "zod";
import type { Embedder } from "../src/text/embedder.js";
import { defaultEmbeddingWorkers } from "../src/text/embedders/batched.js";
import { createOnnxEmbedder, ONNX_DEFAULT_BATCH_SIZE } from "../src/text/embedders/onnx.js";
import { createUseLiteEmbedder, USE_LITE_DEFAULT_BATCH_SIZE } from "../src/text/embedders/use-lite.js";
import { syntheticMemories, syntheticQuestions } from "./synthetic.js";
import { machineDescription } from "./machine.js";
import { ownPeakRssKb } from "./peak-rss.js";

const HERE = dirname(fileURLToPath(import.meta.url));
export const EMBEDDING_RESULTS_PATH = join(HERE, "results", "embedding.json");
export const BENCHED_EMBEDDERS = ["use-lite", "onnx"] as const;
export type BenchedEmbedder = (typeof BENCHED_EMBEDDERS)[number];
/** Each embedder's results file: USE-lite's keeps its name (the speed benchmark read it first). */
export function embeddingResultsPath(embedder: BenchedEmbedder): string {
  return embedder === "use-lite" ? EMBEDDING_RESULTS_PATH : join(HERE, "results", `embedding-${embedder}.json`);
}
const DEFAULT_ONNX_MODEL = join(HERE, "..", "..", "shared", "models", "all-MiniLM-L6-v2-int8");
/** Texts per embedDocuments call: writeMemories' batch. */
const CALL_SIZE = 64;
const QUERY_SAMPLES = 30;

const Latency = z.object({ p50: z.number(), p95: z.number() });

/** One child's measurement. */
const RunSchema = z.object({
  workers: z.number().int().min(1),
  texts: z.number().int(),
  wallMs: z.number(),
  cpuMs: z.number(),
  textsPerSec: z.number(),
  parallelism: z.number(),
  startupMs: z.number(),
  baseRssMb: z.number(),
  rssMb: z.number(),
  peakRssMb: z.number(),
  queryMs: Latency,
  poolQueryMs: Latency.optional(),
  vectorsSha256: z.string(),
  loadAverage: z.object({ before: z.number(), after: z.number() }),
  /** Share of the machine's CPU time left idle during the run (Linux /proc/stat; absent elsewhere). */
  machineIdle: z.number().optional(),
});
type Run = z.infer<typeof RunSchema>;

export const EmbeddingBenchSchema = z.object({
  model: z.enum(BENCHED_EMBEDDERS),
  /** The spec's model name (which ONNX model and dtype); absent in results saved before onnx was benchmarked. */
  modelName: z.string().optional(),
  texts: z.number().int(),
  meanCharacters: z.number(),
  callSize: z.number().int(),
  batchSize: z.number().int(),
  rounds: z.number().int(),
  defaultWorkers: z.number().int(),
  configurations: z.array(
    z.object({
      workers: z.number().int(),
      path: z.enum(["in-process", "worker pool"]),
      textsPerSec: z.number(),
      textsPerSecSamples: z.array(z.number()),
      parallelism: z.number(),
      cpuMsPerText: z.number(),
      machineIdle: z.number().optional(),
      startupMs: z.number(),
      baseRssMb: z.number(),
      rssMb: z.number(),
      peakRssMb: z.number(),
      /** (rssMb - baseRssMb) / model copies (1 in-process, N for N workers). */
      rssPerModelMb: z.number(),
      queryMs: Latency,
      poolQueryMs: Latency.optional(),
    }),
  ),
  /** Median texts/s of the pool at the default worker count over that of one thread. */
  speedup: z.number(),
  identical: z.boolean(),
  loadAverage: z.object({ min: z.number(), max: z.number() }),
  machine: z.string(),
  measuredAt: z.string(),
  notes: z.array(z.string()),
});
export type EmbeddingBench = z.infer<typeof EmbeddingBenchSchema>;

const ArgsSchema = z.object({
  embedder: z.enum(BENCHED_EMBEDDERS),
  model: z.string().min(1).describe("onnx: a model folder or hub id"),
  texts: z.number().int().min(CALL_SIZE).max(100_000),
  rounds: z.number().int().min(1).max(20),
  workers: z.array(z.number().int().min(1).max(64)).min(1),
  json: z.boolean(),
  write: z.boolean(),
  child: z.boolean(),
});
type Args = z.infer<typeof ArgsSchema>;

function parseArgs(argv: readonly string[]): Args {
  const value = (flag: string) => {
    const at = argv.indexOf(flag);
    return at >= 0 ? argv[at + 1] : undefined;
  };
  const workers = value("--workers")?.split(",").map((item) => Number(item.trim()));
  const embedder = value("--embedder") ?? "use-lite";
  return ArgsSchema.parse({
    embedder,
    model: value("--model") ?? DEFAULT_ONNX_MODEL,
    texts: Number(value("--texts") ?? 512),
    rounds: Number(value("--rounds") ?? 3),
    workers: workers ?? [...new Set([1, Math.max(2, defaultEmbeddingWorkers())])],
    json: argv.includes("--json"),
    write: !argv.includes("--no-write"),
    child: argv.includes("--child"),
  });
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
}
const median = (values: readonly number[]) => percentile(values, 50);
const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;
const latency = (values: readonly number[]) => ({ p50: round(percentile(values, 50), 2), p95: round(percentile(values, 95), 2) });
const mb = (bytes: number) => Math.round(bytes / 1e6);

function batchSizeOf(embedder: BenchedEmbedder): number {
  return embedder === "onnx" ? ONNX_DEFAULT_BATCH_SIZE : USE_LITE_DEFAULT_BATCH_SIZE;
}

function embedderFor(args: Pick<Args, "embedder" | "model">, workers: number): Embedder {
  return args.embedder === "onnx" ? createOnnxEmbedder({ model: args.model, workers }) : createUseLiteEmbedder({ workers });
}

/** The measurement of one configuration, in this (child) process. */
async function measure(args: Args, workers: number, count: number): Promise<Omit<Run, "loadAverage">> {
  const embedder = embedderFor(args, workers);
  const texts = syntheticMemories(count, 99).map((memory) => memory.text);
  const questions = syntheticQuestions(QUERY_SAMPLES, 5);

  // Load the model(s) before the clock: in this thread for one worker, in every worker for a pool
  // (a call of one batch per worker starts them all; other texts, so nothing is cached).
  const baseRssMb = mb(process.memoryUsage().rss);
  const startup = performance.now();
  const warm = syntheticMemories(batchSizeOf(args.embedder) * Math.max(2, workers), 3).map((memory) => memory.text);
  if (workers === 1) await embedder.embeddings.embedQuery("load the model before the clock starts");
  else await embedder.embeddings.embedDocuments(warm);
  const startupMs = performance.now() - startup;

  const vectors: number[][] = [];
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  for (let start = 0; start < texts.length; start += CALL_SIZE) vectors.push(...(await embedder.embeddings.embedDocuments(texts.slice(start, start + CALL_SIZE))));
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  // Memory as ingest sees it: the pool's main thread has loaded no model of its own yet.
  const rssMb = mb(process.memoryUsage().rss);
  const peakRssMb = mb(ownPeakRssKb() * 1024);

  const hash = createHash("sha256");
  for (const vector of vectors) hash.update(new Uint8Array(Float32Array.from(vector).buffer));

  let poolQueryMs: z.infer<typeof Latency> | undefined;
  if (workers > 1) {
    const times: number[] = [];
    for (const question of questions) {
      const asked = performance.now();
      await embedder.embeddings.embedDocuments([question]);
      times.push(performance.now() - asked);
    }
    poolQueryMs = latency(times);
  }
  await embedder.embeddings.embedQuery("load this thread's model before timing queries");
  const queryTimes: number[] = [];
  for (const question of questions) {
    const asked = performance.now();
    await embedder.embeddings.embedQuery(question);
    queryTimes.push(performance.now() - asked);
  }
  await embedder.close?.();
  return {
    workers,
    texts: texts.length,
    wallMs: round(wallMs, 1),
    cpuMs: round(cpuMs, 1),
    textsPerSec: round(texts.length / (wallMs / 1000), 1),
    parallelism: round(cpuMs / wallMs, 2),
    startupMs: Math.round(startupMs),
    baseRssMb,
    rssMb,
    peakRssMb,
    queryMs: latency(queryTimes),
    ...(poolQueryMs ? { poolQueryMs } : {}),
    vectorsSha256: hash.digest("hex"),
  };
}

/** The machine's idle and total CPU ticks so far (Linux), to tell a contended run from a free one. */
function cpuTicks(): { idle: number; total: number } | undefined {
  try {
    const fields = (readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "").trim().split(/\s+/).slice(1).map(Number);
    if (fields.length < 5 || fields.some((value) => !Number.isFinite(value))) return undefined;
    return { idle: (fields[3] ?? 0) + (fields[4] ?? 0), total: fields.reduce((sum, value) => sum + value, 0) };
  } catch {
    return undefined;
  }
}

function inChild(args: Args, workers: number): Run {
  const before = loadavg()[0] ?? 0;
  const ticksBefore = cpuTicks();
  const child = spawnSync(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url), "--child", "--embedder", args.embedder, "--model", args.model, "--workers", String(workers), "--texts", String(args.texts)], {
    encoding: "utf8",
    maxBuffer: 16 * 1024 * 1024,
    env: { ...process.env, RECALLGRAPH_LOG_LEVEL: "error" },
  });
  if (child.status !== 0) throw new Error(`embedding benchmark child (workers ${workers}) failed (${child.status}): ${child.stderr.slice(-2000)}`);
  const lastLine = child.stdout.trim().split("\n").at(-1) ?? "";
  const after = loadavg()[0] ?? 0;
  const ticksAfter = cpuTicks();
  // The child's own start and model loading are inside this window too: a rough but honest gauge.
  const machineIdle =
    ticksBefore && ticksAfter && ticksAfter.total > ticksBefore.total
      ? round((ticksAfter.idle - ticksBefore.idle) / (ticksAfter.total - ticksBefore.total), 2)
      : undefined;
  return RunSchema.parse({
    ...JSON.parse(lastLine),
    loadAverage: { before: round(before, 2), after: round(after, 2) },
    ...(machineIdle === undefined ? {} : { machineIdle }),
  });
}


async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  if (args.child) {
    const workers = args.workers[0] ?? 1;
    process.stdout.write(`${JSON.stringify(await measure(args, workers, args.texts))}\n`);
    return;
  }
  const note = (text: string) => process.stderr.write(`${text}\n`);
  const modelName = embedderFor(args, 1).spec.model;
  note(`embedding benchmark: ${modelName}, ${args.texts} texts in calls of ${CALL_SIZE}, workers ${args.workers.join(", ")}, ${args.rounds} rounds; ${machineDescription()}`);
  const runs: Run[] = [];
  for (let r = 0; r < args.rounds; r += 1) {
    const order = r % 2 === 0 ? args.workers : [...args.workers].reverse();
    for (const workers of order) {
      const run = inChild(args, workers);
      note(
        `  round ${r + 1}, ${workers} worker${workers === 1 ? "" : "s"}: ${run.textsPerSec} texts/s (parallelism ${run.parallelism}, ` +
          `load ${run.loadAverage.before} -> ${run.loadAverage.after}${run.machineIdle === undefined ? "" : `, machine idle ${Math.round(run.machineIdle * 100)}%`})`,
      );
      runs.push(run);
    }
  }

  const texts = syntheticMemories(args.texts, 99).map((memory) => memory.text);
  const configurations = args.workers.map((workers) => {
    const mine = runs.filter((run) => run.workers === workers);
    const poolQueries = mine.flatMap((run) => (run.poolQueryMs ? [run.poolQueryMs] : []));
    return {
      workers,
      path: workers === 1 ? ("in-process" as const) : ("worker pool" as const),
      textsPerSec: round(median(mine.map((run) => run.textsPerSec)), 1),
      textsPerSecSamples: mine.map((run) => run.textsPerSec),
      parallelism: round(median(mine.map((run) => run.parallelism)), 2),
      cpuMsPerText: round(median(mine.map((run) => run.cpuMs / run.texts)), 2),
      ...(mine.every((run) => run.machineIdle !== undefined) ? { machineIdle: round(median(mine.map((run) => run.machineIdle ?? 0)), 2) } : {}),
      startupMs: Math.round(median(mine.map((run) => run.startupMs))),
      baseRssMb: Math.round(median(mine.map((run) => run.baseRssMb))),
      rssMb: Math.round(median(mine.map((run) => run.rssMb))),
      peakRssMb: Math.round(median(mine.map((run) => run.peakRssMb))),
      rssPerModelMb: Math.round(median(mine.map((run) => (run.rssMb - run.baseRssMb) / run.workers))),
      queryMs: { p50: round(median(mine.map((run) => run.queryMs.p50)), 2), p95: round(median(mine.map((run) => run.queryMs.p95)), 2) },
      ...(poolQueries.length
        ? { poolQueryMs: { p50: round(median(poolQueries.map((q) => q.p50)), 2), p95: round(median(poolQueries.map((q) => q.p95)), 2) } }
        : {}),
    };
  });
  const single = configurations.find((configuration) => configuration.workers === 1);
  const pooled =
    configurations.find((configuration) => configuration.workers === defaultEmbeddingWorkers() && configuration.workers > 1) ??
    configurations.find((configuration) => configuration.workers > 1);
  const loads = runs.flatMap((run) => [run.loadAverage.before, run.loadAverage.after]);
  const results: EmbeddingBench = EmbeddingBenchSchema.parse({
    model: args.embedder,
    modelName,
    texts: args.texts,
    meanCharacters: Math.round(texts.reduce((sum, text) => sum + text.length, 0) / texts.length),
    callSize: CALL_SIZE,
    batchSize: batchSizeOf(args.embedder),
    rounds: args.rounds,
    defaultWorkers: defaultEmbeddingWorkers(),
    configurations,
    speedup: single && pooled ? round(pooled.textsPerSec / single.textsPerSec, 2) : 1,
    identical: new Set(runs.map((run) => run.vectorsSha256)).size === 1,
    loadAverage: { min: round(Math.min(...loads), 2), max: round(Math.max(...loads), 2) },
    machine: machineDescription(),
    measuredAt: new Date().toISOString(),
    notes: [
      `synthetic memories (bench/synthetic.ts), embedded in calls of ${CALL_SIZE} (writeMemories' batch), ${batchSizeOf(args.embedder)} texts per model call`,
      "1 worker = in the calling thread (the path before the pool); N workers = a pool of N worker threads, one model copy each",
      "each configuration in a child process of its own, alternating round by round; medians of the rounds, every sample kept",
      "parallelism = the process's CPU time (all threads) over wall time; the 1-minute load average around each run is in loadAverage, and machineIdle is the share of all cores' time left idle during it (other processes share the cores)",
      "with the cores busy elsewhere the pool cannot show its speed: Linux shares CPU time fairly between sessions (autogroups), not threads, so a busy machine gives the process the same share however many threads it runs; read textsPerSec together with machineIdle",
      "rssMb: after embedding, before any query (the pool's main thread holds no model); peakRssMb: the process's peak by then; baseRssMb: before any model was loaded",
      "queryMs: one short question through embedQuery (always in the calling thread); poolQueryMs: the same through a running pool",
    ],
  });

  if (args.write) {
    const file = embeddingResultsPath(args.embedder);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
    note(`  wrote ${join("bench", "results", basename(file))}`);
  }
  if (args.json) {
    process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
    return;
  }
  const lines = [
    `${modelName} on ${results.texts} texts (${results.meanCharacters} characters on average), calls of ${results.callSize}:`,
    ...results.configurations.map(
      (c) =>
        `  ${String(c.workers).padStart(2)} worker${c.workers === 1 ? " " : "s"} (${c.path.padEnd(11)}): ${String(c.textsPerSec).padStart(6)} texts/s ` +
        `[${c.textsPerSecSamples.join(", ")}], parallelism ${c.parallelism}, ${c.cpuMsPerText} CPU ms/text, start ${c.startupMs} ms, ` +
        `RSS ${c.rssMb} MB (peak ${c.peakRssMb}, ${c.rssPerModelMb} MB per model copy over ${c.baseRssMb} MB without one), query p50 ${c.queryMs.p50} ms${c.poolQueryMs ? ` (through the pool ${c.poolQueryMs.p50} ms)` : ""}`,
    ),
    `  speedup ${results.speedup}x; vectors identical across configurations: ${results.identical}; load average ${results.loadAverage.min}-${results.loadAverage.max} on ${cpus().length} cores`,
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
}

// Run only as a script: the speed benchmark imports the schema.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
