/**
 * The sqlite store's BM25 (src/stores/sqlite/lexical-index.ts): its two paths against each other and
 * against a direct computation. The same file opened a second time with `lexicalCacheEntries: 0`
 * always ranks FTS5's matches, and every search must give the same entries in the same order with
 * bit-identical scores as the terms in memory, whatever was written in between, by this connection or
 * another one. Both must score with the namespace's own statistics: another namespace's writes never
 * move a score.
 */
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import Database from "better-sqlite3";
import { normalizeEntry, type MemoryEntry, type MemoryInput } from "../../src/memory/entry.js";
import type { MemoryRecord, SearchOptions } from "../../src/stores/port.js";
import { StoreError } from "../../src/core/errors.js";
import { ftsColumns, queryTerms } from "../../src/stores/sqlite/fts-terms.js";
import { NamespaceTerms } from "../../src/stores/sqlite/namespace-terms.js";
import { termsFolder } from "../../src/stores/sqlite/store-file.js";
import { BM25_TAGS_WEIGHT, BM25_TEXT_WEIGHT } from "../../src/stores/sqlite/schema.js";
import { openSqliteStore, type SqliteMemoryStore } from "../../src/stores/sqlite/store.js";
import { BM25_B, BM25_K1, inverseDocumentFrequency, saturatedFrequency } from "../../src/text/bm25.js";
import { CONTRACT_EMBEDDING } from "../contract/memory-store.contract.js";
import { writeVersion3Terms } from "../support/sqlite-version3.js";

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

/**
 * BM25 computed directly over one namespace's live-or-not entries (N, n and avgdl all theirs), for
 * the live ones: each entry's terms weighted by column, its size counting the namespace term.
 */
function directScores(entries: readonly MemoryEntry[], query: string, now: number, b = BM25_B): Map<string, number> {
  const rows = entries.map((entry) => {
    const { text, tags } = ftsColumns(entry);
    const counts = new Map<string, number>();
    let length = 1;
    for (const [terms, weight] of [[text, BM25_TEXT_WEIGHT], [tags, BM25_TAGS_WEIGHT]] as const) {
      for (const term of terms.split(" ").filter(Boolean)) {
        length += 1;
        counts.set(term, (counts.get(term) ?? 0) + weight);
      }
    }
    return { entry, counts, length };
  });
  const averageLength = rows.reduce((sum, row) => sum + row.length, 0) / rows.length;
  const scores = new Map<string, number>();
  for (const term of queryTerms(query)) {
    const idf = inverseDocumentFrequency(rows.length, rows.filter((row) => row.counts.has(term)).length);
    for (const { entry, counts, length } of rows) {
      const frequency = counts.get(term);
      if (frequency === undefined || (entry.expiresAtMs !== undefined && entry.expiresAtMs <= now)) continue;
      scores.set(entry.id, (scores.get(entry.id) ?? 0) + idf * saturatedFrequency(frequency, length, averageLength, BM25_K1, b));
    }
  }
  return scores;
}

/** A namespace's lexical answers to every query with every option: ids in order, with scores. */
async function answers(store: SqliteMemoryStore, namespace: string): Promise<(string | number)[][][]> {
  const all: (string | number)[][][] = [];
  for (const query of QUERIES) {
    for (const options of OPTIONS) all.push((await store.lexicalSearch(namespace, query, options)).map((hit) => [hit.entry.id, hit.score]));
  }
  return all;
}

describe("sqlite BM25 per namespace", () => {
  it("scores as BM25 computed directly over the namespace's own entries, on both paths", async () => {
    const path = join(tempDir, "direct.db");
    const store = await openSqliteStore({ path, embedding: CONTRACT_EMBEDDING, clock: () => NOW });
    const fts5 = await openSqliteStore({ path, embedding: CONTRACT_EMBEDDING, clock: () => NOW, lexicalCacheEntries: 0 });
    try {
      const written = records("ns", 200, 31);
      await store.upsert("ns", written);
      await store.upsert("elsewhere", records("elsewhere", 300, 37));
      assert.equal(await store.buildLexicalIndex("ns"), true);
      for (const query of QUERIES) {
        const expected = directScores(written.map((record) => record.entry), query, NOW);
        for (const [path, searcher] of [["in memory", store], ["from FTS5", fts5]] as const) {
          const hits = await searcher.lexicalSearch("ns", query, { k: 500 });
          assert.deepEqual(hits.map((hit) => hit.entry.id).sort(), [...expected.keys()].sort(), `${path}: "${query}" finds every live entry holding a term`);
          for (const hit of hits) assert.ok(Math.abs(hit.score - (expected.get(hit.entry.id) ?? Number.NaN)) < 1e-9, `${path}: "${query}" ${hit.entry.id}`);
          // A smaller k keeps the best k of the whole ranking (chosen, not sorted whole), ties in the same order.
          for (const k of [1, 2, 7, 25]) {
            const first = await searcher.lexicalSearch("ns", query, { k });
            assert.deepEqual(first.map((hit) => [hit.entry.id, hit.score]), hits.slice(0, k).map((hit) => [hit.entry.id, hit.score]), `${path}: "${query}" k ${k}`);
          }
        }
      }
    } finally {
      await fts5.close();
      await store.close();
    }
  });

  it("ranks with the store's b on both paths, FTS5's counts recovered with bm25()'s own b", async () => {
    const path = join(tempDir, "length-normalisation.db");
    const written = records("ns", 200, 41);
    const first = await openSqliteStore({ path, embedding: CONTRACT_EMBEDDING, clock: () => NOW });
    await first.upsert("ns", written);
    await first.close();
    for (const b of [0, 0.4, 1]) {
      // The same file read with another b: nothing of b is stored, so any b ranks any file.
      const store = await openSqliteStore({ path, embedding: CONTRACT_EMBEDDING, clock: () => NOW, bm25B: b });
      const fts5 = await openSqliteStore({ path, embedding: CONTRACT_EMBEDDING, clock: () => NOW, bm25B: b, lexicalCacheEntries: 0 });
      try {
        assert.equal(await store.buildLexicalIndex("ns"), true);
        for (const query of QUERIES) {
          const expected = directScores(written.map((record) => record.entry), query, NOW, b);
          for (const [path, searcher] of [["in memory", store], ["from FTS5", fts5]] as const) {
            const hits = await searcher.lexicalSearch("ns", query, { k: 500 });
            assert.deepEqual(hits.map((hit) => hit.entry.id).sort(), [...expected.keys()].sort(), `b ${b}, ${path}: "${query}"`);
            for (const hit of hits) assert.ok(Math.abs(hit.score - (expected.get(hit.entry.id) ?? Number.NaN)) < 1e-9, `b ${b}, ${path}: "${query}" ${hit.entry.id}`);
          }
        }
      } finally {
        await fts5.close();
        await store.close();
      }
    }
  });

  it("never moves a score or a rank when another namespace is written, rewritten, deleted or cleared", async () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const path = join(tempDir, `isolated-${seed}.db`);
      const store = await openSqliteStore({ path, embedding: CONTRACT_EMBEDDING, clock: () => NOW });
      const fts5 = await openSqliteStore({ path, embedding: CONTRACT_EMBEDDING, clock: () => NOW, lexicalCacheEntries: 0 });
      try {
        await store.upsert("alice", records("alice", 30 + seed * 17, seed));
        assert.equal(await store.buildLexicalIndex("alice"), true);
        const before = await answers(fts5, "alice");
        assert.deepEqual(await answers(store, "alice"), before, `seed ${seed}: the two paths agree`);
        // Bob writes the same words, far more often, then rewrites, deletes and finally clears.
        await store.upsert("bob", records("bob", 100 + seed * 50, seed + 100));
        assert.deepEqual(await answers(store, "alice"), before, `seed ${seed}: after bob's writes, in memory`);
        assert.deepEqual(await answers(fts5, "alice"), before, `seed ${seed}: after bob's writes, from FTS5`);
        await fts5.upsert("bob", records("bob", 40, seed + 200));
        await fts5.delete("bob", ["m1", "m2", "m3"]);
        assert.deepEqual(await answers(store, "alice"), before, `seed ${seed}: after bob's rewrites and deletes`);
        await store.clearNamespace("bob");
        assert.deepEqual(await answers(fts5, "alice"), before, `seed ${seed}: after bob's namespace is cleared`);
      } finally {
        await fts5.close();
        await store.close();
      }
    }
  });

  it("does not let a caller tell a word another namespace stored from one nobody stored", async () => {
    const store = await openSqliteStore({ path: ":memory:", embedding: CONTRACT_EMBEDDING, clock: () => NOW });
    try {
      const mine = (text: string) => ({ entry: normalizeEntry("alice", { id: text, text, timestamp: NOW }, { now: NOW }), vector: [1, 0, 0, 0] });
      await store.upsert("alice", [mine("guess zanzibar"), mine("guess quokka"), mine("other words here")]);
      await store.upsert("bob", [{ entry: normalizeEntry("bob", { id: "secret", text: "my password is zanzibar", timestamp: NOW }, { now: NOW }), vector: [1, 0, 0, 0] }]);
      const score = async (word: string) => (await store.lexicalSearch("alice", word, { k: 1 }))[0]?.score;
      assert.equal(await score("zanzibar"), await score("quokka"));
    } finally {
      await store.close();
    }
  });
});

describe("sqlite in-memory BM25", () => {
  it("ranks and scores exactly as the FTS5 path, across namespaces", async () => {
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
      await assertSameAsFts5(store, fts5, "ns", "another namespace cleared");

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

  it("ranks a store migrated from version 3 exactly as FTS5 does, hyphen-joined identifiers found by their parts", async () => {
    const path = join(tempDir, "migrated-identifiers.db");
    const identifiers = ["CTLA-4", "IL-2", "p53-dependent", "XYZ-100", "3-5"];
    const written = records("ns", 120, 31).map(({ entry, vector }, i) => ({
      entry: { ...entry, text: i % 3 === 0 ? `${entry.text} ${identifiers[i % identifiers.length]}` : entry.text },
      vector,
    }));
    const writer = await openSqliteStore({ path, embedding: CONTRACT_EMBEDDING, clock: () => NOW });
    await writer.upsert("ns", written);
    await writer.close();
    writeVersion3Terms(path);

    const store = await openSqliteStore({ path, embedding: CONTRACT_EMBEDDING, clock: () => NOW });
    const fts5 = await openSqliteStore({ path, embedding: CONTRACT_EMBEDDING, clock: () => NOW, lexicalCacheEntries: 0 });
    try {
      assert.equal(await store.buildLexicalIndex("ns"), true);
      for (const query of ["ctla", "CTLA-4 blockade", "p53", "il heron", "xyz", "3-5 kayak", ...QUERIES]) {
        const ours = (await store.lexicalSearch("ns", query, { k: 25 })).map((hit) => [hit.entry.id, hit.score]);
        const theirs = (await fts5.lexicalSearch("ns", query, { k: 25 })).map((hit) => [hit.entry.id, hit.score]);
        assert.deepEqual(ours, theirs, `"${query}"`);
      }
      const byPart = await fts5.lexicalSearch("ns", "ctla", { k: 200 });
      assert.equal(byPart.length, written.filter(({ entry }) => entry.text.includes("CTLA-4")).length, "FTS5 finds every CTLA-4 memory by its part");
    } finally {
      await fts5.close();
      await store.close();
    }
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
      // Among another person's entries: the unreadable one is left out either way, this checks the rest agree.
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

describe("sqlite BM25 terms saved between openings", () => {
  const savedFile = (path: string, ending: string) => {
    const folder = termsFolder(path);
    const name = readdirSync(folder).find((file) => file.endsWith(ending));
    assert.ok(name, `a ${ending} file in ${folder}`);
    return join(folder, name);
  };

  it("loads a namespace's saved terms at the next opening, caught up from the change log, with the same answers", async () => {
    const path = join(tempDir, "saved.db");
    const first = await openSqliteStore({ path, embedding: CONTRACT_EMBEDDING, clock: () => NOW });
    try {
      await first.upsert("ns", records("ns", 300, 31));
      assert.equal(await first.buildLexicalIndex("ns"), true);
      assert.deepEqual(first.lexicalIndexCounters(), { copied: 1, loaded: 0, caughtUp: 0, saved: 1 });
    } finally {
      await first.close();
    }
    // Written while no opening holds the terms: the saved ones are behind the file. (An erase would
    // remove them instead: they would hold the erased words.)
    const writer = await openSqliteStore({ path, embedding: CONTRACT_EMBEDDING, clock: () => NOW, lexicalCacheEntries: 0 });
    try {
      await writer.upsert("ns", records("ns", 40, 32));
      await writer.upsert("ns", records("ns", 20, 37, "new-"));
    } finally {
      await writer.close();
    }
    const second = await openSqliteStore({ path, embedding: CONTRACT_EMBEDDING, clock: () => NOW });
    const reader = await openSqliteStore({ path, embedding: CONTRACT_EMBEDDING, clock: () => NOW, readOnly: true });
    const fts5 = await openSqliteStore({ path, embedding: CONTRACT_EMBEDDING, clock: () => NOW, lexicalCacheEntries: 0 });
    try {
      await second.lexicalSearch("ns", "heron", { k: 5 });
      assert.deepEqual(second.lexicalIndexCounters(), { copied: 0, loaded: 1, caughtUp: 1, saved: 0 }, "the first search already ranks from the loaded terms");
      await assertSameAsFts5(second, fts5, "ns", "loaded and caught up");
      assert.equal(await reader.buildLexicalIndex("ns"), true);
      assert.deepEqual(reader.lexicalIndexCounters(), { copied: 0, loaded: 1, caughtUp: 1, saved: 0 }, "a read-only opening loads them too");
      await assertSameAsFts5(reader, fts5, "ns", "loaded read-only");
    } finally {
      await fts5.close();
      await reader.close();
      await second.close();
    }
  });

  it("reads the entries again when the saved terms are damaged or another store's, and saves them anew", async () => {
    const path = join(tempDir, "damaged.db");
    const elsewhere = join(tempDir, "elsewhere.db");
    for (const file of [path, elsewhere]) {
      const store = await openSqliteStore({ path: file, embedding: CONTRACT_EMBEDDING, clock: () => NOW });
      try {
        await store.upsert("ns", records("ns", 120, file === path ? 33 : 34));
        assert.equal(await store.buildLexicalIndex("ns"), true);
      } finally {
        await store.close();
      }
    }
    const termsFile = savedFile(path, ".terms");
    const bytes = readFileSync(termsFile);
    bytes[bytes.length - 3] = (bytes[bytes.length - 3] ?? 0) ^ 0xff;
    writeFileSync(termsFile, bytes);
    await assertReadAgain(path, "a damaged file");

    // The other store's terms, of the same namespace, put in this store's folder.
    rmSync(termsFolder(path), { recursive: true });
    cpSync(termsFolder(elsewhere), termsFolder(path), { recursive: true });
    await assertReadAgain(path, "another store's terms");
  });

  async function assertReadAgain(path: string, what: string): Promise<void> {
    const store = await openSqliteStore({ path, embedding: CONTRACT_EMBEDDING, clock: () => NOW });
    const fts5 = await openSqliteStore({ path, embedding: CONTRACT_EMBEDDING, clock: () => NOW, lexicalCacheEntries: 0 });
    try {
      assert.equal(await store.buildLexicalIndex("ns"), true);
      assert.deepEqual(store.lexicalIndexCounters(), { copied: 1, loaded: 0, caughtUp: 0, saved: 1 }, what);
      await assertSameAsFts5(store, fts5, "ns", what);
    } finally {
      await fts5.close();
      await store.close();
    }
  }

  it("saves anew, or removes, every namespace's terms when expired entries are pruned everywhere", async () => {
    const path = join(tempDir, "pruned.db");
    let now = NOW;
    const clock = () => now;
    const first = await openSqliteStore({ path, embedding: CONTRACT_EMBEDDING, clock });
    try {
      await first.upsert("held", records("held", 150, 35));
      await first.upsert("unheld", records("unheld", 150, 36));
      assert.equal(await first.buildLexicalIndex("held"), true);
      assert.equal(await first.buildLexicalIndex("unheld"), true);
    } finally {
      await first.close();
    }
    const second = await openSqliteStore({ path, embedding: CONTRACT_EMBEDDING, clock });
    try {
      assert.equal(await second.buildLexicalIndex("held"), true);
      now = NOW + 4 * DAY;
      assert.ok((await second.deleteExpired()) > 0);
      assert.equal(second.lexicalIndexCounters().saved, 1, "the terms held here are saved without the pruned entries");
      assert.equal(readdirSync(termsFolder(path)).filter((name) => name.endsWith(".json")).length, 1, "the others' are removed");
    } finally {
      await second.close();
    }
    const third = await openSqliteStore({ path, embedding: CONTRACT_EMBEDDING, clock });
    const fts5 = await openSqliteStore({ path, embedding: CONTRACT_EMBEDDING, clock, lexicalCacheEntries: 0 });
    try {
      assert.equal(await third.buildLexicalIndex("held"), true);
      assert.equal(await third.buildLexicalIndex("unheld"), true);
      assert.deepEqual(third.lexicalIndexCounters(), { copied: 1, loaded: 1, caughtUp: 0, saved: 1 });
      await assertSameAsFts5(third, fts5, "held", "saved after the prune");
      await assertSameAsFts5(third, fts5, "unheld", "read again after the prune");
    } finally {
      await fts5.close();
      await third.close();
    }
  });

  it("refuses saved bytes that do not add up, naming what is wrong", () => {
    const terms = new NamespaceTerms(4);
    terms.set(1, { text: "heron kayak heron", tags: "ada" });
    terms.set(2, { text: "river", tags: "" });
    const bytes = terms.toSnapshot();
    const again = NamespaceTerms.fromSnapshot(bytes, 4);
    assert.deepEqual(again.statistics(), terms.statistics());
    const rank = (held: NamespaceTerms) => held.ranked(["heron", "river"], held.statistics(), () => true, 5, BM25_B);
    assert.deepEqual(rank(again), rank(terms));
    assert.throws(() => NamespaceTerms.fromSnapshot(bytes.subarray(0, bytes.length - 8), 4), (error: unknown) => error instanceof StoreError && /saved terms/.test(error.message));
    // Restored arrays are sized to what they hold, empty ones too: rows added after still land.
    const empty = NamespaceTerms.fromSnapshot(new NamespaceTerms(1).toSnapshot(), 1);
    empty.set(7, { text: "heron", tags: "" });
    again.set(3, { text: "heron heron", tags: "" });
    assert.deepEqual(rank(empty).map((hit) => hit.rowid), [7]);
    const direct = new NamespaceTerms(4);
    direct.set(1, { text: "heron kayak heron", tags: "ada" });
    direct.set(2, { text: "river", tags: "" });
    direct.set(3, { text: "heron heron", tags: "" });
    assert.deepEqual(rank(again), rank(direct));
    assert.equal(rank(again).length, 3);
  });
});
