/**
 * Store benchmark (a script, not a test): upsert throughput and query latency of the sqlite store at
 * several sizes, one namespace, 512-d random unit vectors, short synthetic memories.
 *
 *   node --import tsx bench/store.ts [--sizes 10000,100000] [--queries 200] [--json] [--keep-dir DIR]
 *
 * --keep-dir writes the stores to DIR/store-<size>.db and keeps them, for inspection.
 *
 * Each size runs in a child process of its own, so peak RSS is that size's alone. Upsert time counts
 * only the store's upsert calls (batches of 500): generating texts and vectors is outside the clock,
 * and there is no embedding. Every latency is one awaited call, measured on a warm store.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { percentile } from "../src/eval/metrics.js";
import { normalizeEntry } from "../src/memory/entry.js";
import type { MemoryFilter, MemoryRecord } from "../src/stores/port.js";
import { openSqliteStore } from "../src/stores/sqlite/store.js";
import { pick, randomUnitVector, seededRandom } from "./synthetic.js";
import { ownPeakRssKb } from "./peak-rss.js";

const DIMENSION = 512;
const NAMESPACE = "bench";
const BATCH = 500;
const START_MS = Date.parse("2023-01-01T00:00:00Z");
const SPAN_MS = 2 * 365 * 86_400_000;

const PERSONS = [
  "Alice", "Bob", "Caroline", "Melanie", "Deborah", "Jolene", "Evan", "Sam", "Nate", "Joanna", "Tim", "John",
  "Maria", "Gina", "Jon", "Audrey", "Andrew", "James", "Priya", "Wei", "Yuki", "Omar", "Fatima", "Lars",
];
const OWNER = "Robin";
const PLACES = [
  "Paris", "Berlin", "Lisbon", "Tokyo", "Shanghai", "New York", "Boston", "Seattle", "Austin", "Toronto", "Madrid",
  "Rome", "Prague", "Vienna", "Dublin", "Oslo", "Sydney", "Melbourne", "Nairobi", "Cairo", "the beach house", "the office",
];
const ENTITIES = [
  "Acme Corp", "Globex", "Initech", "the marathon", "the book club", "the pottery class", "the LGBTQ support group",
  "the hospital", "the startup", "the bakery", "the dance studio", "the animal shelter", "the school", "the museum",
  "the concert", "the conference", "the camping trip", "the adoption agency", "the charity race", "the gym",
];
const VERBS = [
  "visited", "talked about", "planned", "finished", "started", "painted", "cooked", "booked", "signed up for",
  "bought", "sold", "wrote about", "cancelled", "celebrated", "photographed", "joined", "left", "recommended",
];
const OBJECTS = [
  "a sunset painting", "a new guitar", "vegan lasagna", "a road trip", "a job interview", "the quarterly report",
  "a birthday party", "a pottery bowl", "a hiking route", "a mentoring session", "a charity fundraiser",
  "a science fiction novel", "a yoga retreat", "a family dinner", "an art exhibition", "a coding bootcamp",
  "a camping weekend", "a violin lesson", "a photography course", "a volunteer shift",
];
const FILLERS = [
  "because it felt important", "after a long week", "with great excitement", "despite the rain", "to relax",
  "for the first time", "as a surprise", "to support friends", "while traveling", "to learn something new",
];

const OptionsSchema = z.object({
  sizes: z.array(z.number().int().min(100)).min(1),
  queries: z.number().int().min(10),
  json: z.boolean(),
});
type BenchOptions = z.infer<typeof OptionsSchema>;

const LatencySchema = z.object({ p50: z.number(), p95: z.number(), mean: z.number(), cpuP50: z.number(), cpuP95: z.number() });
const SizeResultSchema = z.object({
  entries: z.number(),
  upsertEntriesPerSecond: z.number(),
  upsertSeconds: z.number(),
  upsertCpuEntriesPerSecond: z.number(),
  latencyMs: z.record(z.string(), LatencySchema),
  fileBytes: z.number(),
  walBytes: z.number(),
  peakRssBytes: z.number(),
  meanHits: z.record(z.string(), z.number()),
});
type SizeResult = z.infer<typeof SizeResultSchema>;
type Latency = z.infer<typeof LatencySchema>;


function syntheticRecord(random: () => number, index: number): MemoryRecord {
  const person = pick(random, PERSONS);
  const other = pick(random, PERSONS);
  const place = pick(random, PLACES);
  const entity = pick(random, ENTITIES);
  const verb = pick(random, VERBS);
  const object = pick(random, OBJECTS);
  const timestampMs = START_MS + Math.floor(random() * SPAN_MS);
  const date = new Date(timestampMs).toISOString().slice(0, 10);
  const text = `${person} ${verb} ${object} with ${other} at ${entity} in ${place} on ${date} ${pick(random, FILLERS)}.`;
  const entry = normalizeEntry(
    NAMESPACE,
    {
      id: `m${index}`,
      text,
      keywords: [object.replace(/^(a|an|the) /, ""), verb],
      // The namespace's owner is named in every other memory, as a user's own name is in a personal memory.
      persons: [...(index % 2 === 0 ? [OWNER] : []), ...(person === other ? [person] : [person, other])],
      entities: [entity],
      location: place,
      timestamp: timestampMs,
      topic: verb,
    },
    { now: START_MS + SPAN_MS },
  );
  return { entry, vector: randomUnitVector(random, DIMENSION) };
}

/**
 * Wall-clock and CPU time of each call. CPU time (this process, user + system) is reported too because
 * on a shared machine wall time also counts the time other processes held the cores.
 */
async function timeQueries(count: number, run: (i: number) => Promise<number>): Promise<{ latency: Latency; meanHits: number }> {
  for (let i = 0; i < Math.min(10, count); i += 1) await run(count + i); // warm-up, not measured
  const wall: number[] = [];
  const cpu: number[] = [];
  let hits = 0;
  for (let i = 0; i < count; i += 1) {
    const cpuStart = process.cpuUsage();
    const start = performance.now();
    hits += await run(i);
    wall.push(performance.now() - start);
    const used = process.cpuUsage(cpuStart);
    cpu.push((used.user + used.system) / 1000);
  }
  const mean = wall.reduce((sum, value) => sum + value, 0) / Math.max(1, wall.length);
  return {
    latency: { p50: percentile(wall, 50), p95: percentile(wall, 95), mean, cpuP50: percentile(cpu, 50), cpuP95: percentile(cpu, 95) },
    meanHits: hits / count,
  };
}

/** Builds one store of `size` entries and measures it (runs in the child process). */
async function measureSize(size: number, queries: number, keepDir?: string): Promise<SizeResult> {
  const dir = keepDir ?? mkdtempSync(join(tmpdir(), "recallgraph-bench-"));
  const path = join(dir, `store-${size}.db`);
  rmSync(path, { force: true });
  rmSync(`${path}-wal`, { force: true });
  try {
    const store = await openSqliteStore({ path, embedding: { model: "bench-random-512", dimension: DIMENSION } });
    const random = seededRandom(42);
    let upsertMs = 0;
    let upsertCpuMs = 0;
    for (let start = 0; start < size; start += BATCH) {
      const batch: MemoryRecord[] = [];
      for (let i = start; i < Math.min(size, start + BATCH); i += 1) batch.push(syntheticRecord(random, i));
      const cpuStart = process.cpuUsage();
      const begin = performance.now();
      await store.upsert(NAMESPACE, batch);
      upsertMs += performance.now() - begin;
      const used = process.cpuUsage(cpuStart);
      upsertCpuMs += (used.user + used.system) / 1000;
    }

    const queryRandom = seededRandom(7);
    const vectors = Array.from({ length: queries + 10 }, () => randomUnitVector(queryRandom, DIMENSION));
    const lexicalQueries = Array.from({ length: queries + 10 }, () => {
      const forms = [
        () => `When did ${pick(queryRandom, PERSONS)} go to ${pick(queryRandom, PLACES)}?`,
        () => `What did ${pick(queryRandom, PERSONS)} say about ${pick(queryRandom, OBJECTS)}?`,
        () => `${pick(queryRandom, ENTITIES)} ${pick(queryRandom, VERBS)}`,
        () => `Who ${pick(queryRandom, VERBS)} ${pick(queryRandom, OBJECTS)} in ${pick(queryRandom, PLACES)}?`,
      ];
      return pick(queryRandom, forms)();
    });
    const monthMs = 30 * 86_400_000;
    const filters: MemoryFilter[] = Array.from({ length: queries + 10 }, (_, i) => {
      const startMs = START_MS + Math.floor(queryRandom() * (SPAN_MS - monthMs));
      switch (i % 4) {
        case 0:
          return { persons: [pick(queryRandom, PERSONS).toLowerCase()] };
        case 1:
          return { persons: [pick(queryRandom, PERSONS)], timeRange: { startMs, endMs: startMs + monthMs } };
        case 2:
          return { location: pick(queryRandom, PLACES).slice(0, 4).toUpperCase(), entities: [pick(queryRandom, ENTITIES)] };
        default:
          return { timeRange: { startMs, endMs: startMs + 7 * 86_400_000 } };
      }
    });
    // Half the namespace: the filtered dense path that post-filters a widening KNN.
    const broadFilter: MemoryFilter = { timeRange: { startMs: START_MS, endMs: START_MS + SPAN_MS / 2 } };

    const k = 25;
    // Lexical search both ways: from the namespace's terms in memory (read first, as a long-running
    // process has them) and from FTS5's matches (a process that asks once, or a namespace beyond the budget).
    await store.buildLexicalIndex(NAMESPACE);
    const fts5 = await openSqliteStore({ path, embedding: store.embedding, lexicalCacheEntries: 0 });
    const runs: Record<string, (i: number) => Promise<number>> = {
      dense: async (i) => (await store.denseSearch(NAMESPACE, vectors[i] as number[], { k })).length,
      lexical: async (i) => (await store.lexicalSearch(NAMESPACE, lexicalQueries[i] as string, { k: 5 })).length,
      "lexical (FTS5 matches)": async (i) => (await fts5.lexicalSearch(NAMESPACE, lexicalQueries[i] as string, { k: 5 })).length,
      filtered: async (i) => (await store.filteredSearch(NAMESPACE, filters[i] as MemoryFilter, { k: 5 })).length,
      "filtered (a name of half)": async () => (await store.filteredSearch(NAMESPACE, { persons: [OWNER] }, { k: 5 })).length,
      "list (a name of half, 20 a page)": async () => (await store.list(NAMESPACE, { filter: { persons: [OWNER] }, limit: 20 })).entries.length,
      "list (one of 24 names, 20 a page)": async (i) => (await store.list(NAMESPACE, { filter: { persons: [PERSONS[i % PERSONS.length] as string] }, limit: 20 })).entries.length,
      "filtered+vector": async (i) =>
        (await store.filteredSearch(NAMESPACE, filters[i] as MemoryFilter, { k: 5, vector: vectors[i] as number[] })).length,
      "dense+broad filter": async (i) => (await store.denseSearch(NAMESPACE, vectors[i] as number[], { k, filter: broadFilter })).length,
      vocabulary: async () => {
        const vocabulary = await store.vocabulary(NAMESPACE);
        return vocabulary.persons.length + vocabulary.entities.length + vocabulary.locations.length;
      },
    };
    const latencyMs: Record<string, Latency> = {};
    const meanHits: Record<string, number> = {};
    for (const [name, run] of Object.entries(runs)) {
      const measured = await timeQueries(queries, run);
      latencyMs[name] = measured.latency;
      meanHits[name] = measured.meanHits;
    }
    const stats = await store.stats();
    await fts5.close();
    await store.close();
    let walBytes = 0;
    try {
      walBytes = statSync(`${path}-wal`).size;
    } catch {
      walBytes = 0; // checkpointed away on close
    }
    return {
      entries: stats.namespaces[NAMESPACE] ?? 0,
      upsertEntriesPerSecond: size / (upsertMs / 1000),
      upsertSeconds: upsertMs / 1000,
      upsertCpuEntriesPerSecond: size / (upsertCpuMs / 1000),
      latencyMs,
      fileBytes: stats.bytes ?? statSync(path).size,
      walBytes,
      peakRssBytes: ownPeakRssKb() * 1024,
      meanHits,
    };
  } finally {
    if (keepDir === undefined) rmSync(dir, { recursive: true, force: true });
  }
}

function parseArgs(argv: readonly string[]): BenchOptions & { child?: number; keepDir?: string } {
  const value = (flag: string): string | undefined => {
    const index = argv.indexOf(flag);
    return index >= 0 ? argv[index + 1] : undefined;
  };
  const options = OptionsSchema.parse({
    sizes: (value("--sizes") ?? "10000,100000").split(",").map((size) => Number(size.trim())),
    queries: Number(value("--queries") ?? 200),
    json: argv.includes("--json"),
  });
  const child = value("--child-size");
  const keepDir = value("--keep-dir");
  return { ...options, ...(child !== undefined ? { child: Number(child) } : {}), ...(keepDir !== undefined ? { keepDir } : {}) };
}

function formatTable(results: readonly SizeResult[]): string {
  const mib = (bytes: number): string => `${(bytes / 1048576).toFixed(0)} MiB`;
  const ms = (value: number): string => value.toFixed(value < 10 ? 2 : 1);
  const lines = [
    "| entries | upsert entries/s (per CPU s) | query | p50 ms | p95 ms | CPU p50 ms | CPU p95 ms | mean hits | file | peak RSS |",
    "|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const result of results) {
    Object.entries(result.latencyMs).forEach(([name, latency], index) => {
      const first = index === 0;
      lines.push(
        `| ${first ? result.entries : ""} | ${first ? `${Math.round(result.upsertEntriesPerSecond)} (${Math.round(result.upsertCpuEntriesPerSecond)})` : ""} | ${name} | ${ms(latency.p50)} | ${ms(latency.p95)} | ${ms(latency.cpuP50)} | ${ms(latency.cpuP95)} | ${(result.meanHits[name] ?? 0).toFixed(1)} | ${first ? mib(result.fileBytes + result.walBytes) : ""} | ${first ? mib(result.peakRssBytes) : ""} |`,
      );
    });
  }
  return lines.join("\n");
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  if (options.child !== undefined) {
    process.stdout.write(JSON.stringify(await measureSize(options.child, options.queries, options.keepDir)));
    return;
  }
  const results: SizeResult[] = [];
  for (const size of options.sizes) {
    if (!options.json) process.stderr.write(`measuring ${size} entries...\n`);
    const child = spawnSync(
      process.execPath,
      [
        "--import",
        "tsx",
        fileURLToPath(import.meta.url),
        "--child-size",
        String(size),
        "--queries",
        String(options.queries),
        ...(options.keepDir !== undefined ? ["--keep-dir", options.keepDir] : []),
      ],
      { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"], maxBuffer: 16 * 1024 * 1024 },
    );
    if (child.status !== 0) throw new Error(`benchmark child for ${size} entries failed with status ${child.status}`);
    results.push(SizeResultSchema.parse(JSON.parse(child.stdout)));
  }
  const environment = { node: process.version, platform: `${process.platform}-${process.arch}` };
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ environment, dimension: DIMENSION, results }, null, 2)}\n`);
  } else {
    process.stdout.write(`sqlite store, one namespace, ${DIMENSION}-d vectors, k = 25 (dense), 5 (lexical, filtered); hits for vocabulary = names; ${environment.node} ${environment.platform}\n`);
    process.stdout.write(`${formatTable(results)}\n`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
