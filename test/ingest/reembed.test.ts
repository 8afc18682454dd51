/**
 * reembedMemories: every stored memory gets the vector its embedder gives its text now, nothing else
 * of it changes, and a namespace not asked for is left as it was.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ValidationError } from "../../src/core/errors.js";
import { reembedMemories, writeMemories } from "../../src/ingest/write-memories.js";
import type { MemoryEntry } from "../../src/memory/entry.js";
import type { MemoryStore } from "../../src/stores/port.js";
import { openTestSqliteStore, testEmbedder } from "./helpers.js";

const TEXTS = [
  "Priya Nair adopted a grey cat named Pixel.",
  "Tom Becker approved the travel budget for Lisbon.",
  "The XYZ-100 order ships from Shanghai in May.",
];

/** A vector no text of TEXTS embeds to: the first axis. What a store written by an older embedder holds, in effect. */
const STALE = Array.from({ length: testEmbedder.spec.dimension }, (_, i) => (i === 0 ? 1 : 0));

/** The score of `entry` for a dense search with its own text's vector: 1 when its stored vector is that text's. */
async function selfScore(store: MemoryStore, entry: MemoryEntry): Promise<number | undefined> {
  const [vector] = await testEmbedder.embeddings.embedDocuments([entry.text]);
  const hits = await store.denseSearch(entry.namespace, vector ?? [], { k: TEXTS.length });
  return hits.find((hit) => hit.entry.id === entry.id)?.score;
}

/** Writes TEXTS to `namespace`, then overwrites every vector with STALE; returns the entries as stored. */
async function writeStale(store: MemoryStore, namespace: string): Promise<MemoryEntry[]> {
  const written = await writeMemories(store, testEmbedder, namespace, TEXTS.map((text, i) => ({ id: `m${i}`, text, keywords: ["kept"] })));
  await store.upsert(namespace, written.map((entry) => ({ entry, vector: STALE })));
  return store.get(namespace, written.map((entry) => entry.id));
}

describe("reembedMemories", () => {
  let store: MemoryStore;
  before(async () => {
    store = await openTestSqliteStore();
  });
  after(() => store.close());

  it("gives every memory of the namespace its text's vector and changes nothing else of it", async () => {
    const before = await writeStale(store, "kb");
    const other = await writeStale(store, "other");
    for (const entry of before) assert.ok(((await selfScore(store, entry)) ?? 0) < 0.99, "the vectors start stale");

    const counts = await reembedMemories(store, testEmbedder, { namespace: "kb" });
    assert.deepEqual(counts, { kb: TEXTS.length });
    for (const entry of before) assert.ok(Math.abs(((await selfScore(store, entry)) ?? 0) - 1) < 1e-6, `${entry.id} has its text's vector`);
    assert.deepEqual(await store.get("kb", before.map((entry) => entry.id)), before, "ids, times, text and fields as they were");
    for (const entry of other) assert.ok(((await selfScore(store, entry)) ?? 0) < 0.99, "a namespace not asked for keeps its vectors");
  });

  it("without a namespace re-embeds every namespace of the store, and reports each", async () => {
    const other = await store.get("other", ["m0", "m1", "m2"]);
    const pages: Array<[string, number]> = [];
    const counts = await reembedMemories(store, testEmbedder, { onProgress: (namespace, done) => pages.push([namespace, done]) });
    assert.deepEqual(counts, { kb: TEXTS.length, other: TEXTS.length });
    assert.deepEqual(pages, [["kb", 3], ["other", 3]]);
    for (const entry of other) assert.ok(Math.abs(((await selfScore(store, entry)) ?? 0) - 1) < 1e-6);
  });

  it("leaves a memory rewritten meanwhile as that write left it", async () => {
    await writeStale(store, "busy");
    // Another writer changes m1's text between the page being listed and being written back.
    const racing = Object.create(store) as MemoryStore;
    let raced = false;
    racing.get = async (namespace, ids) => {
      if (!raced && namespace === "busy") {
        raced = true;
        await writeMemories(store, testEmbedder, "busy", [{ id: "m1", text: "Tom Becker cancelled the Lisbon trip." }]);
      }
      return store.get(namespace, ids);
    };
    const counts = await reembedMemories(racing, testEmbedder, { namespace: "busy" });
    assert.deepEqual(counts, { busy: TEXTS.length - 1 });
    const [rewritten] = await store.get("busy", ["m1"]);
    assert.equal(rewritten?.text, "Tom Becker cancelled the Lisbon trip.");
    assert.ok(rewritten && Math.abs(((await selfScore(store, rewritten)) ?? 0) - 1) < 1e-6, "with the vector of its new text");
  });

  it("refuses a malformed namespace, naming it", async () => {
    await assert.rejects(reembedMemories(store, testEmbedder, { namespace: " " }), (error: unknown) => error instanceof ValidationError && error.field === "namespace");
  });
});
