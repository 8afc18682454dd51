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
import { EmbedderMismatchError, StoreError, ValidationError } from "../../src/core/errors.js";
import { normalizeEntry, type MemoryInput } from "../../src/memory/entry.js";
import type { MemoryRecord } from "../../src/stores/port.js";
import type { EmbeddingSpec } from "../../src/text/embedder.js";
import { openSqliteStore } from "../../src/stores/sqlite/store.js";
import { CONTRACT_EMBEDDING, runMemoryStoreContract } from "../contract/memory-store.contract.js";

const tempDir = mkdtempSync(join(tmpdir(), "recallgraph-sqlite-test-"));
after(() => rmSync(tempDir, { recursive: true, force: true }));

const fileFor = (backend: string): string => join(tempDir, `${backend}.db`);

runMemoryStoreContract("sqlite :memory:", (embedding) => openSqliteStore({ path: ":memory:", embedding }), { reopenable: false });
runMemoryStoreContract("sqlite file (WAL)", (embedding, backend) => openSqliteStore({ path: fileFor(backend), embedding }), { reopenable: true });

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
