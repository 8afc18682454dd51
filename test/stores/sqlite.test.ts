/**
 * The sqlite adapter: the MemoryStore contract on `:memory:` and on a file, plus what only sqlite has
 * (WAL mode, reopening a file, rollback of a batch that fails inside its transaction, file bytes).
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import Database from "better-sqlite3";
import * as sqliteVec from "sqlite-vec";
import { EmbedderMismatchError, StoreError, ValidationError } from "../../src/core/errors.js";
import { normalizeEntry, type MemoryEntry, type MemoryInput } from "../../src/memory/entry.js";
import type { MemoryFilter, MemoryRecord } from "../../src/stores/port.js";
import type { EmbeddingSpec } from "../../src/text/embedder.js";
import { newestFirstDrive } from "../../src/stores/sqlite/filter-sql.js";
import { termMatchExpression } from "../../src/stores/sqlite/fts-terms.js";
import { createSchemaV1, mapForVectorScans, openDatabase, ORIGIN_OF_BODY, SCHEMA_VERSION } from "../../src/stores/sqlite/schema.js";
import { openSqliteStore } from "../../src/stores/sqlite/store.js";
import { CONTRACT_EMBEDDING, runMemoryStoreContract } from "../contract/memory-store.contract.js";
import { writeVersion3Terms } from "../support/sqlite-version3.js";

const tempDir = mkdtempSync(join(tmpdir(), "recallgraph-sqlite-test-"));
after(() => rmSync(tempDir, { recursive: true, force: true }));

const fileFor = (backend: string): string => join(tempDir, `${backend}.db`);

runMemoryStoreContract("sqlite :memory:", (embedding, _backend, extras) => openSqliteStore({ path: ":memory:", embedding, ...extras }), { reopenable: false });
runMemoryStoreContract("sqlite file (WAL)", (embedding, backend, extras) => openSqliteStore({ path: fileFor(backend), embedding, ...extras }), {
  reopenable: true,
});

const NOW = Date.parse("2024-06-01T12:00:00Z");
const SPEC: EmbeddingSpec = CONTRACT_EMBEDDING;

function record(namespace: string, input: MemoryInput, vector: number[]): MemoryRecord {
  return { entry: normalizeEntry(namespace, { timestamp: NOW, ...input }, { now: NOW }), vector };
}

/** Row counts of every table and index view, read through a separate connection. */
function rowCounts(path: string): Record<string, number> {
  const db = new Database(path, { readonly: true });
  try {
    const count = (sql: string): number => (db.prepare(sql).pluck().get() as number) ?? 0;
    return {
      entries: count("SELECT count(*) FROM entries"),
      bodies: count("SELECT count(*) FROM entry_bodies"),
      names: count("SELECT count(*) FROM entry_names"),
      vocabulary: count("SELECT count(*) FROM namespace_names"),
      // Shadow tables: the FTS5 doc-size rows and the vec0 rowid map hold one row per indexed entry.
      terms: count("SELECT count(*) FROM entry_terms_docsize"),
      vectors: count("SELECT count(*) FROM entry_vectors_rowids"),
    };
  } finally {
    db.close();
  }
}

describe("sqlite adapter specifics", () => {
  it("files are in WAL mode and the spec is recorded in meta", async () => {
    const path = fileFor("wal");
    const store = await openSqliteStore({ path, embedding: SPEC });
    await store.close();
    const db = new Database(path, { readonly: true });
    try {
      assert.equal(db.pragma("journal_mode", { simple: true }), "wal");
      const meta = Object.fromEntries((db.prepare("SELECT key, value FROM meta").all() as { key: string; value: string }[]).map((row) => [row.key, row.value]));
      assert.equal(meta.embedding_model, SPEC.model);
      assert.equal(meta.embedding_dimension, String(SPEC.dimension));
    } finally {
      db.close();
    }
  });

  it("a reopened file keeps entries and every index; stats reports its bytes", async () => {
    const path = fileFor("reopen");
    const first = await openSqliteStore({ path, embedding: SPEC });
    await first.upsert("ns", [record("ns", { id: "m", text: "Marta keeps bees in Madrid", persons: ["Marta"], location: "Madrid" }, [0, 0, 1, 0])]);
    await first.close();
    const second = await openSqliteStore({ path, embedding: SPEC });
    try {
      assert.equal((await second.get("ns", ["m"]))[0]?.text, "Marta keeps bees in Madrid");
      assert.equal((await second.lexicalSearch("ns", "bees", { k: 1 }))[0]?.entry.id, "m");
      assert.equal((await second.denseSearch("ns", [0, 0, 1, 0], { k: 1 }))[0]?.entry.id, "m");
      assert.equal((await second.filteredSearch("ns", { location: "madr" }, { k: 1 }))[0]?.entry.id, "m");
      const stats = await second.stats();
      assert.deepEqual(stats.namespaces, { ns: 1 });
      assert.ok((stats.bytes ?? 0) > 0);
    } finally {
      await second.close();
    }
  });

  it("a mismatching reopen names both specs", async () => {
    const path = fileFor("mismatch");
    await (await openSqliteStore({ path, embedding: SPEC })).close();
    await assert.rejects(openSqliteStore({ path, embedding: { model: "other", dimension: 4 } }), (error: unknown) => {
      assert.ok(error instanceof EmbedderMismatchError);
      assert.match(error.message, /contract-test-embedder.*4-d.*other/);
      return true;
    });
  });

  it("a batch that fails inside its transaction leaves nothing half-written", async () => {
    const path = fileFor("rollback");
    const store = await openSqliteStore({ path, embedding: SPEC });
    await store.upsert("ns", [record("ns", { id: "old", text: "The original memory about owls", persons: ["Olga"] }, [1, 0, 0, 0])]);
    const before = rowCounts(path);
    // Fail the batch late: on the name rows of its last entry, after the earlier entries and this
    // entry's row, terms and vector were written. Only a rollback of everything passes this test.
    const saboteur = new Database(path);
    saboteur.exec(`CREATE TRIGGER fail_late BEFORE INSERT ON entry_names WHEN NEW.name_lower = 'poison'
                   BEGIN SELECT RAISE(ABORT, 'injected failure'); END`);
    saboteur.close();
    const batch = [
      record("ns", { id: "new-1", text: "A fresh memory about falcons", persons: ["Fay"] }, [0, 1, 0, 0]),
      record("ns", { id: "old", text: "A replacement about eagles", persons: ["Ed"] }, [0, 0, 1, 0]),
      record("ns", { id: "new-2", text: "The poisoned memory about hawks", persons: ["Hal", "Poison"] }, [0, 0, 0, 1]),
    ];
    await assert.rejects(store.upsert("ns", batch), (error: unknown) => {
      assert.ok(error instanceof StoreError);
      assert.equal(error.context.operation, "upsert");
      assert.match(error.message, /injected failure/);
      return true;
    });
    assert.deepEqual(rowCounts(path), before);
    assert.deepEqual((await store.get("ns", ["new-1", "old", "new-2"])).map((e) => e.text), ["The original memory about owls"]);
    assert.deepEqual(await store.lexicalSearch("ns", "falcons eagles hawks", { k: 5 }), []);
    assert.deepEqual((await store.lexicalSearch("ns", "owls", { k: 5 })).map((hit) => hit.entry.id), ["old"]);
    assert.deepEqual((await store.denseSearch("ns", [0, 1, 1, 1], { k: 5 })).map((hit) => hit.entry.id), ["old"]);
    assert.deepEqual((await store.vocabulary("ns")).persons, ["Olga"]);
    // The store stays usable: the same batch without the poisoned name goes through whole.
    await store.upsert("ns", batch.slice(0, 2));
    assert.deepEqual(rowCounts(path), { entries: 2, bodies: 2, names: 2, vocabulary: 2, terms: 2, vectors: 2 });
    await store.close();
  });

  it("replace and delete leave exactly one row per entry in every index", async () => {
    const path = fileFor("no-orphans");
    const store = await openSqliteStore({ path, embedding: SPEC });
    for (let round = 0; round < 3; round += 1) {
      await store.upsert("ns", [
        record("ns", { id: "a", text: `round ${round} alpha`, persons: ["P1", "P2"], entities: ["E"], location: "L" }, [1, round, 0, 0]),
        record("ns", { id: "b", text: `round ${round} beta`, persons: ["P3"] }, [0, 1, round, 0]),
      ]);
    }
    assert.deepEqual(rowCounts(path), { entries: 2, bodies: 2, names: 5, vocabulary: 5, terms: 2, vectors: 2 });
    await store.delete("ns", ["a"]);
    assert.deepEqual(rowCounts(path), { entries: 1, bodies: 1, names: 1, vocabulary: 1, terms: 1, vectors: 1 });
    await store.clearNamespace("ns");
    assert.deepEqual(rowCounts(path), { entries: 0, bodies: 0, names: 0, vocabulary: 0, terms: 0, vectors: 0 });
    await store.close();
  });

  it("reads a file through a memory map only when asked to (for sqlite-vec's own scans)", () => {
    const opened = openDatabase(join(tempDir, "mapped.db"), SPEC);
    try {
      assert.equal(Number(opened.db.pragma("mmap_size", { simple: true })), 0);
      mapForVectorScans(opened.db, opened.file);
      assert.equal(Number(opened.db.pragma("mmap_size", { simple: true })), 2 ** 30);
    } finally {
      opened.db.close();
    }
  });

  it("refuses an all-zero vector (cosine is undefined) and a k above the cap", async () => {
    const store = await openSqliteStore({ path: ":memory:", embedding: SPEC });
    try {
      await assert.rejects(store.upsert("ns", [record("ns", { text: "zero" }, [0, 0, 0, 0])]), (error: unknown) => {
        assert.ok(error instanceof ValidationError);
        assert.equal(error.field, "records.0.vector");
        return true;
      });
      await assert.rejects(store.denseSearch("ns", [0, 0, 0, 0], { k: 1 }), ValidationError);
      await assert.rejects(store.denseSearch("ns", [1, 0, 0, 0], { k: 1001 }), ValidationError);
      // Huge and tiny components normalise without overflow or underflow.
      await store.upsert("ns", [record("ns", { id: "huge", text: "huge" }, [1e300, 1e300, 0, 0]), record("ns", { id: "tiny", text: "tiny" }, [1e-310, 0, 0, 0])]);
      const hits = await store.denseSearch("ns", [1, 0, 0, 0], { k: 2 });
      assert.deepEqual(hits.map((hit) => hit.entry.id), ["tiny", "huge"]);
      assert.ok(Math.abs((hits[1]?.score ?? 0) - Math.SQRT1_2) < 1e-6);
    } finally {
      await store.close();
    }
  });

  it("filtered dense search is exact when the filter matches more entries than it measures one by one", async () => {
    const store = await openSqliteStore({ path: ":memory:", embedding: SPEC });
    try {
      // 3000 matches (above the direct-distance limit) whose nearest ones sit behind 500 closer non-matches.
      const records: MemoryRecord[] = [];
      for (let i = 0; i < 3500; i += 1) {
        const matches = i >= 500;
        const angle = (i / 3500) * (Math.PI / 2);
        records.push(record("ns", { id: `r${i}`, text: `row ${i}`, persons: [matches ? "Match" : "Other"] }, [Math.cos(angle), Math.sin(angle), 0, 0]));
      }
      await store.upsert("ns", records);
      const hits = await store.denseSearch("ns", [1, 0, 0, 0], { k: 5, filter: { persons: ["match"] } });
      assert.deepEqual(hits.map((hit) => hit.entry.id), ["r500", "r501", "r502", "r503", "r504"]);
      const far = await store.filteredSearch("ns", { persons: ["other"] }, { k: 3, vector: [0, 1, 0, 0] });
      assert.deepEqual(far.map((hit) => hit.entry.id), ["r499", "r498", "r497"]);
    } finally {
      await store.close();
    }
  });

  it("filtered dense search stays exact when the matches lie beyond vec0's 4096-row KNN window", async () => {
    const store = await openSqliteStore({ path: ":memory:", embedding: SPEC });
    try {
      // 4200 non-matches all nearer the query than 600 matches (more than 1/16 of the namespace).
      const records: MemoryRecord[] = [];
      for (let i = 0; i < 4800; i += 1) {
        const matches = i >= 4200;
        const angle = (i / 4800) * (Math.PI / 2);
        records.push(record("ns", { id: `r${i}`, text: `row ${i}`, persons: [matches ? "Far" : "Near"] }, [Math.cos(angle), Math.sin(angle), 0, 0]));
      }
      await store.upsert("ns", records);
      const hits = await store.denseSearch("ns", [1, 0, 0, 0], { k: 3, filter: { persons: ["far"] } });
      assert.deepEqual(hits.map((hit) => hit.entry.id), ["r4200", "r4201", "r4202"]);
    } finally {
      await store.close();
    }
  });

  it("reads the newest matches of a name most entries carry as of a rare one: pages, cursors and filtered search agree with every entry filtered by hand", async () => {
    const store = await openSqliteStore({ path: ":memory:", embedding: SPEC });
    try {
      // Alice speaks in 400 of 600 entries, Bob in 20; XYZ is named in every other; a few share a moment.
      const inputs: MemoryInput[] = Array.from({ length: 600 }, (_, i) => ({
        id: `m${String(i).padStart(3, "0")}`,
        text: `entry ${i}`,
        timestamp: NOW - Math.floor(i / 3) * 60_000,
        persons: [i % 3 === 0 ? "Carol" : "Alice", ...(i % 30 === 1 ? ["Bob"] : [])],
        entities: i % 2 ? ["XYZ-100"] : [],
        ...(i % 5 === 0 ? { location: "Shanghai" } : {}),
      }));
      await store.upsert("ns", inputs.map((input, i) => record("ns", input, [Math.cos(i), Math.sin(i), 0, 0])));
      const all = (await store.list("ns", { limit: 1000 })).entries;
      assert.equal(all.length, 600);
      const filters: MemoryFilter[] = [
        { persons: ["alice"] },
        { persons: ["Bob"] },
        { persons: ["bob", "ALICE"] },
        { persons: ["Alice"], entities: ["xyz-100"] },
        { persons: ["alice"], location: "shang" },
        { persons: ["alice"], timeRange: { startMs: NOW - 100 * 60_000, endMs: NOW - 20 * 60_000 } },
        { persons: ["nobody"] },
      ];
      for (const filter of filters) {
        const expected = all.filter((entry) => matchesByHand(entry, filter)).map((entry) => entry.id);
        const paged: string[] = [];
        for (let cursor: string | undefined, page = 0; page === 0 || cursor; page += 1) {
          const listed = await store.list("ns", { filter, limit: 25, ...(cursor ? { cursor } : {}) });
          paged.push(...listed.entries.map((entry) => entry.id));
          cursor = listed.nextCursor;
        }
        assert.deepEqual(paged, expected, JSON.stringify(filter));
        // Newest first, and among entries of one moment the one written last first.
        const newest = await store.filteredSearch("ns", filter, { k: 30 });
        const byWrite = [...expected].sort((a, b) => Date.parse(all.find((e) => e.id === b)?.timestamp ?? "") - Date.parse(all.find((e) => e.id === a)?.timestamp ?? "") || b.localeCompare(a));
        assert.deepEqual(newest.map((hit) => hit.entry.id), byWrite.slice(0, 30), JSON.stringify(filter));
      }
    } finally {
      await store.close();
    }
  });

  it("walks the time index for the newest matches only where that reads fewer entries than the names' own rows", () => {
    // A page of 21 in 600 entries: Alice's 400 are met within ~32 entries of the walk; Bob's 20 are fewer than ~630.
    assert.equal(newestFirstDrive([400], 600, 21), "time");
    assert.equal(newestFirstDrive([20], 600, 21), "names");
    // Alice and an entity of 300, taken as independent: ~200 matches, ~63 entries walked, fewer than 300 rows.
    assert.equal(newestFirstDrive([400, 300], 600, 21), "time");
    // A speaker of half a million memories: a page of 201 walks ~402 entries; 2,000 of them would walk ~300,000.
    assert.equal(newestFirstDrive([500_000], 1_000_000, 201), "time");
    assert.equal(newestFirstDrive([2_000], 1_000_000, 201), "names");
    assert.equal(newestFirstDrive([0], 600, 21), "names");
    assert.equal(newestFirstDrive([], 600, 21), "names");
  });

  it("vocabulary counts names across entries: a name stays while any entry carries it", async () => {
    const store = await openSqliteStore({ path: ":memory:", embedding: SPEC });
    try {
      await store.upsert("ns", [
        record("ns", { id: "1", text: "one", persons: ["Ann"], location: "Oslo" }, [1, 0, 0, 0]),
        record("ns", { id: "2", text: "two", persons: ["ann", "Ben"], location: "oslo" }, [0, 1, 0, 0]),
      ]);
      assert.deepEqual(await store.vocabulary("ns"), { persons: ["Ann", "Ben"], entities: [], locations: ["Oslo"] });
      await store.delete("ns", ["1"]);
      assert.deepEqual((await store.vocabulary("ns")).persons.map((name) => name.toLowerCase()), ["ann", "ben"]);
      await store.upsert("ns", [record("ns", { id: "2", text: "two", persons: ["Ben"] }, [0, 1, 0, 0])]);
      assert.deepEqual(await store.vocabulary("ns"), { persons: ["Ben"], entities: [], locations: [] });
    } finally {
      await store.close();
    }
  });

  it("refuses a database that is not a recallgraph store", async () => {
    const path = fileFor("foreign");
    const foreign = new Database(path);
    foreign.exec("CREATE TABLE something_else (x)");
    foreign.close();
    await assert.rejects(openSqliteStore({ path, embedding: SPEC }), StoreError);
  });
});

/** Whether an entry meets a filter, read from its fields: persons and entities any-of, location a substring, time [start, end). */
function matchesByHand(entry: MemoryEntry, filter: MemoryFilter): boolean {
  const anyOf = (names: readonly string[], wanted: readonly string[] | undefined) =>
    wanted === undefined || wanted.some((name) => names.some((held) => held.toLowerCase() === name.toLowerCase()));
  const ms = Date.parse(entry.timestamp);
  return (
    anyOf(entry.persons, filter.persons) &&
    anyOf(entry.entities, filter.entities) &&
    (filter.location === undefined || (entry.location ?? "").toLowerCase().includes(filter.location.toLowerCase())) &&
    (filter.timeRange?.startMs === undefined || ms >= filter.timeRange.startMs) &&
    (filter.timeRange?.endMs === undefined || ms < filter.timeRange.endMs)
  );
}

/** The schema version recorded in a file's meta table, and the columns of its entries table. */
function layoutOf(path: string): { version: string; entryColumns: string[]; objects: string[] } {
  const db = new Database(path, { readonly: true });
  try {
    sqliteVec.load(db);
    const version = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").pluck().get() as string;
    const entryColumns = (db.pragma("table_info(entries)") as { name: string }[]).map((column) => column.name);
    const objects = db.prepare("SELECT type || ' ' || name || ': ' || coalesce(sql, '') FROM sqlite_schema ORDER BY type, name").pluck().all() as string[];
    return { version, entryColumns, objects };
  } finally {
    db.close();
  }
}

/** A version-1 store file built by hand: the v1 layout and meta, as recallgraph before expiry wrote it. */
function createV1File(path: string, prepare: (db: Database.Database) => void = () => undefined): void {
  const db = new Database(path);
  try {
    sqliteVec.load(db);
    createSchemaV1(db, SPEC);
    prepare(db);
  } finally {
    db.close();
  }
}

describe("sqlite schema migration", () => {
  it("migrates a version-1 file in place to the layout a fresh file gets", async () => {
    const migrated = fileFor("migrate-v1-empty");
    createV1File(migrated);
    assert.equal(layoutOf(migrated).version, "1");
    await (await openSqliteStore({ path: migrated, embedding: SPEC })).close();
    const fresh = fileFor("migrate-fresh");
    await (await openSqliteStore({ path: fresh, embedding: SPEC })).close();
    const layout = layoutOf(migrated);
    assert.equal(SCHEMA_VERSION, 5);
    assert.equal(layout.version, "5");
    assert.ok(layout.entryColumns.includes("expires_at_ms"));
    assert.ok(layout.objects.some((object) => object.startsWith("index entries_expiring:") && object.includes("WHERE expires_at_ms IS NOT NULL")));
    assert.deepEqual(layout.objects, layoutOf(fresh).objects);
  });

  it("keeps a version-1 file's entries readable in every view, and lets them expire from then on", async () => {
    const path = fileFor("migrate-v1-data");
    // Write with today's code, then take the file back to version 1: what a v1 store held.
    const writer = await openSqliteStore({ path, embedding: SPEC });
    await writer.upsert("ns", [record("ns", { id: "old", text: "Ulla rows on the fjord", persons: ["Ulla"], source: { documentId: "log.md" } }, [1, 0, 0, 0])]);
    await writer.close();
    const downgrade = new Database(path);
    downgrade.exec(
      "DROP TABLE entry_supersedes; DROP INDEX entries_expiring; ALTER TABLE entries DROP COLUMN expires_at_ms; UPDATE meta SET value = '1' WHERE key = 'schema_version'",
    );
    downgrade.close();
    assert.equal(layoutOf(path).version, "1");
    assert.ok(!layoutOf(path).entryColumns.includes("expires_at_ms"));

    let now = NOW;
    const store = await openSqliteStore({ path, embedding: SPEC, clock: () => now });
    try {
      assert.equal(layoutOf(path).version, "5");
      assert.deepEqual((await store.get("ns", ["old"])).map((e) => e.text), ["Ulla rows on the fjord"]);
      assert.equal((await store.lexicalSearch("ns", "fjord", { k: 1 }))[0]?.entry.id, "old");
      assert.equal((await store.denseSearch("ns", [1, 0, 0, 0], { k: 1 }))[0]?.entry.id, "old");
      assert.deepEqual((await store.list("ns", { limit: 5, filter: { documentId: "log.md" } })).entries.map((e) => e.id), ["old"]);
      await store.upsert("ns", [record("ns", { id: "new", text: "Ulla rows again", persons: ["Ulla"], expiresAt: NOW + 1000 }, [0, 1, 0, 0])]);
      now = NOW + 1000;
      assert.deepEqual((await store.filteredSearch("ns", { persons: ["ulla"] }, { k: 5 })).map((hit) => hit.entry.id), ["old"]);
      assert.equal(await store.deleteExpired(), 1, "a v1 entry never expires");
      assert.deepEqual(rowCounts(path), { entries: 1, bodies: 1, names: 1, vocabulary: 1, terms: 1, vectors: 1 });
    } finally {
      await store.close();
    }
  });

  it("leaves a version-1 file untouched when its migration fails", async () => {
    const path = fileFor("migrate-v1-fails");
    // An index already holding the name the migration creates makes its second statement fail.
    createV1File(path, (db) => db.exec("CREATE INDEX entries_expiring ON entries (id)"));
    await assert.rejects(openSqliteStore({ path, embedding: SPEC }), (error: unknown) => {
      assert.ok(error instanceof StoreError);
      assert.match(error.message, /entries_expiring/);
      return true;
    });
    const layout = layoutOf(path);
    assert.equal(layout.version, "1");
    assert.ok(!layout.entryColumns.includes("expires_at_ms"), "the added column was rolled back with the failed step");
  });

  it("refuses a file written by a newer layout", async () => {
    const path = fileFor("migrate-newer");
    createV1File(path, (db) => db.prepare("UPDATE meta SET value = ? WHERE key = 'schema_version'").run(String(SCHEMA_VERSION + 1)));
    await assert.rejects(openSqliteStore({ path, embedding: SPEC }), /schema version 6, this recallgraph reads up to 5/);
  });

  it("migrates a version-2 file: its entries stay readable and a new memory can supersede one of them", async () => {
    const path = fileFor("migrate-v2-data");
    const writer = await openSqliteStore({ path, embedding: SPEC });
    await writer.upsert("ns", [record("ns", { id: "old", text: "Ulla lives in Bergen", persons: ["Ulla"], expiresAt: NOW + 10_000 }, [1, 0, 0, 0])]);
    await writer.close();
    const downgrade = new Database(path);
    downgrade.exec("DROP TABLE entry_supersedes; UPDATE meta SET value = '2' WHERE key = 'schema_version'");
    downgrade.close();
    assert.equal(layoutOf(path).version, "2");

    const store = await openSqliteStore({ path, embedding: SPEC, clock: () => NOW });
    try {
      assert.equal(layoutOf(path).version, "5");
      assert.deepEqual(await store.supersedersOf("ns", ["old"]), []);
      await store.upsert("ns", [record("ns", { id: "new", text: "Ulla moved to Oslo", supersedes: ["old"] }, [0, 1, 0, 0])]);
      assert.deepEqual((await store.supersedersOf("ns", ["old"])).map((e) => e.id), ["new"]);
      assert.deepEqual((await store.get("ns", ["old"])).map((e) => e.expiresAtMs), [NOW + 10_000], "the older entry is whole");
    } finally {
      await store.close();
    }
    const fresh = fileFor("migrate-v2-fresh");
    await (await openSqliteStore({ path: fresh, embedding: SPEC })).close();
    assert.deepEqual(layoutOf(path).objects, layoutOf(fresh).objects);
  });

  it("migrates a version-3 file: the FTS5 rows of hyphen-joined identifiers gain their parts, other rows keep their terms", async () => {
    const path = fileFor("migrate-v3-identifiers");
    const writer = await openSqliteStore({ path, embedding: SPEC });
    await writer.upsert("ns", [
      record("ns", { id: "joined", text: "CTLA-4 blockade with a p53-dependent arrest", keywords: ["IL-2"] }, [1, 0, 0, 0]),
      record("ns", { id: "plain", text: "Ctla rows 3-5 laps on 2025-12-21" }, [0, 1, 0, 0]),
    ]);
    await writer.close();
    writeVersion3Terms(path);
    const plainDocsize = docsizeOf(path, "plain");
    assert.deepEqual(termRows(path, ["ctla", "p53", "il"]), { ctla: ["plain"], p53: [], il: [] });

    await (await openSqliteStore({ path, embedding: SPEC })).close();
    assert.equal(layoutOf(path).version, "5");
    assert.deepEqual(termRows(path, ["ctla", "ctla-4", "p53", "il", "il-2", "3-5", "3"]), {
      ctla: ["joined", "plain"],
      "ctla-4": ["joined"],
      p53: ["joined"],
      il: ["joined"],
      "il-2": ["joined"],
      "3-5": ["plain"],
      "3": [],
    });
    assert.deepEqual(docsizeOf(path, "plain"), plainDocsize, "a row without such an identifier keeps its terms");
    // FTS5 answers a store asked to keep no terms in memory: it finds the identifier by its part.
    const store = await openSqliteStore({ path, embedding: SPEC, lexicalCacheEntries: 0 });
    try {
      assert.deepEqual((await store.lexicalSearch("ns", "p53", { k: 5 })).map((hit) => hit.entry.id), ["joined"]);
    } finally {
      await store.close();
    }
  });

  it("migrates a version-4 file: its entries are found by their source's origin, and a read-only opening of it finds them without the index", async () => {
    const path = fileFor("migrate-v4-origin");
    const writer = await openSqliteStore({ path, embedding: SPEC });
    await writer.upsert("ns", [
      record("ns", { id: "from-notes", text: "Kiln fired on Monday", source: { origin: "/data/notes.jsonl" } }, [1, 0, 0, 0]),
      record("ns", { id: "typed", text: "Glaze order placed" }, [0, 1, 0, 0]),
    ]);
    await writer.close();
    const downgrade = new Database(path);
    downgrade.exec("DROP INDEX entry_bodies_by_origin; UPDATE meta SET value = '4' WHERE key = 'schema_version'");
    downgrade.close();

    const reader = await openSqliteStore({ path, embedding: SPEC, readOnly: true });
    try {
      assert.deepEqual(await reader.originEntryIds("ns", "/data/notes.jsonl"), ["from-notes"]);
    } finally {
      await reader.close();
    }
    assert.equal(layoutOf(path).version, "4", "a read-only opening migrates nothing");
    const store = await openSqliteStore({ path, embedding: SPEC });
    try {
      assert.equal(layoutOf(path).version, "5");
      assert.ok(layoutOf(path).objects.some((object) => object.startsWith("index entry_bodies_by_origin:")));
      assert.deepEqual(await store.originEntryIds("ns", "/data/notes.jsonl"), ["from-notes"]);
    } finally {
      await store.close();
    }
  });

  it("finds a source's entries through the origin index, never a scan of the namespace", async () => {
    await withQueryPlans("origin-plan", (plan) => {
      const lookup = plan(
        `SELECT e.id FROM entry_bodies b CROSS JOIN entries e ON e.rowid = b.rowid WHERE ${ORIGIN_OF_BODY} = '/data/notes.jsonl' AND e.namespace = 'ns' ORDER BY e.id`,
      );
      assert.match(lookup, /SEARCH b USING COVERING INDEX entry_bodies_by_origin/);
      assert.doesNotMatch(lookup, /SCAN (e|b)\b/);
    });
  });

  it("finds superseders, and the rows of a rewritten entry, through the supersession indexes, never a scan", async () => {
    await withQueryPlans("supersedes-plan", (plan) => {
      const lookup = plan(
        `SELECT DISTINCT e.rowid FROM entry_supersedes AS s JOIN entries AS e ON e.rowid = s.entry_rowid
          WHERE s.namespace = 'ns' AND s.superseded_id IN (SELECT value FROM json_each('["a"]')) AND e.namespace = 'ns'`,
      );
      assert.match(lookup, /SEARCH s USING (COVERING INDEX|PRIMARY KEY)/);
      assert.doesNotMatch(lookup, /SCAN (e|s)\b/);
      assert.match(plan("DELETE FROM entry_supersedes WHERE entry_rowid = 5"), /entry_supersedes_by_entry/);
    });
  });
});

/** The FTS5 doc size (terms per column) of the entry `id`'s row, read through a separate connection. */
function docsizeOf(path: string, id: string): unknown {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare("SELECT sz FROM entry_terms_docsize WHERE id = (SELECT rowid FROM entries WHERE id = ?)").pluck().get(id);
  } finally {
    db.close();
  }
}

/** For each FTS5 term, the ids of the entries whose rows hold it, read through a separate connection. */
function termRows(path: string, terms: readonly string[]): Record<string, string[]> {
  const db = new Database(path, { readonly: true });
  try {
    const ids = db.prepare<[string], string>("SELECT e.id FROM entry_terms JOIN entries AS e ON e.rowid = entry_terms.rowid WHERE entry_terms MATCH ? ORDER BY e.id").pluck();
    return Object.fromEntries(terms.map((term) => [term, ids.all(termMatchExpression(term))]));
  } finally {
    db.close();
  }
}

/** A fresh store's file, read-only with sqlite-vec loaded, and `plan(sql)`: how sqlite would run `sql` (EXPLAIN QUERY PLAN). */
async function withQueryPlans(name: string, check: (plan: (sql: string) => string) => void): Promise<void> {
  const path = fileFor(name);
  await (await openSqliteStore({ path, embedding: SPEC })).close();
  const db = new Database(path, { readonly: true });
  try {
    sqliteVec.load(db);
    check((sql) => (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((row) => row.detail).join("; "));
  } finally {
    db.close();
  }
}

describe("sqlite expiry internals", () => {
  it("finds expired entries through the partial expiry index, never a scan of entries", async () => {
    await withQueryPlans("expiry-plan", (plan) => {
      assert.match(plan("SELECT rowid FROM entries WHERE namespace = 'ns' AND expires_at_ms <= 5 LIMIT 10"), /USING COVERING INDEX entries_expiring/);
      assert.match(plan("SELECT rowid FROM entries WHERE expires_at_ms <= 5"), /entries_expiring/);
    });
  });


  it("skips expired entries exactly when more have piled up than a search over-fetches past", async () => {
    let now = NOW;
    const store = await openSqliteStore({ path: ":memory:", embedding: SPEC, clock: () => now });
    try {
      // 1100 expiring entries nearest the query and sharing its words, 5 lasting ones behind them.
      const records: MemoryRecord[] = [];
      for (let i = 0; i < 1105; i += 1) {
        const lasting = i >= 1100;
        const angle = (i / 1105) * (Math.PI / 2);
        const input: MemoryInput = { id: `r${i}`, text: `heron count ${lasting ? "kept" : "brief"} ${i}`, ...(lasting ? {} : { expiresAt: NOW + 1 }) };
        records.push(record("ns", input, [Math.cos(angle), Math.sin(angle), 0, 0]));
      }
      await store.upsert("ns", records);
      now = NOW + 1;
      assert.deepEqual((await store.denseSearch("ns", [1, 0, 0, 0], { k: 3 })).map((hit) => hit.entry.id), ["r1100", "r1101", "r1102"]);
      assert.equal((await store.lexicalSearch("ns", "heron count", { k: 10 })).length, 5);
      assert.deepEqual((await store.list("ns", { limit: 10 })).entries.length, 5);
      assert.equal(await store.deleteExpired("ns"), 1100);
      assert.deepEqual((await store.denseSearch("ns", [1, 0, 0, 0], { k: 3 })).map((hit) => hit.entry.id), ["r1100", "r1101", "r1102"]);
    } finally {
      await store.close();
    }
  });
});

describe("sqlite parsed entries", () => {
  it("reuses a parsed entry only while its row holds the same JSON: another connection's rewrite and a corrupt row are seen", async () => {
    const path = fileFor("parsed-entries");
    const reader = await openSqliteStore({ path, embedding: SPEC });
    const writer = await openSqliteStore({ path, embedding: SPEC });
    try {
      await writer.upsert("ns", [record("ns", { id: "a", text: "the heron came back" }, [1, 0, 0, 0])]);
      const first = await reader.lexicalSearch("ns", "heron", { k: 5 });
      assert.equal((await reader.lexicalSearch("ns", "heron", { k: 5 }))[0]?.entry, first[0]?.entry, "the same row's entry is reused");

      await writer.upsert("ns", [record("ns", { id: "a", text: "the heron came back twice", keywords: ["heron"] }, [1, 0, 0, 0])]);
      const rewritten = (await reader.lexicalSearch("ns", "heron", { k: 5 }))[0]?.entry;
      assert.equal(rewritten?.text, "the heron came back twice");
      assert.deepEqual(rewritten?.keywords, ["heron"]);

      const db = new Database(path);
      try {
        db.prepare("UPDATE entry_bodies SET entry_json = ? WHERE rowid = (SELECT rowid FROM entries WHERE id = 'a')").run('{"id":"a"}');
      } finally {
        db.close();
      }
      await assert.rejects(reader.get("ns", ["a"]), (error: unknown) => error instanceof StoreError && /corrupt/.test(error.message));
    } finally {
      await writer.close();
      await reader.close();
    }
  });

  it("hands out entries that cannot be changed under other callers", async () => {
    const store = await openSqliteStore({ path: ":memory:", embedding: SPEC });
    try {
      await store.upsert("ns", [record("ns", { id: "a", text: "owls at dusk", persons: ["Ada"], source: { origin: "notes.md", turnIds: ["t1"] } }, [1, 0, 0, 0])]);
      const [entry] = await store.get("ns", ["a"]);
      assert.ok(entry);
      assert.throws(() => (entry.persons as string[]).push("Bruno"), TypeError);
      assert.throws(() => Object.assign(entry, { text: "changed" }), TypeError);
      assert.throws(() => (entry.source?.turnIds as string[]).push("t2"), TypeError);
      assert.equal((await store.get("ns", ["a"]))[0]?.text, "owls at dusk");
    } finally {
      await store.close();
    }
  });
});
