/**
 * The speed benchmark's LanceDB peer (`npm run bench:speed -- --peers lancedb`): LanceDB's hybrid query
 * on the same memories, question texts and vectors as recallgraph's run (bench/synthetic.ts, its seeds,
 * the hashing embedder at 512-d), in a child process of its own:
 * - ingest: Table.add in batches, the vectors computed before each batch is timed;
 * - a full-text index on the text (stemmed, English stop words removed, as recallgraph's tokenizer does);
 * - the hybrid query: full-text search + cosine vector search fused by LanceDB's RRF reranker (k = 60,
 *   recallgraph's), top 10, first with the vector part exact (bypassVectorIndex), then through its
 *   IVF_HNSW_SQ index built with LanceDB's defaults (what a user gets who asks for that index);
 * - the indexed vector query's recall@10 against LanceDB's exact one, both scored by the exact cosine
 *   of each returned id, as recallgraph's HNSW is measured (bench/recall.ts);
 * - the indexed hybrid query again at the recall recallgraph's index is held to: LanceDB's default HNSW
 *   search looks at 1.5 x limit candidates and quantised distances, so its recall is well below that
 *   target; a user who needs it re-ranks more candidates on full vectors (refineFactor), and the
 *   smallest factor of REFINE_FACTORS that reaches RECALL_TARGET is timed.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createRequire } from "node:module";
import type { Table, VectorQuery } from "@lancedb/lancedb";
import { z } from "zod";
import { latencySummary, roundTo } from "../src/eval/metrics.js";
import { hashEmbed } from "../src/text/embedders/hash-features.js";
import { HASH_DEFAULT_DIMENSION } from "../src/text/embedders/hashing.js";
import { ownPeakRssMb } from "./peak-rss.js";
import { recallAgainstExact, type RankedHit } from "./recall.js";
import type { LancedbSide } from "./speed-results.js";
import { syntheticMemoryBatches, syntheticQuestions } from "./synthetic.js";

const BATCH = 5000;
const TOP_K = 10;
const RRF_K = 60;
/** The semantic recall@10 the speed targets hold recallgraph's HNSW index to, at every size. */
const RECALL_TARGET = 0.95;
/** refineFactor values tried in order, each doubling or so the candidates re-ranked on full vectors. */
const REFINE_FACTORS = [2, 5, 10, 20] as const;
const INDEX_NOTE = "IVF_HNSW_SQ on the vector column, cosine, LanceDB's defaults (partitions, m 20, efConstruction 300), queried at its default ef";

type LancedbModule = typeof import("@lancedb/lancedb");

/** The package, or why its native binary cannot be loaded here (an optional dependency of its own). */
export async function loadLancedb(): Promise<{ lancedb: LancedbModule } | { missing: string }> {
  // Read when its native module loads: otherwise every query logs a deprecation warning about the
  // columns a hybrid query selects, which says nothing about speed.
  process.env.LANCEDB_LOG ??= "error";
  try {
    return { lancedb: await import("@lancedb/lancedb") };
  } catch (error) {
    return { missing: `@lancedb/lancedb cannot be loaded here (${error instanceof Error ? error.message.split("\n")[0] : String(error)})` };
  }
}

/** The installed version, from the package's own manifest (which its exports do not expose): the folder above its entry point that holds it. */
function lancedbVersion(): string {
  let folder = dirname(createRequire(import.meta.url).resolve("@lancedb/lancedb"));
  while (folder !== dirname(folder)) {
    const manifest = join(folder, "package.json");
    if (existsSync(manifest)) {
      const parsed = z.object({ name: z.string(), version: z.string() }).safeParse(JSON.parse(readFileSync(manifest, "utf8")));
      if (parsed.success && parsed.data.name === "@lancedb/lancedb") return parsed.data.version;
    }
    folder = dirname(folder);
  }
  return "unknown";
}

const idOf = (row: unknown): string => {
  if (typeof row === "object" && row !== null && "id" in row && typeof row.id === "string") return row.id;
  throw new Error(`LanceDB returned a row without a string id: ${JSON.stringify(row)}`);
};

/** Wall time of each call and the mean CPU time (LanceDB's threads included). */
async function timeQueries(count: number, warmup: number, call: (i: number) => Promise<unknown>) {
  const wall: number[] = [];
  let cpu = 0;
  for (let i = 0; i < count + warmup; i += 1) {
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    await call(i);
    if (i < warmup) continue;
    wall.push(performance.now() - started);
    const used = process.cpuUsage(cpuBefore);
    cpu += (used.user + used.system) / 1000;
  }
  return { ...latencySummary(wall), cpuMean: roundTo(cpu / count, 3) };
}

/** Writes the memories with their hashing vectors in batches; returns the ms spent inside Table.add. */
async function ingest(lancedb: LancedbModule, directory: string, size: number): Promise<{ table: Table; addMs: number }> {
  const { Field, FixedSizeList, Float32, Schema, Utf8 } = await import("apache-arrow");
  const schema = new Schema([
    new Field("id", new Utf8(), false),
    new Field("text", new Utf8(), false),
    new Field("vector", new FixedSizeList(HASH_DEFAULT_DIMENSION, new Field("item", new Float32(), true)), false),
  ]);
  const db = await lancedb.connect(directory);
  const table = await db.createEmptyTable("memories", schema);
  let addMs = 0;
  for (const batch of syntheticMemoryBatches(size, BATCH)) {
    const rows = batch.map((memory) => ({
      id: memory.id ?? "",
      text: memory.text,
      vector: Float32Array.from(hashEmbed(memory.text, HASH_DEFAULT_DIMENSION)),
    }));
    const started = performance.now();
    await table.add(rows);
    addMs += performance.now() - started;
  }
  return { table, addMs };
}

/** The exact cosine of each returned id to the query (LanceDB's indexed distances are quantised estimates). */
function exactlyScored(query: readonly number[], ids: readonly string[], vectorOf: (id: string) => readonly number[]): RankedHit[] {
  return ids.map((id) => {
    const vector = vectorOf(id);
    let dot = 0;
    for (let i = 0; i < query.length; i += 1) dot += (query[i] ?? 0) * (vector[i] ?? 0);
    return { id, score: dot };
  });
}

/**
 * The vectors of the memories with these ids, the memories generated again a batch at a time: only
 * the ids' vectors are kept, never the whole data set (a million memories are 720 MB of objects).
 */
function vectorsOfIds(size: number, wanted: ReadonlySet<string>): Map<string, number[]> {
  const vectors = new Map<string, number[]>();
  for (const batch of syntheticMemoryBatches(size, BATCH)) {
    for (const memory of batch) if (memory.id !== undefined && wanted.has(memory.id)) vectors.set(memory.id, hashEmbed(memory.text, HASH_DEFAULT_DIMENSION));
  }
  return vectors;
}

/** How a vector query searches: exactly, through the index, or through the index refined on full vectors. */
type VectorPath = "exact" | "indexed" | { refineFactor: number };

/**
 * The recall@10 of each indexed path against the exact one, over the timed questions. The ids of every
 * path are gathered first, so that the memories are generated again once for all of them.
 */
async function vectorRecalls(
  size: number,
  queries: number,
  warmup: number,
  vectors: readonly (readonly number[])[],
  paths: readonly Exclude<VectorPath, "exact">[],
  vectorIds: (i: number, path: VectorPath) => Promise<string[]>,
): Promise<Array<LancedbSide["vectorRecallAt10"]>> {
  const timed = Array.from({ length: queries }, (_, q) => warmup + q);
  const idsOf = async (path: VectorPath) => {
    const answers: string[][] = [];
    for (const i of timed) answers.push(await vectorIds(i, path));
    return answers;
  };
  const exact = await idsOf("exact");
  const found: string[][][] = [];
  for (const path of paths) found.push(await idsOf(path));
  const byId = vectorsOfIds(size, new Set([...exact, ...found.flat()].flat()));
  const vectorOf = (id: string) => {
    const vector = byId.get(id);
    if (!vector) throw new Error(`LanceDB returned id ${id}, which is no synthetic memory's`);
    return vector;
  };
  const scored = (answers: readonly string[][]) => answers.map((ids, q) => exactlyScored(vectors[timed[q] ?? 0] ?? [], ids, vectorOf));
  const truth = scored(exact);
  return found.map((answers) => {
    const recall = recallAgainstExact(scored(answers), truth);
    return { tieAware: roundTo(recall.tieAware, 4), byId: roundTo(recall.byId, 4) };
  });
}

/** LanceDB's side of one size: see the module comment. */
export async function lancedbSide(size: number, queries: number, warmup: number): Promise<LancedbSide> {
  const loaded = await loadLancedb();
  if ("missing" in loaded) throw new Error(loaded.missing);
  const { lancedb } = loaded;
  const load = { before: loadavg() };
  const directory = mkdtempSync(join(tmpdir(), "recallgraph-lancedb-"));
  try {
    const { table, addMs } = await ingest(lancedb, directory, size);
    const ftsStarted = performance.now();
    await table.createIndex("text", { config: lancedb.Index.fts({ stem: true, removeStopWords: true, language: "English" }) });
    const ftsBuildMs = performance.now() - ftsStarted;

    const questions = syntheticQuestions(queries + warmup);
    const vectors = questions.map((question) => hashEmbed(question, HASH_DEFAULT_DIMENSION));
    const rrf = await lancedb.rerankers.RRFReranker.create(RRF_K);
    const along = (query: VectorQuery, path: VectorPath) =>
      path === "exact" ? query.bypassVectorIndex() : path === "indexed" ? query : query.refineFactor(path.refineFactor);
    const hybrid = (i: number, path: VectorPath) => {
      const query = table
        .query()
        .fullTextSearch(questions[i] ?? "")
        .nearestTo(Float32Array.from(vectors[i] ?? []))
        .distanceType("cosine");
      return along(query, path).rerank(rrf).select(["id"]).limit(TOP_K).toArray();
    };
    const vectorIds = async (i: number, path: VectorPath): Promise<string[]> => {
      const query = table.query().nearestTo(Float32Array.from(vectors[i] ?? [])).distanceType("cosine");
      const rows: unknown[] = await along(query, path).select(["id", "_distance"]).limit(TOP_K).toArray();
      return rows.map(idOf);
    };

    const exactMs = await timeQueries(queries, warmup, (i) => hybrid(i, "exact"));
    const indexStarted = performance.now();
    await table.createIndex("vector", { config: lancedb.Index.hnswSq({ distanceType: "cosine" }) });
    const vectorIndexBuildMs = performance.now() - indexStarted;
    const indexedMs = await timeQueries(queries, warmup, (i) => hybrid(i, "indexed"));

    // Read before the recall pass, which generates the memories again (a batch at a time) to score the ids found.
    const peakRssMb = ownPeakRssMb();
    const refinements = REFINE_FACTORS.map((refineFactor) => ({ refineFactor }));
    const [recall, ...refinedRecalls] = await vectorRecalls(size, queries, warmup, vectors, ["indexed", ...refinements], vectorIds);
    const ladder = refinements.flatMap((refinement, index) => {
      const vectorRecallAt10 = refinedRecalls[index];
      return vectorRecallAt10 ? [{ ...refinement, vectorRecallAt10 }] : [];
    });
    const refined = ladder.find((step) => step.vectorRecallAt10.tieAware >= RECALL_TARGET) ?? ladder.at(-1);
    if (!recall || !refined || ladder.length < refinements.length) throw new Error("LanceDB: the recall pass answered fewer paths than it was given");
    const refinedMs = await timeQueries(queries, warmup, (i) => hybrid(i, refined));
    return {
      side: "lancedb",
      version: lancedbVersion(),
      entries: size,
      ingestPerSec: Math.round(size / (addMs / 1000)),
      ftsBuildMs: roundTo(ftsBuildMs, 1),
      vectorIndex: INDEX_NOTE,
      vectorIndexBuildMs: roundTo(vectorIndexBuildMs, 1),
      hybridMs: { exact: exactMs, indexed: indexedMs },
      vectorRecallAt10: recall,
      refined: { ...refined, hybridMs: refinedMs },
      peakRssMb,
      load: { ...load, after: loadavg() },
    };
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
