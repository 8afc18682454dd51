/**
 * The sqlite store's in-memory BM25 (src/stores/sqlite/lexical-index.ts) against FTS5's own answers:
 * the same file opened a second time with `lexicalCacheEntries: 0` searches with FTS5 alone, and every
 * search must give the same entries in the same order with bit-identical scores, whatever was written
 * in between, by this connection or another one.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import Database from "better-sqlite3";
import { normalizeEntry, type MemoryInput } from "../../src/memory/entry.js";
import type { MemoryRecord, SearchOptions } from "../../src/stores/port.js";
import { openSqliteStore, type SqliteMemoryStore } from "../../src/stores/sqlite/store.js";
import { CONTRACT_EMBEDDING } from "../contract/memory-store.contract.js";

const tempDir = mkdtempSync(join(tmpdir(), "recallgraph-lexical-index-"));
after(() => rmSync(tempDir, { recursive: true, force: true }));

const NOW = Date.parse("2024-06-01T12:00:00Z");
const DAY = 86_400_000;
const WORDS = [
  "heron", "kayak", "lighthouse", "sourdough", "quilt", "cello", "museum", "garden", "river", "market", "bicycle", "pottery",
  "waterfall", "chess", "radio", "choir", "meteor", "ramen", "bookshelf", "murals", "beekeeping", "marathon", "library", "harbour",
];
const PEOPLE = ["Ada", "Bruno", "Chiara", "Dmitri", "Elif"];

/** A deterministic pseudo-random sequence (LCG), so every run writes the same texts. */
function sequence(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

function records(namespace: string, count: number, seed: number, prefix = "m"): MemoryRecord[] {
  const next = sequence(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T;
  return Array.from({ length: count }, (_, i) => {
    const words = Array.from({ length: 3 + Math.floor(next() * 10) }, () => pick(WORDS));
    const person = pick(PEOPLE);
    const input: MemoryInput = {
      id: `${prefix}${i}`,
      text: `${person} talked about ${words.join(" ")}`,
      timestamp: NOW - Math.floor(next() * 200) * DAY,
      keywords: next() < 0.3 ? [pick(WORDS)] : [],
      persons: [person],
      ...(next() < 0.1 ? { expiresAt: NOW + (1 + Math.floor(next() * 3)) * DAY } : {}),
    };
    return { entry: normalizeEntry(namespace, input, { now: NOW }), vector: [1, next(), next(), next()] };
  });
}

const QUERIES = [
  "heron", "kayak river", "Ada lighthouse museum", "what did Bruno say about sourdough and the quilt", "cello choir radio chess",
  "garden market bicycle pottery waterfall", "Elif", "meteor ramen", "nothing matches zebra", "harbour library marathon beekeeping murals",
];
const OPTIONS: SearchOptions[] = [
  { k: 5 },
  { k: 25 },
  { k: 200 },
  { k: 25, filter: { persons: ["Ada"] } },
  { k: 10, filter: { timeRange: { startMs: NOW - 60 * DAY, endMs: NOW } } },
];

/** Every query with every option, from both stores: ids and scores must match exactly. */
async function assertSameAsFts5(store: SqliteMemoryStore, fts5: SqliteMemoryStore, namespace: string, when: string): Promise<void> {
  for (const query of QUERIES) {
    for (const options of OPTIONS) {
      const ours = (await store.lexicalSearch(namespace, query, options)).map((hit) => [hit.entry.id, hit.score]);
      const theirs = (await fts5.lexicalSearch(namespace, query, options)).map((hit) => [hit.entry.id, hit.score]);
      assert.deepEqual(ours, theirs, `${when}: "${query}" ${JSON.stringify(options)}`);
    }
  }
}

describe("sqlite in-memory BM25", () => {
  it("ranks and scores exactly as FTS5, with the whole table's statistics across namespaces", async () => {
    const path = join(tempDir, "exact.db");
    let now = NOW;
    const clock = () => now;
    const store = await openSqliteStore({ path, embedding: CONTRACT_EMBEDDING, clock });
    const fts5 = await openSqliteStore({ path, embedding: CONTRACT_EMBEDDING, clock, lexicalCacheEntries: 0 });
    try {
      await store.upsert("big", records("big", 400, 7));
      await store.upsert("small", records("small", 40, 11));
      await store.lexicalSearch("big", "heron", { k: 5 });
      assert.equal(store.lexicalIndexCounters().copied, 0, "a first search is answered by FTS5, not kept waiting for the terms");
      await assertSameAsFts5(store, fts5, "big", "FTS5 answering while the terms are read");
      assert.equal(await store.buildLexicalIndex("big"), true);
      assert.equal(await store.buildLexicalIndex("small"), true);
      await assertSameAsFts5(store, fts5, "big", "fresh");
      await assertSameAsFts5(store, fts5, "small", "fresh");
      assert.equal(store.lexicalIndexCounters().copied, 2);
      assert.equal(fts5.lexicalIndexCounters().copied, 0, "the FTS5 side never used memory");
      now = NOW + 2 * DAY;
      await assertSameAsFts5(store, fts5, "big", "some entries expired");
    } finally {
      await fts5.close();
      await store.close();
    }
  });

  it("stays exact through rewrites, deletes, another connection's writes and a cleared namespace, caught up from the change log", async () => {
    const path = join(tempDir, "changes.db");
    const store = await openSqliteStore({ path, embedding: CONTRACT_EMBEDDING, clock: () => NOW });
    const other = await openSqliteStore({ path, embedding: CONTRACT_EMBEDDING, clock: () => NOW });
    const fts5 = await openSqliteStore({ path, embedding: CONTRACT_EMBEDDING, clock: () => NOW, lexicalCacheEntries: 0 });
    try {
      await store.upsert("ns", records("ns", 300, 3));
      await store.upsert("elsewhere", records("elsewhere", 100, 5));
      assert.equal(await store.buildLexicalIndex("ns"), true);
      await assertSameAsFts5(store, fts5, "ns", "fresh");
      const copied = store.lexicalIndexCounters().copied;

      await store.upsert("ns", records("ns", 60, 99));
      await assertSameAsFts5(store, fts5, "ns", "60 entries rewritten with other words");
      await store.delete("ns", ["m1", "m2", "m3", "m50"]);
      await assertSameAsFts5(store, fts5, "ns", "4 deleted");
      await other.upsert("ns", records("ns", 30, 42, "other-"));
      await assertSameAsFts5(store, fts5, "ns", "30 written by another connection");
      await other.clearNamespace("elsewhere");
      await assertSameAsFts5(store, fts5, "ns", "another namespace cleared (the table's statistics changed)");

      const counters = store.lexicalIndexCounters();
      assert.equal(counters.copied, copied, "never re-read whole");
      assert.ok(counters.caughtUp >= 3, `caught up ${counters.caughtUp} times`);
    } finally {
      await fts5.close();
      await other.close();
      await store.close();
    }
  });

  it("leaves a namespace beyond its budget to FTS5, with the same answers", async () => {
    const path = join(tempDir, "budget.db");
    const store = await openSqliteStore({ path, embedding: CONTRACT_EMBEDDING, clock: () => NOW, lexicalCacheEntries: 100 });
    const fts5 = await openSqliteStore({ path, embedding: CONTRACT_EMBEDDING, clock: () => NOW, lexicalCacheEntries: 0 });
    try {
      await store.upsert("large", records("large", 150, 17));
      await store.upsert("fits", records("fits", 80, 19));
      assert.equal(await store.buildLexicalIndex("large"), false);
      assert.equal(await store.buildLexicalIndex("fits"), true);
      await assertSameAsFts5(store, fts5, "large", "beyond the budget");
      await assertSameAsFts5(store, fts5, "fits", "within it");
      assert.equal(store.lexicalIndexCounters().copied, 1, "only the namespace that fits is held");
    } finally {
      await fts5.close();
      await store.close();
    }
  });

  it("stops reading terms when the store closes mid-build", async () => {
    const store = await openSqliteStore({ path: ":memory:", embedding: CONTRACT_EMBEDDING, clock: () => NOW });
    await store.upsert("ns", records("ns", 1000, 23));
    const build = store.buildLexicalIndex("ns");
    await store.close();
    assert.equal(await build, false);
  });

  it("leaves a namespace with an unreadable entry to FTS5 until the namespace changes", async () => {
    const path = join(tempDir, "unreadable.db");
    const store = await openSqliteStore({ path, embedding: CONTRACT_EMBEDDING, clock: () => NOW });
    const fts5 = await openSqliteStore({ path, embedding: CONTRACT_EMBEDDING, clock: () => NOW, lexicalCacheEntries: 0 });
    try {
      const written = records("ns", 50, 29);
      await store.upsert("ns", written);
      const db = new Database(path);
      try {
        db.prepare("UPDATE entry_bodies SET entry_json = '{' WHERE rowid = (SELECT rowid FROM entries WHERE id = 'm7')").run();
      } finally {
        db.close();
      }
      assert.equal(await store.buildLexicalIndex("ns"), false);
      // Among another person's entries, so that the unreadable one is not a hit (loading it is an error on either path).
      const other = PEOPLE.find((person) => !written.find((item) => item.entry.id === "m7")?.entry.persons.includes(person)) ?? "Ada";
      const options = { k: 3, filter: { persons: [other] } };
      const ours = await store.lexicalSearch("ns", "heron kayak river garden", options);
      const theirs = await fts5.lexicalSearch("ns", "heron kayak river garden", options);
      assert.ok(theirs.length > 0);
      assert.deepEqual(ours.map((hit) => [hit.entry.id, hit.score]), theirs.map((hit) => [hit.entry.id, hit.score]));
      assert.equal(store.lexicalIndexCounters().copied, 0);

      await store.upsert("ns", written.filter((item) => item.entry.id === "m7"));
      assert.equal(await store.buildLexicalIndex("ns"), true, "read again once the entry is rewritten");
    } finally {
      await fts5.close();
      await store.close();
    }
  });
});
