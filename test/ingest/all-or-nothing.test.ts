/**
 * One ingest call writes everything or nothing: every entry is validated and embedded before the one
 * store write, so a bad line, a bad item or a failing embedder leaves the store as it was.
 */
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Embeddings } from "@langchain/core/embeddings";
import { ValidationError } from "../../src/core/errors.js";
import { ingestDialogue } from "../../src/ingest/dialogue-ingest.js";
import { ingestDocuments, ingestDocumentText } from "../../src/ingest/documents.js";
import { ingestFile } from "../../src/ingest/ingest-file.js";
import { writeMemories } from "../../src/ingest/write-memories.js";
import { openRecallGraph } from "../../src/library/open-recallgraph.js";
import type { MemoryRecord, MemoryStore } from "../../src/stores/port.js";
import type { Embedder } from "../../src/text/embedder.js";
import { openTestSqliteStore, testEmbedder } from "./helpers.js";

/** Year 10000, 1 January: a Date holds it, ISO 8601 without an expanded year does not. */
const YEAR_10000_MS = 253_402_300_800_000;

/** testEmbedder, except that its `failOn`-th embedDocuments call throws (or any call `failOn` says should). */
function failingEmbedder(failOn: number | ((texts: readonly string[]) => boolean)): Embedder {
  let calls = 0;
  const fails = typeof failOn === "number" ? () => calls === failOn : failOn;
  const embeddings = Object.create(testEmbedder.embeddings) as Embeddings;
  embeddings.embedDocuments = async (texts: string[]) => {
    calls += 1;
    if (fails(texts)) throw new Error("embedding service unavailable");
    return testEmbedder.embeddings.embedDocuments(texts);
  };
  return { ...testEmbedder, embeddings };
}

/** The store, with its upsert calls counted and every call after the first failing. */
function failingAfterFirstUpsert(store: MemoryStore): MemoryStore & { upserts: () => number } {
  let upserts = 0;
  const wrapped = Object.create(store) as MemoryStore & { upserts: () => number };
  wrapped.upsert = async (namespace: string, records: readonly MemoryRecord[]) => {
    upserts += 1;
    if (upserts > 1) throw new Error("disk full");
    return store.upsert(namespace, records);
  };
  wrapped.upserts = () => upserts;
  return wrapped;
}

const count = async (store: MemoryStore, namespace: string): Promise<number> => (await store.stats()).namespaces[namespace] ?? 0;

const lines = (n: number, line: (i: number) => object): string =>
  Array.from({ length: n }, (_, i) => JSON.stringify(line(i + 1))).join("\n") + "\n";

describe("an ingest call writes everything or nothing", () => {
  let folder = "";
  before(async () => {
    folder = await mkdtemp(path.join(tmpdir(), "recallgraph-all-or-nothing-"));
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it("a JSONL file whose line 250 of 300 is in year 10000 writes nothing and names line 250 and timestamp", async () => {
    const store = await openTestSqliteStore();
    const file = path.join(folder, "notes.jsonl");
    await writeFile(file, lines(300, (i) => ({ text: `Note ${i}`, timestamp: i === 250 ? YEAR_10000_MS : 1_700_000_000_000 + i })));
    await assert.rejects(ingestFile(file, { store, embedder: testEmbedder, namespace: "notes" }), (error: unknown) => {
      assert.ok(error instanceof ValidationError, String(error));
      assert.equal(error.field, "line 250: timestamp");
      assert.match(error.message, /^line 250: timestamp: timestamp must be in the years 0001-9999$/);
      return true;
    });
    assert.equal(await count(store, "notes"), 0);
  });

  it("an embedder failing on its third call writes nothing, and an existing namespace keeps its entries", async () => {
    const store = await openTestSqliteStore();
    const before = await writeMemories(store, testEmbedder, "notes", [
      { id: "keep", text: "Kept as it was" },
      { id: "m7", text: "Replaced only if the whole call succeeds" },
    ]);
    const file = path.join(folder, "three-hundred.jsonl");
    await writeFile(file, lines(300, (i) => ({ id: `m${i}`, text: `Note ${i}` })));
    const embedder = failingEmbedder(3);
    await assert.rejects(ingestFile(file, { store, embedder, namespace: "fresh" }), /embedding service unavailable/);
    assert.equal(await count(store, "fresh"), 0);

    await assert.rejects(ingestFile(file, { store, embedder: failingEmbedder(3), namespace: "notes" }), /embedding service unavailable/);
    assert.equal(await count(store, "notes"), 2);
    assert.deepEqual(await store.get("notes", ["keep", "m7"]), before);
  });

  it("the call is one store write: a store failing after its first upsert still gets all 300", async () => {
    const store = failingAfterFirstUpsert(await openTestSqliteStore());
    const file = path.join(folder, "one-write.jsonl");
    await writeFile(file, lines(300, (i) => ({ text: `Note ${i}` })));
    const summary = await ingestFile(file, { store, embedder: testEmbedder, namespace: "notes" });
    assert.equal(summary.entries, 300);
    assert.equal(store.upserts(), 1, "one upsert, so one sqlite transaction, for the whole file");
    assert.equal(await count(store, "notes"), 300);
  });

  it("a remember batch with a bad item 5 writes nothing and names entries.5.timestamp", async () => {
    const memory = await openRecallGraph({ store: await openTestSqliteStore(), embedder: testEmbedder, model: null });
    try {
      for (const bad of [5, 70]) {
        const inputs = Array.from({ length: 100 }, (_, i) => ({ text: `Item ${i}`, ...(i === bad ? { timestamp: YEAR_10000_MS } : {}) }));
        await assert.rejects(memory.remember("notes", inputs), (error: unknown) => {
          assert.ok(error instanceof ValidationError);
          assert.equal(error.field, `entries.${bad}.timestamp`);
          return true;
        });
        assert.equal(await count(memory.store, "notes"), 0, `bad item ${bad}`);
      }
    } finally {
      await memory.close();
    }
  });

  it("a dialogue whose embedding fails on the third batch writes nothing", async () => {
    const store = await openTestSqliteStore();
    const turns = Array.from({ length: 300 }, (_, i) => ({ turnId: `t${i}`, speaker: i % 2 ? "Ann" : "Ben", text: `Turn ${i} about the launch.`, time: "2026-03-10T09:00:00Z" }));
    await assert.rejects(ingestDialogue(store, failingEmbedder(3), "chat", { turns }), /embedding service unavailable/);
    assert.equal(await count(store, "chat"), 0);
  });

  it("a LoCoMo file is built and embedded whole before its first conversation is written", async () => {
    const store = await openTestSqliteStore();
    const sample = (id: string) => ({
      sample_id: id,
      conversation: {
        speaker_a: "Ann",
        speaker_b: "Ben",
        session_1_date_time: "1:56 pm on 8 May, 2023",
        session_1: [
          { speaker: "Ann", dia_id: "D1:1", text: "Hi Ben" },
          { speaker: "Ben", dia_id: "D1:2", text: "Hi Ann" },
        ],
      },
    });
    const file = path.join(folder, "two.json");
    await writeFile(file, JSON.stringify([sample("c1"), sample("c2")]));
    await assert.rejects(ingestFile(file, { store, embedder: failingEmbedder(2), format: "locomo" }), /embedding service unavailable/);
    assert.deepEqual((await store.stats()).namespaces, {});
  });

  it("a documents folder is one write: an embedder failing on the second file's chunks writes no file", async () => {
    const store = await openTestSqliteStore();
    const docs = path.join(folder, "docs");
    await mkdir(docs);
    await writeFile(path.join(docs, "a.md"), "# A\n\nFirst document.");
    await writeFile(path.join(docs, "b.md"), "# B\n\nSecond document.");
    // Each document used to be its own write, so a.md was stored before b.md failed.
    const embedder = failingEmbedder((texts) => texts.some((text) => text.includes("Second")));
    await assert.rejects(ingestDocuments(store, embedder, "kb", docs), /embedding service unavailable/);
    assert.equal(await count(store, "kb"), 0);
  });

  it("a document's error names the document and chunk and the field", async () => {
    const store = await openTestSqliteStore();
    await assert.rejects(
      ingestDocumentText(store, testEmbedder, "kb", "guide/a.md", "# A\n\nOne.\n\n# B\n\nTwo.", { modifiedMs: YEAR_10000_MS }),
      (error: unknown) => error instanceof ValidationError && error.field === "guide/a.md chunk 1: timestamp",
    );
    assert.equal(await count(store, "kb"), 0);
  });
});
