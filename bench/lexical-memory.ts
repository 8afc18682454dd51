/**
 * Lexical index benchmark (a script, not a test): what a namespace's terms cost held in memory
 * (lexical-index.ts), and how fast they rank, at one size.
 *
 *   npm run bench:lexical-memory -- [--size 100000] [--queries 100] [--path file.db] [--fts5]
 *
 * The bench:speed memories (bench/synthetic.ts) are written to a store file with 4-d vectors (the terms
 * do not depend on them, and writing 1M 512-d vectors would take most of the run); `--path` keeps the
 * file, and a later run with the same path and size reuses it. The terms' bytes are the heap in use
 * plus array buffers after a full collection, read before and after buildLexicalIndex. Questions are
 * bench:speed's, each one lexicalSearch of k 25 (the lexical view's lexicalTopK), wall and CPU time;
 * `--fts5` times the same searches ranked from FTS5's matches (lexicalCacheEntries 0) too.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { z } from "zod";
import { parseOrThrow } from "../src/core/errors.js";
import { latencySummary, roundTo } from "../src/eval/metrics.js";
import { normalizeEntry } from "../src/memory/entry.js";
import type { EmbeddingSpec } from "../src/text/embedder.js";
import { openSqliteStore, type SqliteMemoryStore } from "../src/stores/sqlite/store.js";
import { SYNTHETIC_NOW, syntheticMemoryBatches, syntheticQuestions } from "./synthetic.js";
import { ownPeakRssMb } from "./peak-rss.js";

const NAMESPACE = "bench";
const BATCH = 10_000;
const TOP_K = 25;
const EMBEDDING: EmbeddingSpec = { model: "bench-lexical-only", dimension: 4 };

const ArgsSchema = z.object({
  size: z.number().int().min(10).max(2_000_000).describe("--size: entries in the one namespace"),
  queries: z.number().int().min(1).max(10_000).describe("--queries: timed lexical searches, one per question"),
  path: z.string().min(1).optional().describe("--path: the store file, kept and reused when it holds --size entries"),
  fts5: z.boolean().describe("--fts5: also time the searches ranked from FTS5's matches"),
});

function parse(argv: readonly string[]): z.infer<typeof ArgsSchema> {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    options: { size: { type: "string" }, queries: { type: "string" }, path: { type: "string" }, fts5: { type: "boolean" } },
  });
  return parseOrThrow(ArgsSchema, {
    size: Number(values.size ?? 100_000),
    queries: Number(values.queries ?? 100),
    path: values.path,
    fts5: values.fts5 === true,
  });
}

/** Heap in use plus array buffers after a full collection (needs --expose-gc). */
function heldBytes(): number {
  if (!globalThis.gc) throw new Error("run with node --expose-gc");
  globalThis.gc();
  globalThis.gc();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
}

async function ingest(store: SqliteMemoryStore, size: number): Promise<void> {
  const now = Date.parse(SYNTHETIC_NOW);
  for (const batch of syntheticMemoryBatches(size, BATCH)) {
    await store.upsert(
      NAMESPACE,
      batch.map((input, i) => ({ entry: normalizeEntry(NAMESPACE, input, { now }), vector: [1, (i % 7) / 7, 0.5, 0.25] })),
    );
  }
}

/** Wall and CPU ms of one lexicalSearch per question. */
async function searchTimes(store: SqliteMemoryStore, questions: readonly string[]) {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (const question of questions) {
    const started = performance.now();
    const usage = process.cpuUsage();
    await store.lexicalSearch(NAMESPACE, question, { k: TOP_K });
    const spent = process.cpuUsage(usage);
    cpu.push((spent.user + spent.system) / 1000);
    wall.push(performance.now() - started);
  }
  return { wall: latencySummary(wall), cpuMeanMs: roundTo(cpu.reduce((sum, value) => sum + value, 0) / cpu.length, 2) };
}

async function main(): Promise<void> {
  const args = parse(process.argv.slice(2));
  const directory = args.path ? undefined : mkdtempSync(join(tmpdir(), "recallgraph-lexical-"));
  const path = args.path ?? join(directory ?? "", "memory.db");
  const loadBefore = loadavg();
  try {
    const reused = existsSync(path);
    const store = await openSqliteStore({ path, embedding: EMBEDDING, vectorIndex: "exact" });
    const questions = syntheticQuestions(args.queries);
    try {
      const held = (await store.stats()).namespaces[NAMESPACE] ?? 0;
      if (held !== args.size) {
        if (reused && held !== 0) throw new Error(`${path} holds ${held} entries, not ${args.size}`);
        await ingest(store, args.size);
      }
      const before = heldBytes();
      const started = performance.now();
      if (!(await store.buildLexicalIndex(NAMESPACE))) throw new Error("the terms were not held: is --size beyond lexicalCacheEntries?");
      const buildMs = roundTo(performance.now() - started, 0);
      const after = heldBytes();
      const inMemory = await searchTimes(store, questions);
      const fromFts5 = args.fts5 ? await fts5Times(path, questions) : undefined;
      const result = {
        entries: args.size,
        termsBytes: after - before,
        bytesPerEntry: roundTo((after - before) / args.size, 1),
        buildMs,
        inMemory,
        ...(fromFts5 ? { fromFts5 } : {}),
        peakRssMb: ownPeakRssMb(),
        load: { before: loadBefore, after: loadavg() },
      };
      process.stdout.write(`${JSON.stringify(result)}\n`);
    } finally {
      await store.close();
    }
  } finally {
    if (directory) rmSync(directory, { recursive: true, force: true });
  }
}

async function fts5Times(path: string, questions: readonly string[]) {
  const store = await openSqliteStore({ path, embedding: EMBEDDING, vectorIndex: "exact", lexicalCacheEntries: 0 });
  try {
    return await searchTimes(store, questions);
  } finally {
    await store.close();
  }
}

await main();
