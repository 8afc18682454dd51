/**
 * The sqlite store's in-memory vector search (src/stores/sqlite/vector-search.ts): the exact SIMD copy
 * answers exactly what sqlite-vec answers, and the HNSW index finds nearly what exact search finds,
 * survives a restart without a rebuild, never returns what was deleted, recovers from a stale or
 * foreign index file (a crash's leftovers) and keeps namespaces apart. Speed is the benchmark's
 * (bench/vector-index.ts), never asserted here.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { closeSync, cpSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import Database from "better-sqlite3";
import * as sqliteVec from "sqlite-vec";
import { ValidationError } from "../../src/core/errors.js";
import { normalizeEntry, type MemoryInput } from "../../src/memory/entry.js";
import type { MemoryFilter, MemoryRecord, ScoredEntry } from "../../src/stores/port.js";
import { openStore, storeConfigFromEnv } from "../../src/stores/open-store.js";
import { HNSW_SCALAR_KINDS } from "../../src/stores/sqlite/hnsw-index.js";
import { indexFolder } from "../../src/stores/sqlite/store-file.js";
import { openSqliteStore, SqliteMemoryStore, type SqliteStoreOptions } from "../../src/stores/sqlite/store.js";
import { buildParameters, DEFAULT_HNSW_BUILD, searchWidth, VectorSearchOptionsSchema } from "../../src/stores/sqlite/vector-search.js";
import { vec0L2 } from "../../src/stores/sqlite/vectors.js";
import type { EmbeddingSpec } from "../../src/text/embedder.js";
import { seededRandom } from "../../bench/synthetic.js";

const tempDir = mkdtempSync(join(tmpdir(), "recallgraph-vector-index-"));
after(() => rmSync(tempDir, { recursive: true, force: true }));
let fileCounter = 0;
const freshFile = (label: string): string => join(tempDir, `${label}-${++fileCounter}.db`);

const NOW = Date.parse("2024-06-01T12:00:00Z");
const DIMENSION = 32;
const SPEC: EmbeddingSpec = { model: "vector-index-test", dimension: DIMENSION };
/** Small enough that a few thousand entries build an index in a moment; tests set their own minimum. */
const HNSW: Partial<SqliteStoreOptions> = { vectorIndex: "hnsw", hnswMinEntries: 200 };

function randomVector(random: () => number, dimension = DIMENSION): number[] {
  return Array.from({ length: dimension }, () => random() * 2 - 1);
}

function record(namespace: string, id: string, vector: number[], input: Partial<MemoryInput> = {}): MemoryRecord {
  return { entry: normalizeEntry(namespace, { id, text: `memory ${id}`, timestamp: NOW, ...input }, { now: NOW }), vector };
}

function randomRecords(namespace: string, count: number, seed: number, prefix = "e"): MemoryRecord[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, (_, i) => record(namespace, `${prefix}${i}`, randomVector(random), { persons: [i % 10 === 0 ? "Rare" : "Common"] }));
}

const ids = (hits: readonly ScoredEntry[]): string[] => hits.map((hit) => hit.entry.id);

async function open(path: string, options: Partial<SqliteStoreOptions> = {}): Promise<SqliteMemoryStore> {
  return openSqliteStore({ path, embedding: SPEC, clock: () => NOW, ...options });
}

/** The top 10 of `queries` random queries (from `seed`) by the approximate store and by the exact one: ids, and the hits themselves. */
async function topTens(
  approximate: SqliteMemoryStore,
  exact: SqliteMemoryStore,
  seed: number,
  queries: number,
): Promise<{ found: string[][]; truth: string[][]; hits: Array<{ found: ScoredEntry[]; truth: ScoredEntry[] }> }> {
  const random = seededRandom(seed);
  const hits: Array<{ found: ScoredEntry[]; truth: ScoredEntry[] }> = [];
  for (let q = 0; q < queries; q += 1) {
    const query = randomVector(random);
    hits.push({ found: await approximate.denseSearch("ns", query, { k: 10 }), truth: await exact.denseSearch("ns", query, { k: 10 }) });
  }
  return { found: hits.map((hit) => ids(hit.found)), truth: hits.map((hit) => ids(hit.truth)), hits };
}

/** Recall@k of `found` against `truth`, over all queries. */
function recall(found: readonly string[][], truth: readonly string[][]): number {
  let hits = 0;
  let total = 0;
  found.forEach((list, i) => {
    const expected = new Set(truth[i]);
    total += expected.size;
    hits += list.filter((id) => expected.has(id)).length;
  });
  return hits / total;
}

describe("exact search through usearch's kernel", () => {
  it("measures distances bit for bit as sqlite-vec does", () => {
    const db = new Database(":memory:");
    sqliteVec.load(db);
    try {
      const random = seededRandom(1);
      const distance = db.prepare<[Buffer, Buffer], number>("SELECT vec_distance_l2(?, ?)").pluck();
      for (let i = 0; i < 200; i += 1) {
        const a = Float32Array.from(randomVector(random, 512));
        const b = Float32Array.from(randomVector(random, 512));
        assert.equal(vec0L2(a, 0, b), distance.get(Buffer.from(a.buffer), Buffer.from(b.buffer)));
      }
    } finally {
      db.close();
    }
  });

  it("returns exactly what sqlite-vec returns: ids, scores and ties, after rewrites and deletes, with filters", async () => {
    const kernel = await open(":memory:");
    const scan = await open(":memory:", { vectorCacheMiB: 0 });
    try {
      const random = seededRandom(2);
      const records = randomRecords("ns", 600, 3);
      // Duplicated vectors tie exactly: both stores must order them alike, across vec0 chunks (64 rows each).
      const duplicate = randomVector(random);
      for (let i = 0; i < 150; i += 1) records.push(record("ns", `dup${i}`, duplicate, { persons: ["Common"] }));
      const rewritten = records.filter((_, i) => i % 7 === 0).map((r) => ({ ...r, vector: nudged(r.vector) }));
      const deleted = records.filter((_, i) => i % 11 === 0).map((r) => r.entry.id);
      for (const store of [kernel, scan]) {
        await store.upsert("ns", records);
        await store.denseSearch("ns", duplicate, { k: 5 });
        await store.upsert("ns", rewritten);
        await store.delete("ns", deleted);
      }
      const queries = [duplicate, ...Array.from({ length: 20 }, () => randomVector(random))];
      const filters: (MemoryFilter | undefined)[] = [undefined, { persons: ["rare"] }, { persons: ["common"] }];
      for (const query of queries) {
        for (const k of [1, 10, 25, 200]) {
          for (const filter of filters) {
            const options = filter ? { k, filter } : { k };
            const expected = await scan.denseSearch("ns", query, options);
            const actual = await kernel.denseSearch("ns", query, options);
            assert.deepEqual(
              actual.map((hit) => [hit.entry.id, hit.score]),
              expected.map((hit) => [hit.entry.id, hit.score]),
            );
          }
        }
      }
      assert.equal(kernel.vectorSearchCounters().copied, 1, "the kernel's copy was read once, then kept up to date");
      assert.equal(scan.vectorSearchCounters().copied, 0, "with no memory budget sqlite-vec answers");
    } finally {
      await kernel.close();
      await scan.close();
    }
  });

  it("answers filtered searches from the filter's matches alone, as sqlite-vec's widened scan does, ties included", async () => {
    const kernel = await open(":memory:");
    const scan = await open(":memory:", { vectorCacheMiB: 0 });
    try {
      const random = seededRandom(21);
      // A fifth of 3,000 entries match: more than the store measures one by one, few enough to scan on their own.
      const records = Array.from({ length: 3000 }, (_, i) => record("ns", `e${i}`, randomVector(random), { persons: [i % 5 === 0 ? "Fifth" : "Other"] }));
      const duplicate = randomVector(random);
      for (let i = 0; i < 40; i += 1) records.push(record("ns", `dup${i}`, duplicate, { persons: [i % 2 === 0 ? "Fifth" : "Twin"] }));
      for (const store of [kernel, scan]) {
        await store.upsert("ns", records);
        await store.delete("ns", ["e5", "e10", "dup0"]);
      }
      // "Twin": 20 identical vectors, few enough that the store measures them one by one.
      for (const person of ["Fifth", "Twin"]) {
        const filter: MemoryFilter = { persons: [person.toLowerCase()] };
        for (const query of [duplicate, ...Array.from({ length: 10 }, () => randomVector(random))]) {
          for (const k of [1, 10, 25]) {
            const expected = await scan.denseSearch("ns", query, { k, filter });
            const actual = await kernel.denseSearch("ns", query, { k, filter });
            assert.deepEqual(
              actual.map((hit) => [hit.entry.id, hit.score]),
              expected.map((hit) => [hit.entry.id, hit.score]),
            );
            assert.ok(actual.length > 0 && actual.every((hit) => hit.entry.persons.includes(person)));
          }
        }
      }
    } finally {
      await kernel.close();
      await scan.close();
    }
  });

  it("sees another connection's writes to the same file", async () => {
    const path = freshFile("two-writers");
    const reader = await open(path);
    const writer = await open(path, { vectorCacheMiB: 0 });
    try {
      await writer.upsert("ns", randomRecords("ns", 300, 4));
      const target = randomVector(seededRandom(5));
      assert.notEqual(ids(await reader.denseSearch("ns", target, { k: 1 }))[0], "late");
      await writer.upsert("ns", [record("ns", "late", target)]);
      assert.deepEqual(ids(await reader.denseSearch("ns", target, { k: 1 })), ["late"]);
      await writer.delete("ns", ["late"]);
      assert.ok(!ids(await reader.denseSearch("ns", target, { k: 10 })).includes("late"));
      assert.ok(reader.vectorSearchCounters().caughtUp >= 2, "caught up from the change log, not re-read");
      assert.equal(reader.vectorSearchCounters().copied, 1);
    } finally {
      await reader.close();
      await writer.close();
    }
  });
});

describe("HNSW search width", () => {
  it("looks as wide as it is told: as wide as the namespace finds nearly all of exact search's top 10, a width of 1 far less", async () => {
    const records = randomRecords("ns", 3000, 16);
    const exact = await open(":memory:");
    await exact.upsert("ns", records);
    const recallAtWidth = async (expansionSearch: number): Promise<number> => {
      const approximate = await open(":memory:", { ...HNSW, hnsw: { connectivity: 16, expansionAdd: 64, expansionSearch } });
      try {
        await approximate.upsert("ns", records);
        assert.equal(await approximate.buildVectorIndex("ns"), "built");
        const { found, truth } = await topTens(approximate, exact, 17, 50);
        assert.ok(found.every((list) => list.length === 10), "k hits whatever the width");
        return recall(found, truth);
      } finally {
        await approximate.close();
      }
    };
    try {
      // As wide as the namespace, a search reaches every node linked to the graph; a build on several
      // threads may leave one or two unlinked, so not always all of the top 10.
      const wide = await recallAtWidth(3000);
      assert.ok(wide >= 0.99, `as wide as the namespace: ${wide}`);
      const narrow = await recallAtWidth(1);
      assert.ok(narrow < wide - 0.05, `a width of 1 (the k asked for) found nearly as much: ${narrow} against ${wide}`);
    } finally {
      await exact.close();
    }
  });
});

/** A vector a little away from `vector`, so a rewrite moves it. */
function nudged(vector: number[]): number[] {
  return vector.map((value, i) => (i === 0 ? value + 0.5 : value));
}

describe("HNSW index", () => {
  for (const hnswScalarKind of HNSW_SCALAR_KINDS) {
    it(`finds at least 90% of exact search's top 10 on random vectors, best first (${hnswScalarKind})`, async () => {
      const records = randomRecords("ns", 3000, 6);
      const approximate = await open(":memory:", { ...HNSW, hnswScalarKind });
      const exact = await open(":memory:");
      try {
        await approximate.upsert("ns", records);
        await exact.upsert("ns", records);
        assert.equal(await approximate.buildVectorIndex("ns"), "built");
        const { found, truth, hits } = await topTens(approximate, exact, 7, 50);
        const measured = recall(found, truth);
        assert.ok(measured >= 0.9, `recall@10 ${measured}`);
        // Identical results would mean the index is not what answered.
        assert.equal(approximate.vectorSearchCounters().built, 1);
        for (const { found: list, truth: exactList } of hits) {
          const scores = list.map((hit) => hit.score);
          assert.deepEqual(scores, [...scores].sort((a, b) => b - a), "best first");
          // i8's candidates are re-ranked by the stored vectors: a hit both lists hold has one score.
          if (hnswScalarKind !== "i8") continue;
          const exactScore = new Map(exactList.map((hit) => [hit.entry.id, hit.score]));
          for (const hit of list) if (exactScore.has(hit.entry.id)) assert.equal(hit.score, exactScore.get(hit.entry.id));
        }
      } finally {
        await approximate.close();
        await exact.close();
      }
    });
  }

  it("is searched exactly below hnswMinEntries, and while it is being built", async () => {
    const store = await open(":memory:", { vectorIndex: "hnsw", hnswMinEntries: 500 });
    try {
      await store.upsert("ns", randomRecords("ns", 499, 8));
      assert.equal(await store.buildVectorIndex("ns"), "not-indexed");
      await store.denseSearch("ns", randomVector(seededRandom(9)), { k: 3 });
      assert.equal(store.vectorSearchCounters().copied, 1, "exact, through the kernel");
      await store.upsert("ns", randomRecords("ns", 2, 10, "x"));
      // The first search of a namespace now large enough starts a build and is answered exactly meanwhile.
      const query = randomVector(seededRandom(11));
      const first = await store.denseSearch("ns", query, { k: 5 });
      assert.equal(first.length, 5);
      assert.equal(await store.buildVectorIndex("ns"), "built");
      assert.equal(store.vectorSearchCounters().built, 1);
    } finally {
      await store.close();
    }
  });

  it("survives a restart: the saved index is loaded, not rebuilt, and answers the same", async () => {
    const path = freshFile("restart");
    const records = randomRecords("ns", 2000, 12);
    const random = seededRandom(13);
    const queries = Array.from({ length: 10 }, () => randomVector(random));
    let before: string[][];
    {
      const store = await open(path, HNSW);
      await store.upsert("ns", records);
      assert.equal(await store.buildVectorIndex("ns"), "built");
      before = await Promise.all(queries.map(async (query) => ids(await store.denseSearch("ns", query, { k: 10 }))));
      await store.close();
    }
    const files = readdirSync(indexFolder(path));
    assert.equal(files.filter((name) => name.endsWith(".usearch")).length, 1, files.join(", "));
    const indexFile = join(indexFolder(path), files.find((name) => name.endsWith(".usearch")) ?? "");
    const savedAt = statSync(indexFile).mtimeMs;
    const store = await open(path, HNSW);
    try {
      assert.equal(await store.buildVectorIndex("ns"), "loaded");
      const afterRestart = await Promise.all(queries.map(async (query) => ids(await store.denseSearch("ns", query, { k: 10 }))));
      assert.deepEqual(afterRestart, before);
      assert.deepEqual(store.vectorSearchCounters(), { loaded: 1, built: 0, saved: 0, copied: 0, caughtUp: 0, reranked: 0 });
    } finally {
      await store.close();
    }
    assert.equal(statSync(indexFile).mtimeMs, savedAt, "nothing changed, so nothing was saved again");
  });

  it("never returns deleted, cleared or expired entries, and finds rewritten ones where they moved", async () => {
    let now = NOW;
    const store = await open(freshFile("deletes"), { ...HNSW, clock: () => now });
    try {
      const records = randomRecords("ns", 1500, 14);
      await store.upsert("ns", records);
      await store.buildVectorIndex("ns");
      const probe = records[42]?.vector ?? [];
      assert.equal(ids(await store.denseSearch("ns", probe, { k: 1 }))[0], "e42");
      await store.delete("ns", ["e42"]);
      assert.ok(!ids(await store.denseSearch("ns", probe, { k: 50 })).includes("e42"));
      // A rewrite moves the entry: it is found at its new vector.
      const moved = randomVector(seededRandom(15));
      await store.upsert("ns", [record("ns", "e7", moved)]);
      assert.equal(ids(await store.denseSearch("ns", moved, { k: 1 }))[0], "e7");
      // Expired but not yet pruned: skipped; pruned: gone from the index too.
      await store.upsert("ns", [record("ns", "soon", probe, { expiresAt: NOW + 1000 })]);
      assert.equal(ids(await store.denseSearch("ns", probe, { k: 1 }))[0], "soon");
      now = NOW + 1000;
      assert.ok(!ids(await store.denseSearch("ns", probe, { k: 20 })).includes("soon"));
      assert.equal(await store.deleteExpired(), 1);
      assert.ok(!ids(await store.denseSearch("ns", probe, { k: 20 })).includes("soon"));
      assert.equal(store.vectorSearchCounters().built, 1, "every change was applied to the index, none rebuilt it");
      await store.clearNamespace("ns");
      assert.deepEqual(await store.denseSearch("ns", probe, { k: 10 }), []);
      await store.upsert("ns", [record("ns", "again", probe)]);
      assert.deepEqual(ids(await store.denseSearch("ns", probe, { k: 10 })), ["again"]);
    } finally {
      await store.close();
    }
  });

  for (const hnswScalarKind of ["f32", "i8"] as const) {
    it(`keeps filtered searches exact in their conditions: only matches, best first (${hnswScalarKind})`, async () => {
      const store = await open(":memory:", { ...HNSW, hnswScalarKind });
      const exact = await open(":memory:");
      try {
        const records = randomRecords("ns", 2000, 16);
        await store.upsert("ns", records);
        await exact.upsert("ns", records);
        await store.buildVectorIndex("ns");
        const query = randomVector(seededRandom(17));
        // Rare is 10% of the namespace: the store over-fetches from the index and keeps the matches.
        const rare = await store.denseSearch("ns", query, { k: 10, filter: { persons: ["rare"] } });
        assert.equal(rare.length, 10);
        assert.ok(rare.every((hit) => hit.entry.persons.includes("Rare")));
        assert.ok(rare.every((hit, i) => i === 0 || (rare[i - 1]?.score ?? 1) >= hit.score));
        const truthHits = await exact.denseSearch("ns", query, { k: 10, filter: { persons: ["rare"] } });
        assert.ok(recall([ids(rare)], [ids(truthHits)]) >= 0.8, `${ids(rare)} vs ${ids(truthHits)}`);
        if (hnswScalarKind === "i8") {
          // The filter is asked before the re-rank: no more vectors read back than an unfiltered search of k reads.
          assert.ok(store.vectorSearchCounters().reranked <= 10 * 4, `read back ${store.vectorSearchCounters().reranked}`);
          const exactScore = new Map(truthHits.map((hit) => [hit.entry.id, hit.score]));
          for (const hit of rare) if (exactScore.has(hit.entry.id)) assert.equal(hit.score, exactScore.get(hit.entry.id));
        }
        // A filter matching few entries measures them one by one: exact.
        await store.upsert("ns", [record("ns", "only", randomVector(seededRandom(18)), { persons: ["Unique"] })]);
        assert.deepEqual(ids(await store.denseSearch("ns", query, { k: 5, filter: { persons: ["unique"] } })), ["only"]);
      } finally {
        await store.close();
        await exact.close();
      }
    });
  }

  it("measures a filter's few matches exactly, a time window's and a rare person's, rewritten ones included", async () => {
    const store = await open(":memory:", HNSW);
    const exact = await open(":memory:");
    try {
      const random = seededRandom(19);
      // Entries written in time order: a window's matches fill neighbouring chunks; a rare person's are spread.
      const records = Array.from({ length: 3000 }, (_, i) =>
        record("ns", `t${i}`, randomVector(random), { timestamp: NOW - (3000 - i) * 60_000, persons: [i % 97 === 0 ? "Rare" : "Common"] }),
      );
      const moved = records.filter((_, i) => i >= 2800 && i % 9 === 0).map((r) => ({ ...r, vector: nudged(r.vector) }));
      for (const target of [store, exact]) {
        await target.upsert("ns", records);
        // Rewritten after: their vectors move to later chunks than their neighbours'.
        await target.upsert("ns", moved);
      }
      await store.buildVectorIndex("ns");
      const filters: MemoryFilter[] = [{ timeRange: { startMs: NOW - 150 * 60_000, endMs: NOW } }, { persons: ["rare"] }];
      for (const filter of filters) {
        for (const seed of [21, 22, 23]) {
          const query = randomVector(seededRandom(seed));
          const scored = (hits: ScoredEntry[]) => hits.map((hit) => [hit.entry.id, hit.score]);
          const expected = scored(await exact.denseSearch("ns", query, { k: 7, filter }));
          assert.deepEqual(scored(await store.denseSearch("ns", query, { k: 7, filter })), expected, JSON.stringify(filter));
          assert.deepEqual(scored(await store.filteredSearch("ns", filter, { k: 7, vector: query })), expected, JSON.stringify(filter));
        }
      }
    } finally {
      await store.close();
      await exact.close();
    }
  });

  it("keeps namespaces apart: one index each, searched and changed alone", async () => {
    const path = freshFile("isolation");
    const store = await open(path, HNSW);
    try {
      // The same vectors in both namespaces, under different ids.
      await store.upsert("a", randomRecords("a", 800, 19, "a"));
      await store.upsert("b", randomRecords("b", 800, 19, "b"));
      assert.equal(await store.buildVectorIndex("a"), "built");
      assert.equal(await store.buildVectorIndex("b"), "built");
      const query = randomRecords("a", 1, 19)[0]?.vector ?? [];
      assert.ok(ids(await store.denseSearch("a", query, { k: 20 })).every((id) => id.startsWith("a")));
      assert.ok(ids(await store.denseSearch("b", query, { k: 20 })).every((id) => id.startsWith("b")));
      await store.clearNamespace("a");
      assert.deepEqual(await store.denseSearch("a", query, { k: 5 }), []);
      assert.equal(ids(await store.denseSearch("b", query, { k: 1 }))[0], "b0");
      assert.equal(readdirSync(indexFolder(path)).filter((name) => name.endsWith(".json")).length, 2, "a manifest per namespace");
    } finally {
      await store.close();
    }
  });
});

describe("HNSW index of a quantised scalar kind", () => {
  const I8: Partial<SqliteStoreOptions> = { ...HNSW, hnswScalarKind: "i8" };
  const manifestOf = (path: string): { scalarKind?: string } => {
    const name = readdirSync(indexFolder(path)).find((file) => file.endsWith(".json")) ?? "";
    return JSON.parse(readFileSync(join(indexFolder(path), name), "utf8")) as { scalarKind?: string };
  };

  it("records its kind in the manifest and is loaded, not rebuilt, when the store reopens with the same kind", async () => {
    const path = freshFile("i8-restart");
    const records = randomRecords("ns", 1500, 42);
    const query = randomVector(seededRandom(43));
    let before: string[];
    {
      const store = await open(path, I8);
      await store.upsert("ns", records);
      assert.equal(await store.buildVectorIndex("ns"), "built");
      before = ids(await store.denseSearch("ns", query, { k: 10 }));
      await store.close();
    }
    assert.equal(manifestOf(path).scalarKind, "i8");
    const indexFile = join(indexFolder(path), readdirSync(indexFolder(path)).find((name) => name.endsWith(".usearch")) ?? "");
    const savedAt = statSync(indexFile).mtimeMs;
    const store = await open(path, I8);
    try {
      assert.equal(await store.buildVectorIndex("ns"), "loaded");
      assert.deepEqual(ids(await store.denseSearch("ns", query, { k: 10 })), before);
      assert.equal(store.vectorSearchCounters().built, 0);
    } finally {
      await store.close();
    }
    assert.equal(statSync(indexFile).mtimeMs, savedAt);
  });

  it("never loads an index saved with another kind: the store rebuilds it in its own kind", async () => {
    const path = freshFile("kind-change");
    const records = randomRecords("ns", 1200, 44);
    {
      const store = await open(path, HNSW);
      await store.upsert("ns", records);
      assert.equal(await store.buildVectorIndex("ns"), "built");
      await store.close();
    }
    assert.equal(manifestOf(path).scalarKind, "f32");
    for (const [options, kind] of [
      [I8, "i8"],
      [HNSW, "f32"],
    ] as const) {
      // A search as wide as the namespace, so that what is checked is the rebuilt index's vectors. Even so
      // a graph built on several threads strands a node now and then (usearch issue 735: about one in a thousand of
      // these random vectors, none when built on one thread), so most of twenty, not all, must be found.
      const store = await open(path, { ...options, hnsw: { ...DEFAULT_HNSW_BUILD, expansionSearch: records.length } });
      try {
        assert.equal(await store.buildVectorIndex("ns"), "built", `${kind} over the other kind's file`);
        assert.deepEqual(store.vectorSearchCounters().loaded, 0);
        let found = 0;
        for (let i = 0; i < 20; i++) if (ids(await store.denseSearch("ns", records[i]?.vector ?? [], { k: 1 }))[0] === `e${i}`) found++;
        assert.ok(found >= 18, `${kind}: ${found} of 20 stored vectors found themselves first`);
      } finally {
        await store.close();
      }
      assert.equal(manifestOf(path).scalarKind, kind);
    }
  });

  it("takes a manifest that names no kind for an f32 index's", async () => {
    const path = freshFile("kind-unnamed");
    {
      const store = await open(path, HNSW);
      await store.upsert("ns", randomRecords("ns", 1200, 45));
      assert.equal(await store.buildVectorIndex("ns"), "built");
      await store.close();
    }
    const name = readdirSync(indexFolder(path)).find((file) => file.endsWith(".json")) ?? "";
    const { scalarKind: _kind, ...older } = manifestOf(path);
    writeFileSync(join(indexFolder(path), name), JSON.stringify(older));
    const store = await open(path, HNSW);
    try {
      assert.equal(await store.buildVectorIndex("ns"), "loaded");
    } finally {
      await store.close();
    }
  });
});

describe("HNSW index of a read-only store", () => {
  it("loads the saved index and keeps it current in memory, never building or saving one", async () => {
    const path = freshFile("read-only");
    const writer = await open(path, HNSW);
    await writer.upsert("ns", randomRecords("ns", 1000, 24));
    assert.equal(await writer.buildVectorIndex("ns"), "built");
    await writer.upsert("other", randomRecords("other", 1000, 25));
    const reader = await open(path, { ...HNSW, readOnly: true });
    try {
      assert.equal(await reader.buildVectorIndex("ns"), "loaded");
      const late = randomVector(seededRandom(26));
      await writer.upsert("ns", [record("ns", "late", late)]);
      assert.deepEqual(ids(await reader.denseSearch("ns", late, { k: 1 })), ["late"]);
      // No saved index for this one: searched exactly, nothing built.
      assert.equal(await reader.buildVectorIndex("other"), "not-indexed");
      assert.equal(ids(await reader.denseSearch("other", randomRecords("other", 1, 25)[0]?.vector ?? [], { k: 1 }))[0], "e0");
      assert.deepEqual(reader.vectorSearchCounters(), { loaded: 1, built: 0, saved: 0, copied: 1, caughtUp: 1, reranked: 0 });
    } finally {
      await reader.close();
      await writer.close();
    }
  });
});

describe("HNSW index after a crash", () => {
  /** A store file with an indexed namespace, closed (index saved), and a copy of its index folder as it was then. */
  async function indexedStore(label: string): Promise<{ path: string; records: MemoryRecord[]; snapshot: string }> {
    const path = freshFile(label);
    const records = randomRecords("ns", 1200, 20);
    const store = await open(path, HNSW);
    await store.upsert("ns", records);
    assert.equal(await store.buildVectorIndex("ns"), "built");
    await store.close();
    const snapshot = `${path}.snapshot`;
    cpSync(indexFolder(path), snapshot, { recursive: true });
    return { path, records, snapshot };
  }

  function restore(snapshot: string, path: string): void {
    rmSync(indexFolder(path), { recursive: true, force: true });
    cpSync(snapshot, indexFolder(path), { recursive: true });
  }

  it("catches a stale index up from the change log: what the store wrote after its save is there, what it deleted is not", async () => {
    const { path, records, snapshot } = await indexedStore("stale");
    const fresh = randomVector(seededRandom(21));
    {
      const store = await open(path, HNSW);
      await store.delete("ns", ["e1", "e2", "e3"]);
      await store.upsert("ns", [record("ns", "added", fresh)]);
      await store.close();
    }
    // The index files as a crash before the last save would have left them.
    restore(snapshot, path);
    const store = await open(path, HNSW);
    try {
      assert.equal(await store.buildVectorIndex("ns"), "loaded");
      assert.equal(ids(await store.denseSearch("ns", fresh, { k: 1 }))[0], "added");
      for (const id of ["e1", "e2", "e3"]) {
        const vector = records[Number(id.slice(1))]?.vector ?? [];
        assert.ok(!ids(await store.denseSearch("ns", vector, { k: 20 })).includes(id), `${id} was deleted`);
      }
      assert.equal(ids(await store.denseSearch("ns", records[4]?.vector ?? [], { k: 1 }))[0], "e4");
      const counters = store.vectorSearchCounters();
      assert.equal(counters.built, 0);
      assert.equal(counters.caughtUp, 1);
    } finally {
      await store.close();
    }
  });

  /** The store rebuilds the namespace's index instead of loading its file, and answers from it. */
  async function assertRebuiltAndRight(path: string, records: readonly MemoryRecord[]): Promise<void> {
    const store = await open(path, HNSW);
    try {
      assert.equal(await store.buildVectorIndex("ns"), "built");
      // An approximate index need not rank the stored vector first (one CI run gave e593 before e9): a
      // rebuilt index finds it among its first ten.
      const found = ids(await store.denseSearch("ns", records[9]?.vector ?? [], { k: 10 }));
      assert.ok(found.includes("e9"), found.join(", "));
    } finally {
      await store.close();
    }
  }

  it("rebuilds when the index file is unreadable, or belongs to another store file", async () => {
    const { path, records, snapshot } = await indexedStore("corrupt");
    const indexFile = readdirSync(indexFolder(path)).find((name) => name.endsWith(".usearch")) ?? "";
    truncateSync(join(indexFolder(path), indexFile), 100);
    await assertRebuiltAndRight(path, records);
    // Another store at another path, given this store's index files: its own id does not match theirs.
    const other = freshFile("foreign");
    const otherStore = await open(other, HNSW);
    try {
      await otherStore.upsert("ns", randomRecords("ns", 1200, 22));
      restore(snapshot, other);
      assert.equal(await otherStore.buildVectorIndex("ns"), "built");
      const query = randomRecords("ns", 1, 22)[0]?.vector ?? [];
      assert.equal(ids(await otherStore.denseSearch("ns", query, { k: 1 }))[0], "e0");
    } finally {
      await otherStore.close();
    }
  });

  it("never hands usearch a saved index whose bytes changed (same length, damaged in place): it rebuilds", async () => {
    const { path, records } = await indexedStore("damaged");
    const indexFile = join(indexFolder(path), readdirSync(indexFolder(path)).find((name) => name.endsWith(".usearch")) ?? "");
    const length = statSync(indexFile).size;
    const descriptor = openSync(indexFile, "r+");
    try {
      // Garbage over the first kilobyte (the header and its sizes) and one in the middle of the graph.
      for (const at of [0, Math.floor(length / 2)]) writeSync(descriptor, Buffer.alloc(1024, 0xa5), 0, 1024, at);
    } finally {
      closeSync(descriptor);
    }
    assert.equal(statSync(indexFile).size, length);
    await assertRebuiltAndRight(path, records);
  });

  it("answers correctly after a writer saving its index is killed at random moments", { timeout: 120_000 }, async () => {
    const path = freshFile("killed");
    for (let kill = 0; kill < 3; kill += 1) await runAndKill(path, 30 + kill, 150 + Math.floor(Math.random() * 400));
    const store = await open(path, HNSW);
    const exact = await open(path);
    try {
      await store.buildVectorIndex("ns");
      const { found, truth } = await topTens(store, exact, 23, 20);
      const live = new Set((await exact.list("ns", { limit: 1000 })).entries.map((entry) => entry.id));
      assert.ok(found.flat().every((id) => live.has(id)), "nothing deleted comes back");
      assert.ok(recall(found, truth) >= 0.9, `recall@10 ${recall(found, truth)}`);
    } finally {
      await store.close();
      await exact.close();
    }
    assert.ok(existsSync(indexFolder(path)));
  });
});

/**
 * The killed writer: opens the store with an HNSW index, then forever replaces a batch of entries,
 * deletes a few and closes (which saves the index) and opens again, printing "cycle" after each.
 * Its vectors come from the seed it is given (the same generator as the tests'), so only the moment
 * of the kill is left to chance.
 */
const WRITER = `
  const { openSqliteStore } = await import(${JSON.stringify(new URL("../../src/stores/sqlite/store.ts", import.meta.url).pathname)});
  const { normalizeEntry } = await import(${JSON.stringify(new URL("../../src/memory/entry.ts", import.meta.url).pathname)});
  const { seededRandom } = await import(${JSON.stringify(new URL("../../bench/synthetic.ts", import.meta.url).pathname)});
  const path = process.argv[1];
  const options = { path, embedding: ${JSON.stringify(SPEC)}, vectorIndex: "hnsw", hnswMinEntries: 200 };
  const uniform = seededRandom(Number(process.argv[2]));
  const random = () => uniform() * 2 - 1;
  for (let cycle = 0; ; cycle += 1) {
    const store = await openSqliteStore(options);
    const records = Array.from({ length: 300 }, (_, i) => ({
      entry: normalizeEntry("ns", { id: "w" + ((cycle * 97 + i) % 900), text: "written", timestamp: 0 }, { now: 0 }),
      vector: Array.from({ length: ${DIMENSION} }, random),
    }));
    await store.upsert("ns", records);
    await store.delete("ns", Array.from({ length: 20 }, (_, i) => "w" + ((cycle * 13 + i * 7) % 900)));
    await store.buildVectorIndex("ns");
    await store.close();
    process.stdout.write("cycle " + cycle + "\\n");
  }
`;

function runAndKill(path: string, seed: number, afterMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", WRITER, path, String(seed)], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    let cycles = 0;
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.on("data", (chunk: Buffer) => {
      cycles += (chunk.toString().match(/cycle/g) ?? []).length;
      // Killed at a random moment of a later cycle: mid-write, mid-build or mid-save.
      if (cycles === 1) setTimeout(() => child.kill("SIGKILL"), afterMs);
    });
    child.on("exit", (code, signal) => {
      if (signal === "SIGKILL") resolve();
      else reject(new Error(`the writer exited on its own (code ${code}): ${stderr}`));
    });
  });
}

describe("vector index configuration", () => {
  it("refuses an unknown index kind, naming the field", async () => {
    await assert.rejects(
      openSqliteStore({ path: ":memory:", embedding: SPEC, vectorIndex: "ivf" as "hnsw" }),
      (error: unknown) => error instanceof ValidationError && error.field === "sqlite.vectorIndex",
    );
    await assert.rejects(
      openSqliteStore({ path: ":memory:", embedding: SPEC, hnsw: { connectivity: 1, expansionAdd: 64, expansionSearch: 64 } }),
      (error: unknown) => error instanceof ValidationError && error.field === "sqlite.hnsw.connectivity",
    );
    await assert.rejects(
      openSqliteStore({ path: ":memory:", embedding: SPEC, hnswScalarKind: "b1" as "i8" }),
      (error: unknown) => error instanceof ValidationError && error.field === "sqlite.hnswScalarKind",
    );
  });

  it("searches wider as a namespace grows, an i8 index wider still, and never overrides a width given", () => {
    const f32 = VectorSearchOptionsSchema.parse({});
    const i8 = VectorSearchOptionsSchema.parse({ hnswScalarKind: "i8" });
    assert.equal(searchWidth(f32, 100_000), 256);
    assert.equal(searchWidth(f32, 1_000_000), 2 * searchWidth(f32, 100_000), "doubles with each tenfold growth");
    assert.equal(searchWidth(f32, 10_000), searchWidth(f32, 100_000) / 2);
    assert.equal(searchWidth(f32, 10), searchWidth(f32, 1), "a floor for small namespaces");
    assert.ok(searchWidth(i8, 100_000) > searchWidth(f32, 100_000));
    assert.deepEqual(buildParameters(i8), buildParameters(f32), "the search widens; the graph is built alike");
    const given = { connectivity: 8, expansionAdd: 32, expansionSearch: 100 };
    const configured = VectorSearchOptionsSchema.parse({ hnswScalarKind: "i8", hnsw: given });
    assert.deepEqual(buildParameters(configured), { connectivity: 8, expansionAdd: 32 });
    for (const entries of [1, 100_000, 10_000_000]) assert.equal(searchWidth(configured, entries), 100);
  });

  it("passes the store configuration's index settings to the sqlite store", async () => {
    const path = freshFile("configured");
    const store = await openStore({ kind: "sqlite", path, vectorIndex: "hnsw", hnswMinEntries: 300, hnswScalarKind: "f16" }, SPEC);
    try {
      await store.upsert("ns", randomRecords("ns", 299, 27));
      assert.ok(store instanceof SqliteMemoryStore);
      assert.equal(await store.buildVectorIndex("ns"), "not-indexed");
      await store.upsert("ns", randomRecords("ns", 1, 28, "x"));
      assert.equal(await store.buildVectorIndex("ns"), "built");
    } finally {
      await store.close();
    }
    const manifest = readdirSync(indexFolder(path)).find((file) => file.endsWith(".json")) ?? "";
    assert.equal((JSON.parse(readFileSync(join(indexFolder(path), manifest), "utf8")) as { scalarKind?: string }).scalarKind, "f16");
  });

  it("reads the index kind and threshold from the environment", () => {
    assert.deepEqual(storeConfigFromEnv({ RECALLGRAPH_DB: ":memory:", RECALLGRAPH_VECTOR_INDEX: "HNSW", RECALLGRAPH_HNSW_MIN_ENTRIES: "1000" }), {
      kind: "sqlite",
      path: ":memory:",
      vectorIndex: "hnsw",
      hnswMinEntries: 1000,
    });
    assert.deepEqual(storeConfigFromEnv({ RECALLGRAPH_DB: ":memory:", RECALLGRAPH_HNSW_SCALAR_KIND: "I8" }), { kind: "sqlite", path: ":memory:", hnswScalarKind: "i8" });
    assert.deepEqual(storeConfigFromEnv({ RECALLGRAPH_DB: ":memory:" }), { kind: "sqlite", path: ":memory:" });
    assert.throws(
      () => storeConfigFromEnv({ RECALLGRAPH_HNSW_SCALAR_KIND: "b1" }),
      (error: unknown) => error instanceof ValidationError && error.field === "RECALLGRAPH_HNSW_SCALAR_KIND",
    );
    assert.throws(
      () => storeConfigFromEnv({ RECALLGRAPH_VECTOR_INDEX: "flat" }),
      (error: unknown) => error instanceof ValidationError && error.field === "RECALLGRAPH_VECTOR_INDEX",
    );
    assert.throws(
      () => storeConfigFromEnv({ RECALLGRAPH_HNSW_MIN_ENTRIES: "0" }),
      (error: unknown) => error instanceof ValidationError && error.field === "RECALLGRAPH_HNSW_MIN_ENTRIES",
    );
  });
});
