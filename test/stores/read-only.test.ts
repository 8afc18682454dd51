/**
 * Read-only opening of both adapters, of the store factory and of the library: reads answer as they
 * would writable, every write is a ReadOnlyStoreError naming its operation, and nothing is written (the
 * sqlite file's bytes, the Qdrant stub's requests and points). The permission cases (chmod 444 file,
 * read-only folder) need a process that chmod binds: as root they are skipped, saying so, and the
 * image path root would never take is exercised directly.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import Database from "better-sqlite3";
import * as sqliteVec from "sqlite-vec";
import { EmbedderMismatchError, ReadOnlyStoreError, ValidationError } from "../../src/core/errors.js";
import { openRecallGraph } from "../../src/library/open-recallgraph.js";
import { normalizeEntry, type MemoryInput } from "../../src/memory/entry.js";
import { openStore, readingConfig, storeConfigFromEnv } from "../../src/stores/open-store.js";
import type { MemoryRecord, MemoryStore } from "../../src/stores/port.js";
import { openQdrantStore } from "../../src/stores/qdrant.js";
import { connectReadOnly, readOnlySource } from "../../src/stores/sqlite/read-only.js";
import { createSchemaV1 } from "../../src/stores/sqlite/schema.js";
import { openSqliteStore } from "../../src/stores/sqlite/store.js";
import type { EmbeddingSpec } from "../../src/text/embedder.js";
import { QDRANT_SPEC_PATH, qdrantSpecAvailable } from "./qdrant-spec.js";
import { SpecCheckingQdrantStub } from "./qdrant-stub.js";

const SPEC: EmbeddingSpec = { model: "read-only-test", dimension: 4 };
const NOW = Date.parse("2026-03-01T12:00:00Z");
const NS = "team";

/** Why the permission cases cannot run here, or false when they can. */
const ROOT_SKIP =
  process.getuid?.() === 0 ? "running as root: chmod does not stop root from writing, so the explicit readOnly cases stand in for it" : false;
if (ROOT_SKIP) console.log(`# SKIP permission cases: ${ROOT_SKIP}`);

const tempDir = mkdtempSync(join(tmpdir(), "recallgraph-read-only-"));
after(() => {
  // A folder a test made read-only must be writable again to be removed.
  for (const name of readdirSync(tempDir)) chmodSync(join(tempDir, name), 0o755);
  rmSync(tempDir, { recursive: true, force: true });
});
let fileCounter = 0;
/** A fresh path in a folder of its own, so what appears beside the file can be listed. */
function freshPath(label: string): string {
  const folder = join(tempDir, `${label}-${++fileCounter}`);
  mkdirSync(folder);
  return join(folder, "memory.db");
}

/** An entry written at `writtenAt` (default NOW), so one can have expired by NOW. */
function record(input: MemoryInput, vector: number[], writtenAt = NOW): MemoryRecord {
  return { entry: normalizeEntry(NS, { timestamp: writtenAt, ...input }, { now: writtenAt }), vector };
}

const RECORDS = [
  record({ id: "a", text: "Alice Chen fixed ERR_1024 in Berlin", persons: ["Alice Chen"], location: "Berlin" }, [1, 0, 0, 0]),
  record({ id: "b", text: "Bob Müller approved the travel budget", persons: ["Bob Müller"] }, [0, 1, 0, 0]),
  record({ id: "c", text: "The XYZ-100 order ships in April", expiresAt: NOW - 1000 }, [0, 0, 1, 0], NOW - 86_400_000),
];
const NEW_RECORD = record({ id: "d", text: "Dana wrote the release notes" }, [0, 0, 0, 1]);

/** A store file holding RECORDS (one of them expired) and namespace settings, closed. */
async function writtenStore(path: string): Promise<void> {
  const store = await openSqliteStore({ path, embedding: SPEC, clock: () => NOW });
  await store.upsert(NS, RECORDS);
  await store.setSettings(NS, { finalK: 5 });
  await store.close();
}

function sha1(path: string): string {
  return createHash("sha1").update(readFileSync(path)).digest("hex");
}

/** Every read the port offers, as plain data, so a writable and a read-only store can be compared. */
async function readEverything(store: MemoryStore): Promise<unknown> {
  const ids = (hits: { entry: { id: string } }[]): string[] => hits.map((hit) => hit.entry.id);
  return {
    get: (await store.get(NS, ["b", "a", "c", "zz"])).map((entry) => entry.id),
    dense: ids(await store.denseSearch(NS, [0.9, 0.1, 0, 0], { k: 3 })),
    lexical: ids(await store.lexicalSearch(NS, "ERR_1024 budget", { k: 3 })),
    filtered: ids(await store.filteredSearch(NS, { persons: ["alice chen"] }, { k: 3 })),
    list: (await store.list(NS, { limit: 10 })).entries.map((entry) => entry.id),
    vocabulary: await store.vocabulary(NS),
    settings: await store.getSettings(NS),
    documents: await store.documentVersions(NS, ["nothing"]),
    namespaces: (await store.stats()).namespaces,
  };
}

/** Every write the port offers, each expected to be refused with a ReadOnlyStoreError naming it. */
const WRITES: ReadonlyArray<[operation: string, write: (store: MemoryStore) => Promise<unknown>]> = [
  ["upsert", (store) => store.upsert(NS, [NEW_RECORD])],
  ["delete", (store) => store.delete(NS, ["a"])],
  ["clearNamespace", (store) => store.clearNamespace(NS)],
  ["setSettings", (store) => store.setSettings(NS, { finalK: 9 })],
  ["deleteExpired", (store) => store.deleteExpired()],
];

async function assertWritesRefused(store: MemoryStore): Promise<void> {
  for (const [operation, write] of WRITES) {
    await assert.rejects(write(store), (error: unknown) => {
      assert.ok(error instanceof ReadOnlyStoreError, `${operation}: ${String(error)}`);
      assert.equal(error.operation, operation);
      assert.equal(error.code, "read_only");
      assert.match(error.message, new RegExp(`^${operation}: .*read-only`));
      return true;
    });
  }
}

function assertRefusedAs(operation: string, pattern: RegExp): (error: unknown) => boolean {
  return (error: unknown) => {
    assert.ok(error instanceof ReadOnlyStoreError, String(error));
    assert.equal(error.operation, operation);
    assert.match(error.message, pattern);
    return true;
  };
}

describe("sqlite store opened readOnly", () => {
  it("reads what the writable store reads, refuses every write by name, and leaves the file's bytes as they were", async () => {
    const path = freshPath("reads");
    await writtenStore(path);
    const writable = await openSqliteStore({ path, embedding: SPEC, clock: () => NOW });
    const expected = await readEverything(writable);
    await writable.close();
    const before = sha1(path);

    const store = await openSqliteStore({ path, embedding: SPEC, clock: () => NOW, readOnly: true });
    assert.equal(store.readOnly, true);
    assert.deepEqual(await readEverything(store), expected);
    assert.deepEqual((expected as { get: string[] }).get, ["b", "a"], "the fixture has something to read (c has expired)");
    await assertWritesRefused(store);
    await store.close();

    assert.equal(sha1(path), before, "the file is byte for byte what it was");
    const reopened = await openSqliteStore({ path, embedding: SPEC, clock: () => 0 });
    assert.deepEqual((await reopened.stats()).namespaces, { [NS]: 3 }, "nothing was deleted, pruned or added");
    assert.deepEqual(await reopened.getSettings(NS), { finalK: 5 });
    await reopened.close();
  });

  it("refuses to create a store: a missing file stays missing, :memory: is refused naming the path", async () => {
    const path = freshPath("missing");
    await assert.rejects(openSqliteStore({ path, embedding: SPEC, readOnly: true }), assertRefusedAs("open", /no sqlite store at .*never created/));
    assert.equal(existsSync(path), false);
    await assert.rejects(openSqliteStore({ path: ":memory:", embedding: SPEC, readOnly: true }), (error: unknown) => {
      assert.ok(error instanceof ValidationError);
      assert.equal(error.field, "path");
      return true;
    });
  });

  it("refuses to migrate an older schema, saying to open it writable once; after that it opens read-only", async () => {
    const path = freshPath("v1");
    const db = new Database(path);
    sqliteVec.load(db);
    db.pragma("journal_mode = WAL");
    createSchemaV1(db, SPEC);
    db.close();
    const before = sha1(path);
    await assert.rejects(
      openSqliteStore({ path, embedding: SPEC, readOnly: true }),
      assertRefusedAs("migrate", /schema version 1 .* reads version 3 or later without migrating: open it once writable .* to migrate it/),
    );
    assert.equal(sha1(path), before, "nothing was migrated");
    await (await openSqliteStore({ path, embedding: SPEC })).close();
    await (await openSqliteStore({ path, embedding: SPEC, readOnly: true })).close();
  });

  it("reads a version-3 file as it is, whose layout is the current one, and leaves it at version 3", async () => {
    const path = freshPath("v3");
    await writtenStore(path);
    const downgrade = new Database(path);
    downgrade.exec("UPDATE meta SET value = '3' WHERE key = 'schema_version'");
    downgrade.close();
    const before = sha1(path);
    const store = await openSqliteStore({ path, embedding: SPEC, readOnly: true });
    try {
      assert.equal((await store.lexicalSearch(NS, "budget", { k: 5 })).length, 1);
    } finally {
      await store.close();
    }
    assert.equal(sha1(path), before, "nothing was migrated");
  });

  it("still tells another embedder's store apart (the CLI reopens it with the recorded one)", async () => {
    const path = freshPath("mismatch");
    await writtenStore(path);
    await assert.rejects(openSqliteStore({ path, embedding: { model: "other", dimension: 4 }, readOnly: true }), EmbedderMismatchError);
  });

  it("reads from an image in memory, the way a file or folder it cannot write is read, creating nothing beside the file", async () => {
    const path = freshPath("image");
    await writtenStore(path);
    const before = { bytes: sha1(path), files: readdirSync(join(path, "..")) };
    assert.deepEqual(before.files, ["memory.db"], "a writer's last close leaves no -wal or -shm");
    const db = connectReadOnly(path, "image");
    try {
      sqliteVec.load(db);
      // The WAL-mode file (SQLite refuses to deserialize one) reads whole: entries, the FTS5 index and a vec0 KNN.
      assert.equal(db.prepare("SELECT count(*) FROM entries").pluck().get(), 3);
      assert.equal(db.prepare("SELECT count(*) FROM entry_terms WHERE entry_terms MATCH 'budget'").pluck().get(), 1);
      const knn = db.prepare("SELECT rowid FROM entry_vectors WHERE embedding MATCH ? AND k = 1 AND namespace = ?").pluck();
      assert.equal(knn.all(Buffer.from(new Float32Array([0, 1, 0, 0]).buffer), NS).length, 1);
      assert.throws(() => db.exec("DELETE FROM entries"), /readonly/);
    } finally {
      db.close();
    }
    assert.deepEqual({ bytes: sha1(path), files: readdirSync(join(path, "..")) }, before);
    assert.equal(readOnlySource(path), "file", "a file and folder this process can write are read in place");
  });
});

describe("sqlite store this process cannot write", { skip: ROOT_SKIP }, () => {
  it("a chmod-444 file: readingConfig opens it read-only, it answers, and nothing appears beside it", async () => {
    const path = freshPath("chmod-444");
    await writtenStore(path);
    chmodSync(path, 0o444);
    const before = { bytes: sha1(path), files: readdirSync(join(path, "..")) };
    await assert.rejects(openStore({ kind: "sqlite", path }, SPEC), assertRefusedAs("open", /cannot be written by this process/));
    const config = readingConfig({ kind: "sqlite", path });
    assert.deepEqual(config, { kind: "sqlite", path, readOnly: true });
    const store = await openStore(config, SPEC);
    assert.deepEqual((await store.get(NS, ["a"])).map((entry) => entry.id), ["a"]);
    await assertWritesRefused(store);
    await store.close();
    // A -shm created here would copy the file's mode and block every later writer once it is made writable again.
    assert.deepEqual({ bytes: sha1(path), files: readdirSync(join(path, "..")) }, before);
    chmodSync(path, 0o644);
    const writable = await openStore({ kind: "sqlite", path }, SPEC);
    await writable.upsert(NS, [NEW_RECORD]);
    await writable.close();
  });

  it("a read-only folder: readingConfig opens it read-only and it answers", async () => {
    const path = freshPath("read-only-folder");
    await writtenStore(path);
    const folder = join(path, "..");
    chmodSync(folder, 0o555);
    try {
      const before = { bytes: sha1(path), files: readdirSync(folder) };
      const store = await openStore(readingConfig({ kind: "sqlite", path }), SPEC);
      assert.deepEqual((await store.denseSearch(NS, [0, 1, 0, 0], { k: 1 })).map((hit) => hit.entry.id), ["b"]);
      await store.close();
      assert.deepEqual({ bytes: sha1(path), files: readdirSync(folder) }, before);
    } finally {
      chmodSync(folder, 0o755);
    }
  });
});

describe("store configuration", () => {
  it("RECALLGRAPH_READ_ONLY switches readOnly on for either kind, and is absent otherwise", () => {
    assert.deepEqual(storeConfigFromEnv({ RECALLGRAPH_DB: "x.db", RECALLGRAPH_READ_ONLY: "1" }), { kind: "sqlite", path: "x.db", readOnly: true });
    assert.deepEqual(storeConfigFromEnv({ RECALLGRAPH_DB: "x.db", RECALLGRAPH_READ_ONLY: " TRUE " }), { kind: "sqlite", path: "x.db", readOnly: true });
    assert.deepEqual(storeConfigFromEnv({ RECALLGRAPH_DB: "x.db", RECALLGRAPH_READ_ONLY: "0" }), { kind: "sqlite", path: "x.db" });
    assert.deepEqual(storeConfigFromEnv({ RECALLGRAPH_STORE: "qdrant", QDRANT_URL: "http://q:6333", RECALLGRAPH_READ_ONLY: "yes" }), {
      kind: "qdrant",
      url: "http://q:6333",
      readOnly: true,
    });
    assert.throws(
      () => storeConfigFromEnv({ RECALLGRAPH_READ_ONLY: "maybe" }),
      (error: unknown) => error instanceof ValidationError && error.field === "RECALLGRAPH_READ_ONLY" && /got "maybe"/.test(error.message),
    );
  });

  it("readingConfig leaves a writable file, a missing one, :memory: and Qdrant as configured", () => {
    const path = freshPath("writable");
    writeFileSync(path, "");
    for (const config of [
      { kind: "sqlite", path },
      { kind: "sqlite", path: join(tempDir, "absent.db") },
      { kind: "sqlite", path: ":memory:" },
      { kind: "qdrant", url: "http://q:6333" },
    ] as const) {
      assert.deepEqual(readingConfig(config), config);
    }
  });
});

describe("openRecallGraph with a read-only store configuration", () => {
  it("retrieves, lists and gets; remember, forget, prune and reembed are refused and write nothing", async () => {
    const path = freshPath("library");
    const writer = await openRecallGraph({ store: { kind: "sqlite", path }, embedder: { provider: "hash" }, model: null });
    await writer.remember(NS, [{ id: "m1", text: "Alice Chen fixed ERR_1024 in the Berlin office", timestamp: "2026-03-02T10:00:00Z" }]);
    await writer.close();
    const before = sha1(path);

    const reader = await openRecallGraph({ store: { kind: "sqlite", path, readOnly: true }, embedder: { provider: "hash" }, model: null });
    try {
      const output = await reader.retrieve({ question: "Who fixed ERR_1024?", namespace: NS });
      assert.deepEqual(output.results.map((result) => result.id), ["m1"]);
      assert.deepEqual((await reader.list(NS)).entries.map((entry) => entry.id), ["m1"]);
      assert.deepEqual((await reader.get(NS, ["m1"])).map((entry) => entry.id), ["m1"]);
      await assert.rejects(reader.remember(NS, [{ text: "Bob joined" }]), assertRefusedAs("upsert", /read-only/));
      await assert.rejects(reader.forget(NS, ["m1"]), assertRefusedAs("delete", /read-only/));
      await assert.rejects(reader.prune(), assertRefusedAs("deleteExpired", /read-only/));
      await assert.rejects(reader.reembed(), assertRefusedAs("upsert", /read-only/));
    } finally {
      await reader.close();
    }
    assert.equal(sha1(path), before);
  });
});

/** Every request a read sends; anything else (create_collection, create_field_index, upsert_points, delete_points...) writes. */
const QDRANT_READS = new Set(["collection_exists", "get_collection", "scroll_points", "query_batch_points", "count_points", "facet"]);
const QDRANT_SKIP = qdrantSpecAvailable() ? false : `Qdrant OpenAPI spec not found at ${QDRANT_SPEC_PATH}`;

describe("Qdrant store opened readOnly (SpecCheckingQdrantStub, not a real Qdrant)", { skip: QDRANT_SKIP }, () => {
  async function withStub(body: (stub: SpecCheckingQdrantStub) => Promise<void>): Promise<void> {
    const stub = await SpecCheckingQdrantStub.start();
    try {
      await body(stub);
      assert.deepEqual(stub.violations, []);
    } finally {
      await stub.close();
    }
  }
  const writeRequests = (stub: SpecCheckingQdrantStub): string[] =>
    stub.requests.map((request) => request.operationId).filter((operationId) => !QDRANT_READS.has(operationId));

  it("reads what the writable store reads, refuses every write by name, and sends no request that writes", () =>
    withStub(async (stub) => {
      const writable = await openQdrantStore({ url: stub.url, collection: "ro", embedding: SPEC, clock: () => NOW });
      await writable.upsert(NS, RECORDS);
      await writable.setSettings(NS, { finalK: 5 });
      const expected = await readEverything(writable);
      await writable.close();
      const points = JSON.stringify(stub.storedPoints("ro"));
      stub.clearRequests();

      const store = await openQdrantStore({ url: stub.url, collection: "ro", embedding: SPEC, clock: () => NOW, readOnly: true });
      assert.deepEqual(await readEverything(store), expected);
      await assertWritesRefused(store);
      await store.close();
      assert.ok(stub.requests.length > 0);
      assert.deepEqual(writeRequests(stub), []);
      assert.equal(JSON.stringify(stub.storedPoints("ro")), points);
    }));

  it("never creates a missing collection, nor a missing payload index", () =>
    withStub(async (stub) => {
      await assert.rejects(
        openStore({ kind: "qdrant", url: stub.url, collection: "absent", readOnly: true }, SPEC),
        assertRefusedAs("open", /no collection "absent".*never creates one/),
      );
      await (await openQdrantStore({ url: stub.url, collection: "old", embedding: SPEC })).close();
      stub.dropPayloadIndex("old", "expiresAtMs");
      stub.clearRequests();
      await assert.rejects(
        openQdrantStore({ url: stub.url, collection: "old", embedding: SPEC, readOnly: true }),
        assertRefusedAs("migrate", /lacks the payload index of expiresAtMs: open it once writable/),
      );
      assert.deepEqual(writeRequests(stub), []);
      assert.deepEqual(stub.storedPoints("absent"), []);
    }));
});
