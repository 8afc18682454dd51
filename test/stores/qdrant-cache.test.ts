/**
 * What the Qdrant adapter keeps of a namespace between questions (qdrant-cache.ts): on its own, with a
 * clock the test moves, and through stores against SpecCheckingQdrantStub (not a real Qdrant): a write
 * by this process is seen at once by every store of it on the collection; one from elsewhere within
 * namespaceCacheMs is not, which is the bound the option sets.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { normalizeEntry } from "../../src/memory/entry.js";
import type { Vocabulary } from "../../src/stores/port.js";
import { QdrantReadCache } from "../../src/stores/qdrant-cache.js";
import { openQdrantStore } from "../../src/stores/qdrant.js";
import type { EmbeddingSpec } from "../../src/text/embedder.js";
import { QDRANT_SPEC_PATH, qdrantSpecAvailable } from "./qdrant-spec.js";
import { SpecCheckingQdrantStub } from "./qdrant-stub.js";

const VOCABULARY: Vocabulary = { persons: ["Alice"], entities: [], locations: [] };

/** A read that counts its calls and answers what `answer` says at the time. */
function counted<T>(answer: () => Promise<T>) {
  const read = async () => {
    read.calls++;
    return answer();
  };
  read.calls = 0;
  return read;
}

describe("QdrantReadCache", () => {
  it("reuses a read for ttlMs, then reads again; 0 keeps nothing", async () => {
    let now = 0;
    const cache = new QdrantReadCache(() => now);
    const read = counted(async () => VOCABULARY);
    await cache.vocabulary("ns", 1_000, read);
    now = 1_000;
    assert.deepEqual(await cache.vocabulary("ns", 1_000, read), VOCABULARY);
    assert.equal(read.calls, 1, "within ttlMs: kept");
    now = 1_001;
    await cache.vocabulary("ns", 1_000, read);
    assert.equal(read.calls, 2, "past ttlMs: read again");
    await cache.vocabulary("ns", 0, read);
    await cache.vocabulary("ns", 0, read);
    assert.equal(read.calls, 4, "ttlMs 0: every call reads");
  });

  it("keeps each namespace, term and kind apart, and forgets one namespace or all", async () => {
    const cache = new QdrantReadCache(() => 0);
    const size = counted(async () => 10);
    const holding = counted(async () => 3);
    const settings = counted(async () => ({ finalK: 5 }));
    for (const ns of ["a", "b"]) {
      await cache.size(ns, 60_000, size);
      await cache.holding(ns, 7, 60_000, holding);
      await cache.holding(ns, 8, 60_000, holding);
      await cache.settings(ns, 60_000, settings);
    }
    assert.deepEqual([size.calls, holding.calls, settings.calls], [2, 4, 2]);
    cache.forget("a");
    for (const ns of ["a", "b"]) {
      await cache.size(ns, 60_000, size);
      await cache.holding(ns, 7, 60_000, holding);
    }
    assert.deepEqual([size.calls, holding.calls], [3, 5], "only namespace a read again");
    cache.forget();
    await cache.size("b", 60_000, size);
    assert.equal(size.calls, 4, "forget() drops every namespace");
  });

  it("shares one read among concurrent callers, keeps no failure, and keeps no read a forget overtook", async () => {
    const cache = new QdrantReadCache(() => 0);
    let release: (value: number) => void = () => undefined;
    const slow = counted(() => new Promise<number>((resolve) => (release = resolve)));
    const both = Promise.all([cache.size("ns", 60_000, slow), cache.size("ns", 60_000, slow)]);
    release(4);
    assert.deepEqual(await both, [4, 4]);
    assert.equal(slow.calls, 1, "one request for both");

    const failing = counted(async (): Promise<number> => {
      throw new Error("server down");
    });
    await assert.rejects(cache.holding("ns", 1, 60_000, failing), /server down/);
    const recovered = counted(async () => 2);
    assert.equal(await cache.holding("ns", 1, 60_000, recovered), 2);
    assert.equal(recovered.calls, 1, "the failure was not kept");

    const during = counted(() => new Promise<number>((resolve) => (release = resolve)));
    const inFlight = cache.size("other", 60_000, during);
    cache.forget("other");
    release(1);
    await inFlight;
    const afterForget = counted(async () => 2);
    assert.equal(await cache.size("other", 60_000, afterForget), 2, "what was read across the forget is not kept");
  });
});

const SKIP = qdrantSpecAvailable() ? false : `Qdrant OpenAPI spec not found at ${QDRANT_SPEC_PATH}`;
const EMBEDDING: EmbeddingSpec = { model: "test-hash", dimension: 4 };

describe("kept reads through Qdrant stores (SpecCheckingQdrantStub, not a real Qdrant)", { skip: SKIP }, () => {
  let stub: SpecCheckingQdrantStub;
  before(async () => {
    stub = await SpecCheckingQdrantStub.start();
  });
  after(async () => {
    assert.deepEqual(stub?.violations, []);
    await stub?.close();
  });

  const memory = (id: string, person: string) => ({ entry: normalizeEntry("ns", { id, text: `${person} wrote ${id}`, persons: [person] }), vector: [1, 0, 0, 0] });

  it("a write by this process, through any of its stores on the collection, is seen at once; one from elsewhere after namespaceCacheMs", async () => {
    const collection = "rg_kept_reads";
    const reader = await openQdrantStore({ url: stub.url, collection, embedding: EMBEDDING, namespaceCacheMs: 60_000 });
    const writer = await openQdrantStore({ url: stub.url, collection, embedding: EMBEDDING });
    // The same server by another name: a cache of its own, as another process's would be.
    const elsewhere = await openQdrantStore({ url: stub.url.replace("127.0.0.1", "localhost"), collection, embedding: EMBEDDING });
    await writer.upsert("ns", [memory("m1", "Alice")]);
    assert.deepEqual((await reader.vocabulary("ns")).persons, ["Alice"]);

    await writer.upsert("ns", [memory("m2", "Bob")]);
    assert.deepEqual((await reader.vocabulary("ns")).persons, ["Alice", "Bob"], "this process wrote: read again");

    await elsewhere.upsert("ns", [memory("m3", "Carol")]);
    assert.deepEqual((await reader.vocabulary("ns")).persons, ["Alice", "Bob"], "written elsewhere: the kept vocabulary stands within namespaceCacheMs");
    const uncached = await openQdrantStore({ url: stub.url, collection, embedding: EMBEDDING, namespaceCacheMs: 0 });
    assert.deepEqual((await uncached.vocabulary("ns")).persons, ["Alice", "Bob", "Carol"], "namespaceCacheMs 0 reads every time");

    await writer.setSettings("ns", { finalK: 4 });
    assert.deepEqual(await reader.getSettings("ns"), { finalK: 4 });
    await writer.delete("ns", ["m1"]);
    assert.deepEqual((await reader.vocabulary("ns")).persons, ["Bob", "Carol"], "a delete by this process: read again");
    for (const store of [reader, writer, elsewhere, uncached]) await store.close();
  });

  it("a caller changing what it was given changes nothing kept", async () => {
    const store = await openQdrantStore({ url: stub.url, collection: "rg_kept_copies", embedding: EMBEDDING });
    await store.upsert("ns", [memory("m1", "Alice")]);
    await store.setSettings("ns", { finalK: 4 });
    (await store.vocabulary("ns")).persons.push("Mallory");
    const settings = await store.getSettings("ns");
    if (settings) settings.finalK = 99;
    assert.deepEqual((await store.vocabulary("ns")).persons, ["Alice"]);
    assert.deepEqual(await store.getSettings("ns"), { finalK: 4 });
    await store.close();
  });
});
