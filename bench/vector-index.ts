/**
 * Vector index benchmark (a script, not a test): dense search of the sqlite store at large sizes, exact
 * and approximate, 512-d, one namespace.
 *
 *   node --import tsx bench/vector-index.ts [--sizes 100000,1000000] [--exact-sizes 1000,10000]
 *     [--queries 100] [--data memories|random] [--out bench/results/vector-index.json] [--json]
 *
 * For each of --sizes (one child process each, so peak RSS is that size's alone) one store file is
 * written and opened three ways:
 * - `vectorCacheMiB: 0`: exact search by sqlite-vec's scalar scan (what the store did before usearch);
 * - the default: exact search by usearch's SIMD kernel over an in-memory copy (the same results: checked
 *   on every query the scan ran, `exactMismatches` counts differences and must be 0);
 * - `vectorIndex: "hnsw"`: the HNSW index, built from the store (`buildMs`, its first save included),
 *   searched, closed after a write (`saveMs`) and reopened (`loadMs`, and the same answers after the restart).
 * recall@10 is measured against the exact top 10, counting a hit right when its exact similarity reaches
 * the 10th's (ties: the memories data holds duplicate texts, hence identical vectors); `recallAt10ById`
 * is the plain share of the exact ids. --exact-sizes adds the before/after of exact search alone at
 * smaller sizes (the --sizes runs report it too).
 *
 * Data. `memories` (default): bench/synthetic.ts memories embedded by the hashing embedder (the vectors
 * bench/speed.ts searches), questions from the same generator. `random`: uniform random unit vectors,
 * queries too: no structure at all, the hardest case for any graph index (reported for honesty, not
 * the workload). Latencies are whole store calls (denseSearch, k entries loaded and parsed), wall and
 * CPU time, on a warm store; the machine's load average is recorded beside them (2 shared cores here).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { z } from "zod";
import { percentile } from "../src/eval/metrics.js";
import { normalizeEntry } from "../src/memory/entry.js";
import type { MemoryRecord, ScoredEntry } from "../src/stores/port.js";
import { openSqliteStore, type SqliteMemoryStore, type SqliteStoreOptions } from "../src/stores/sqlite/store.js";
import { DEFAULT_HNSW_BUILD, searchWidth } from "../src/stores/sqlite/vector-search.js";
import { hashEmbed } from "../src/text/embedders/hash-features.js";
import { recallAgainstExact, type RankedHit } from "./recall.js";
import { randomUnitVector, seededRandom, SYNTHETIC_NOW, syntheticMemories, syntheticQuestions } from "./synthetic.js";
import { ownPeakRssKb } from "./peak-rss.js";

const DIMENSION = 512;
const NAMESPACE = "bench";
const BATCH = 5000;
/** sqlite-vec's scan costs ~1 s per query at 1M: it is timed on at most this many queries. */
const SCAN_QUERIES = 20;
const DEFAULT_OUT = fileURLToPath(new URL("./results/vector-index.json", import.meta.url));

const DataSchema = z.enum(["memories", "random"]);
type Data = z.infer<typeof DataSchema>;

const OptionsSchema = z.object({
  sizes: z.array(z.number().int().min(1000)).describe("Entries of each HNSW measurement"),
  exactSizes: z.array(z.number().int().min(100)).describe("Entries of each exact-only (before/after) measurement"),
  queries: z.number().int().min(10).describe("Queries per measurement"),
  data: DataSchema,
  out: z.string().min(1).describe("Where the JSON results go"),
  json: z.boolean().describe("Print the JSON instead of a table"),
});
type BenchOptions = z.infer<typeof OptionsSchema>;

const LatencySchema = z.object({ p50: z.number(), p95: z.number(), cpuP50: z.number(), cpuP95: z.number(), queries: z.number() });
type Latency = z.infer<typeof LatencySchema>;
const ExactResultSchema = z.object({
  entries: z.number(),
  data: DataSchema,
  loadAverage: z.array(z.number()),
  sqliteVec: z.record(z.string(), LatencySchema),
  usearchExact: z.record(z.string(), LatencySchema),
  exactMismatches: z.number(),
  copyMs: z.number(),
});
const HnswResultSchema = ExactResultSchema.extend({
  parameters: z
    .object({ connectivity: z.number(), expansionAdd: z.number(), expansionSearch: z.number() })
    .describe("The index's build, and the width its default search took at this size"),
  upsertSeconds: z.number(),
  buildMs: z.number(),
  saveMs: z.number(),
  loadMs: z.number(),
  hnsw: z.record(z.string(), LatencySchema),
  recallAt10: z.number(),
  recallAt10ById: z.number(),
  sameAfterRestart: z.boolean(),
  expansionSweep: z.array(z.object({ expansionSearch: z.number(), latency: LatencySchema, recallAt10: z.number(), recallAt10ById: z.number() })),
  peakRssBytes: z.number(),
  loadAverageAfter: z.array(z.number()),
});
type ExactResult = z.infer<typeof ExactResultSchema>;
type HnswResult = z.infer<typeof HnswResultSchema>;

/** What the benchmark saves (bench/results/vector-index.json). */
export const VectorIndexReportSchema = z.object({
  environment: z.object({ node: z.string(), platform: z.string(), cores: z.number() }),
  dimension: z.number(),
  data: DataSchema,
  queries: z.number(),
  hnswParameters: z
    .object({ connectivity: z.number(), expansionAdd: z.number(), expansionSearch: z.number().optional() })
    .describe("The default build; a search width where one width served every size (runs before it followed the size)"),
  exact: z.array(ExactResultSchema).describe("Exact search alone, at --exact-sizes"),
  hnsw: z.array(HnswResultSchema).describe("Exact search and the HNSW index, at --sizes"),
});


/** Writes `size` entries of `data` into a new store file, in batches (vectors are never all in memory as number[]). */
async function writeStore(path: string, size: number, data: Data): Promise<number> {
  const store = await openSqliteStore({ path, embedding: { model: `bench-${data}-${DIMENSION}`, dimension: DIMENSION }, vectorCacheMiB: 0 });
  const memories = syntheticMemories(size, 7);
  const random = seededRandom(42);
  const now = Date.parse(SYNTHETIC_NOW);
  let upsertMs = 0;
  for (let start = 0; start < size; start += BATCH) {
    const batch: MemoryRecord[] = memories.slice(start, start + BATCH).map((memory) => ({
      entry: normalizeEntry(NAMESPACE, memory, { now }),
      vector: data === "memories" ? hashEmbed(memory.text, DIMENSION) : randomUnitVector(random, DIMENSION),
    }));
    const begin = performance.now();
    await store.upsert(NAMESPACE, batch);
    upsertMs += performance.now() - begin;
  }
  await store.close();
  return upsertMs / 1000;
}

function queryVectors(count: number, data: Data): number[][] {
  if (data === "random") {
    const random = seededRandom(7);
    return Array.from({ length: count }, () => randomUnitVector(random, DIMENSION));
  }
  return syntheticQuestions(count, 11).map((question) => hashEmbed(question, DIMENSION));
}

/** Wall and CPU time of each call (CPU too: on a shared machine wall time also counts other processes' turns). */
async function timeCalls(count: number, call: (i: number) => Promise<unknown>): Promise<Latency> {
  for (let i = 0; i < Math.min(3, count); i += 1) await call(i); // warm-up, not measured
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const cpuStart = process.cpuUsage();
    const start = performance.now();
    await call(i);
    wall.push(performance.now() - start);
    const used = process.cpuUsage(cpuStart);
    cpu.push((used.user + used.system) / 1000);
  }
  return { p50: percentile(wall, 50), p95: percentile(wall, 95), cpuP50: percentile(cpu, 50), cpuP95: percentile(cpu, 95), queries: count };
}

const KS = [10, 25] as const;

async function latencies(store: SqliteMemoryStore, queries: readonly number[][], count: number): Promise<Record<string, Latency>> {
  const result: Record<string, Latency> = {};
  for (const k of KS) result[`k=${k}`] = await timeCalls(count, (i) => store.denseSearch(NAMESPACE, queries[i] ?? [], { k }));
  return result;
}

async function openAs(path: string, data: Data, options: Partial<SqliteStoreOptions>): Promise<SqliteMemoryStore> {
  return openSqliteStore({ path, embedding: { model: `bench-${data}-${DIMENSION}`, dimension: DIMENSION }, ...options });
}

const sameHits = (a: readonly ScoredEntry[], b: readonly ScoredEntry[]): boolean =>
  a.length === b.length && a.every((hit, i) => hit.entry.id === b[i]?.entry.id && hit.score === b[i]?.score);

/**
 * Exact search both ways on one store file: latencies, how many answers differ (must be none), and the
 * exact top 10 of the first `truthCount` queries (the kernel's, identical to the scan's).
 */
async function measureExact(path: string, entries: number, options: BenchOptions, truthCount = 0): Promise<{ result: ExactResult; truth: ScoredEntry[][] }> {
  const loadAverage = loadavg();
  const queries = queryVectors(options.queries + 3, options.data);
  const scanCount = Math.min(options.queries, entries >= 500_000 ? SCAN_QUERIES : options.queries);
  const scan = await openAs(path, options.data, { vectorCacheMiB: 0 });
  const sqliteVec = await latencies(scan, queries, scanCount);
  const kernel = await openAs(path, options.data, { vectorCacheMiB: 16_384 });
  const copyStart = performance.now();
  await kernel.denseSearch(NAMESPACE, queries[0] ?? [], { k: 1 });
  const copyMs = performance.now() - copyStart;
  const usearchExact = await latencies(kernel, queries, options.queries);
  let exactMismatches = 0;
  for (let i = 0; i < scanCount; i += 1) {
    for (const k of KS) {
      const expected = await scan.denseSearch(NAMESPACE, queries[i] ?? [], { k });
      if (!sameHits(await kernel.denseSearch(NAMESPACE, queries[i] ?? [], { k }), expected)) exactMismatches += 1;
    }
  }
  const truth: ScoredEntry[][] = [];
  for (let i = 0; i < truthCount; i += 1) truth.push(await kernel.denseSearch(NAMESPACE, queries[i] ?? [], { k: 10 }));
  await scan.close();
  await kernel.close();
  return { result: { entries, data: options.data, loadAverage, sqliteVec, usearchExact, exactMismatches, copyMs }, truth };
}

/** recall@10 of the index's answers against the exact ones (tie-aware, see the module comment), and by ids alone. */
function recallOf(found: readonly ScoredEntry[][], truth: readonly ScoredEntry[][]): { tieAware: number; byId: number } {
  const ranked = (hits: readonly ScoredEntry[]): RankedHit[] => hits.map((hit) => ({ id: hit.entry.id, score: hit.score }));
  return recallAgainstExact(found.map(ranked), truth.map(ranked));
}

async function measureHnsw(size: number, options: BenchOptions): Promise<HnswResult> {
  const dir = mkdtempSync(join(tmpdir(), "recallgraph-vector-bench-"));
  const path = join(dir, `store-${size}.db`);
  try {
    const upsertSeconds = await writeStore(path, size, options.data);
    const { result: exact, truth } = await measureExact(path, size, options, options.queries);
    const queries = queryVectors(options.queries + 3, options.data);

    const hnswOptions: Partial<SqliteStoreOptions> = { vectorIndex: "hnsw", hnswMinEntries: 1, vectorCacheMiB: 0 };
    const store = await openAs(path, options.data, hnswOptions);
    const buildStart = performance.now();
    const built = await store.buildVectorIndex(NAMESPACE);
    const buildMs = performance.now() - buildStart;
    if (built !== "built") throw new Error(`expected a build, got ${built}`);
    // One entry written and deleted again: the data is as before, and the close has two changes to save (timed).
    const [probe] = syntheticMemories(1, 3);
    if (probe) {
      await store.upsert(NAMESPACE, [{ entry: normalizeEntry(NAMESPACE, { ...probe, id: "probe" }, { now: Date.parse(SYNTHETIC_NOW) }), vector: queries[0] ?? [] }]);
      await store.delete(NAMESPACE, ["probe"]);
    }
    const hnsw = await latencies(store, queries, options.queries);
    const found = await Promise.all(queries.slice(0, options.queries).map((query) => store.denseSearch(NAMESPACE, query, { k: 10 })));
    const recall = recallOf(found, truth);
    const saveStart = performance.now();
    await store.close();
    const saveMs = performance.now() - saveStart;

    const reopened = await openAs(path, options.data, hnswOptions);
    const loadStart = performance.now();
    const loaded = await reopened.buildVectorIndex(NAMESPACE);
    const loadMs = performance.now() - loadStart;
    const again = await Promise.all(queries.slice(0, options.queries).map((query) => reopened.denseSearch(NAMESPACE, query, { k: 10 })));
    await reopened.close();
    const expansionSweep = await sweepExpansion(path, options, queries, truth);
    return {
      ...exact,
      parameters: { ...DEFAULT_HNSW_BUILD, expansionSearch: searchWidth({ hnswScalarKind: "f32" }, size) },
      upsertSeconds,
      buildMs,
      saveMs,
      loadMs,
      hnsw,
      recallAt10: recall.tieAware,
      recallAt10ById: recall.byId,
      sameAfterRestart: loaded === "loaded" && again.every((hits, i) => sameHits(hits, found[i] ?? [])),
      expansionSweep,
      peakRssBytes: ownPeakRssKb() * 1024,
      loadAverageAfter: loadavg(),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Search expansions around the default, on the same saved index (the expansion is a search-time choice: no rebuild). */
const SWEEP = [64, 128, 256, 1024] as const;

async function sweepExpansion(path: string, options: BenchOptions, queries: readonly number[][], truth: readonly ScoredEntry[][]): Promise<HnswResult["expansionSweep"]> {
  const sweep: HnswResult["expansionSweep"] = [];
  for (const expansionSearch of SWEEP) {
    const hnsw = { ...DEFAULT_HNSW_BUILD, expansionSearch };
    const store = await openAs(path, options.data, { vectorIndex: "hnsw", hnswMinEntries: 1, vectorCacheMiB: 0, hnsw });
    if ((await store.buildVectorIndex(NAMESPACE)) !== "loaded") throw new Error("the sweep expects the saved index to load");
    const latency = await timeCalls(options.queries, (i) => store.denseSearch(NAMESPACE, queries[i] ?? [], { k: 10 }));
    const found = await Promise.all(queries.slice(0, options.queries).map((query) => store.denseSearch(NAMESPACE, query, { k: 10 })));
    const recall = recallOf(found, truth);
    sweep.push({ expansionSearch, latency, recallAt10: recall.tieAware, recallAt10ById: recall.byId });
    await store.close();
  }
  return sweep;
}

async function measureExactOnly(size: number, options: BenchOptions): Promise<ExactResult> {
  const dir = mkdtempSync(join(tmpdir(), "recallgraph-vector-bench-"));
  const path = join(dir, `store-${size}.db`);
  try {
    await writeStore(path, size, options.data);
    return (await measureExact(path, size, options)).result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function parseArgs(argv: readonly string[]): BenchOptions & { child?: { kind: "exact" | "hnsw"; size: number } } {
  const value = (flag: string): string | undefined => {
    const index = argv.indexOf(flag);
    return index >= 0 ? argv[index + 1] : undefined;
  };
  const list = (flag: string, fallback: string): number[] =>
    (value(flag) ?? fallback)
      .split(",")
      .filter((part) => part.trim() !== "")
      .map((part) => Number(part.trim()));
  const options = OptionsSchema.parse({
    sizes: list("--sizes", "100000,1000000"),
    exactSizes: list("--exact-sizes", "1000,10000"),
    queries: Number(value("--queries") ?? 100),
    data: value("--data") ?? "memories",
    out: value("--out") ?? DEFAULT_OUT,
    json: argv.includes("--json"),
  });
  const child = value("--child");
  if (child === undefined) return options;
  const [kind, size] = child.split(":");
  return { ...options, child: { kind: kind === "hnsw" ? "hnsw" : "exact", size: Number(size) } };
}

/** Runs one measurement in a child process of its own and parses what it prints. */
function inChild(kind: "exact" | "hnsw", size: number, options: BenchOptions): unknown {
  process.stderr.write(`measuring ${kind} at ${size} entries (${options.data})...\n`);
  const args = ["--import", "tsx", fileURLToPath(import.meta.url), "--child", `${kind}:${size}`, "--queries", String(options.queries), "--data", options.data];
  const child = spawnSync(process.execPath, args, { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"], maxBuffer: 64 * 1024 * 1024 });
  if (child.status !== 0) throw new Error(`benchmark child (${kind}, ${size} entries) failed with status ${child.status}`);
  return JSON.parse(child.stdout);
}

/** The benchmark's tables (markdown): exact search both ways, the HNSW index, its search expansion. */
export function vectorIndexTables(exact: readonly ExactResult[], hnsw: readonly HnswResult[]): string {
  const ms = (value: number | undefined): string => (value === undefined ? "-" : value.toFixed(value < 10 ? 2 : 1));
  const lines = [
    "Exact dense search, k = 25: sqlite-vec scan vs usearch SIMD (same results), p50 / p95 ms (CPU p50)",
    "",
    "| entries | sqlite-vec | usearch exact | speed-up (p50) | mismatches | load avg |",
    "|---:|---:|---:|---:|---:|---|",
  ];
  for (const result of [...exact, ...hnsw]) {
    const scan = result.sqliteVec["k=25"];
    const kernel = result.usearchExact["k=25"];
    lines.push(
      `| ${result.entries} | ${ms(scan?.p50)} / ${ms(scan?.p95)} (${ms(scan?.cpuP50)}) | ${ms(kernel?.p50)} / ${ms(kernel?.p95)} (${ms(kernel?.cpuP50)}) | ` +
        `${((scan?.p50 ?? 0) / Math.max(1e-9, kernel?.p50 ?? 1)).toFixed(1)}x | ${result.exactMismatches} | ${result.loadAverage.map((v) => v.toFixed(1)).join(" ")} |`,
    );
  }
  lines.push("", "HNSW, k = 10", "", "| entries | build s | save s | load s | p50 ms | p95 ms | CPU p50 | recall@10 (by id) | same after restart | peak RSS |");
  lines.push("|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|");
  for (const result of hnsw) {
    const k10 = result.hnsw["k=10"];
    lines.push(
      `| ${result.entries} | ${(result.buildMs / 1000).toFixed(1)} | ${(result.saveMs / 1000).toFixed(1)} | ${(result.loadMs / 1000).toFixed(1)} | ${ms(k10?.p50)} | ${ms(k10?.p95)} | ` +
        `${ms(k10?.cpuP50)} | ${result.recallAt10.toFixed(3)} (${result.recallAt10ById.toFixed(3)}) | ${result.sameAfterRestart} | ${(result.peakRssBytes / 2 ** 30).toFixed(1)} GiB |`,
    );
  }
  lines.push("", "HNSW search expansion (same index), k = 10", "", "| entries | expansion | p50 ms | p95 ms | recall@10 (by id) |", "|---:|---:|---:|---:|---:|");
  for (const result of hnsw) {
    for (const point of result.expansionSweep) {
      lines.push(`| ${result.entries} | ${point.expansionSearch} | ${ms(point.latency.p50)} | ${ms(point.latency.p95)} | ${point.recallAt10.toFixed(3)} (${point.recallAt10ById.toFixed(3)}) |`);
    }
  }
  return lines.join("\n");
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  if (options.child) {
    const result = options.child.kind === "hnsw" ? await measureHnsw(options.child.size, options) : await measureExactOnly(options.child.size, options);
    process.stdout.write(JSON.stringify(result));
    return;
  }
  const exact: ExactResult[] = [];
  const hnsw: HnswResult[] = [];
  const report = {
    environment: { node: process.version, platform: `${process.platform}-${process.arch}`, cores: availableParallelism() },
    dimension: DIMENSION,
    data: options.data,
    queries: options.queries,
    hnswParameters: DEFAULT_HNSW_BUILD,
    exact,
    hnsw,
  };
  // Written after every size: a 1M run takes hours here, and what was measured before a failure is kept.
  const write = (): void => {
    mkdirSync(dirname(options.out), { recursive: true });
    writeFileSync(options.out, `${JSON.stringify(report, null, 2)}\n`);
  };
  for (const size of options.exactSizes) {
    exact.push(ExactResultSchema.parse(inChild("exact", size, options)));
    write();
  }
  for (const size of options.sizes) {
    hnsw.push(HnswResultSchema.parse(inChild("hnsw", size, options)));
    write();
  }
  process.stdout.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : `${vectorIndexTables(exact, hnsw)}\nwritten to ${options.out}\n`);
}

// Run only as a script: bench/docs-results.ts imports the schema and the tables.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}
