/**
 * Namespace isolation at the store port, for both adapters: sqlite (":memory:") and Qdrant through the
 * loopback SpecCheckingQdrantStub (not a real Qdrant; skipped without its OpenAPI spec). Every search
 * and list of one namespace, and its supersession lookup, returns only that namespace's own entries,
 * whatever the filter and query (the world's entries supersede ids every namespace uses).
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import type { RecallGraph } from "../../src/library/open-recallgraph.js";
import { RecallFilterSchema, toMemoryFilter } from "../../src/stores/caller-filter.js";
import type { MemoryEntry } from "../../src/memory/entry.js";
import type { MemoryFilter, MemoryStore } from "../../src/stores/port.js";
import { openQdrantStore } from "../../src/stores/qdrant.js";
import type { Embedder } from "../../src/text/embedder.js";
import { qdrantSpecAvailable, QDRANT_SPEC_PATH } from "../stores/qdrant-spec.js";
import { SpecCheckingQdrantStub } from "../stores/qdrant-stub.js";
import { openIsolationMemory } from "./support.js";
import { assertOwnEntry, callerFilter, ID_POOL, loadWorld, NAMESPACE_POOL, question, runs, Seen, worldSpec, type World } from "./world.js";

/** The store form of a caller filter, or none. */
function storeFilter(filter: unknown): MemoryFilter | undefined {
  return filter === undefined ? undefined : toMemoryFilter(RecallFilterSchema.parse(filter));
}

/** Every read of the port that takes a namespace and returns entries, checked for each namespace of the world (and one it does not hold). */
async function checkEveryRead(store: MemoryStore, embedder: Embedder, world: World, query: string, filter: MemoryFilter | undefined, seen: Seen): Promise<void> {
  const vector = await embedder.embeddings.embedQuery(query);
  const absent = NAMESPACE_POOL.find((namespace) => !world.namespaces.includes(namespace)) ?? "nobody";
  for (const namespace of [...world.namespaces, absent]) {
    const searched: Array<readonly [read: string, entry: MemoryEntry]> = [
      ...(await store.denseSearch(namespace, vector, { k: 50, ...(filter ? { filter } : {}) })).map((hit) => ["denseSearch", hit.entry] as const),
      ...(await store.lexicalSearch(namespace, query, { k: 50, ...(filter ? { filter } : {}) })).map((hit) => ["lexicalSearch", hit.entry] as const),
      ...(filter ? await store.filteredSearch(namespace, filter, { k: 50 }) : []).map((hit) => ["filteredSearch", hit.entry] as const),
      ...(filter ? await store.filteredSearch(namespace, filter, { k: 50, vector }) : []).map((hit) => ["filteredSearch+vector", hit.entry] as const),
      ...(await store.supersedersOf(namespace, [...ID_POOL])).map((entry) => ["supersedersOf", entry] as const),
    ];
    for (const [read, entry] of searched) assertOwnEntry(entry, world, namespace, read);
    let cursor: string | undefined;
    do {
      const page = await store.list(namespace, { limit: 2, ...(filter ? { filter } : {}), ...(cursor ? { cursor } : {}) });
      for (const entry of page.entries) assertOwnEntry(entry, world, namespace, "list");
      searched.push(...page.entries.map((entry) => ["list", entry] as const));
      cursor = page.nextCursor;
    } while (cursor);
    seen.add("entry", searched.length);
  }
}

/** The port property over one adapter: a store opened once, every run rewriting its world. */
function portProperty(name: string, open: () => Promise<RecallGraph>): void {
  describe(`isolation at the store port: ${name}`, () => {
    let memory: RecallGraph | undefined;
    before(async () => {
      memory = await open();
    });
    after(() => memory?.close());

    it("denseSearch, lexicalSearch, filteredSearch and list of a namespace return its own entries alone", async () => {
      const seen = new Seen();
      await fc.assert(
        fc.asyncProperty(fc.record({ spec: worldSpec, question, filter: callerFilter }), async ({ spec, question, filter }) => {
          assert.ok(memory);
          const world = await loadWorld(memory, spec);
          await checkEveryRead(memory.store, memory.embedder, world, question, storeFilter(filter), seen);
        }),
        runs(15),
      );
      seen.assertSome("entry");
    });
  });
}

portProperty("sqlite :memory:", () => openIsolationMemory());

const SKIP = qdrantSpecAvailable() ? false : `Qdrant OpenAPI spec not found at ${QDRANT_SPEC_PATH}: stub isolation property skipped`;
if (SKIP) console.log(`# SKIP ${SKIP}`);

describe("qdrant via SpecCheckingQdrantStub (not a real Qdrant)", { skip: SKIP }, () => {
  let stub: SpecCheckingQdrantStub | undefined;
  before(async () => {
    stub = await SpecCheckingQdrantStub.start();
  });
  after(() => stub?.close());

  portProperty("qdrant adapter + stub", () =>
    openIsolationMemory((embedder) => {
      if (!stub) throw new Error("stub not started");
      return openQdrantStore({ url: stub.url, collection: "isolation", embedding: embedder.spec });
    }),
  );

  it("every request of the property satisfied Qdrant's OpenAPI spec", () => {
    assert.ok(stub && stub.requests.length > 0);
    assert.deepEqual(stub.violations, []);
  });
});
