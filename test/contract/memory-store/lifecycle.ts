/** Embedding spec and lifecycle: reopening with another embedder, the spec reported, calls after close. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { EmbedderMismatchError, StoreError } from "../../../src/core/errors.js";
import { CONTRACT_EMBEDDING, basis, entry, fillerEntries, ids, record, assertValidation, type ContractContext } from "./shared.js";

export function embeddingAndLifecycleTests({ freshStore, newBackend, options }: ContractContext): void {
  describe("embedding spec and lifecycle", () => {
    it(
      "refuses to reopen with another embedding model or dimension, and keeps the data",
      { skip: options.reopenable ? false : "this backend does not outlive its store (e.g. :memory:)" },
      async () => {
        const backend = newBackend("reopen");
        const first = await freshStore(CONTRACT_EMBEDDING, backend);
        const kept = entry("ns", { id: "kept", text: "survives a reopen" });
        await first.upsert("ns", [record(kept, [1, 0, 0, 0])]);
        await first.close();
        await assert.rejects(freshStore({ model: "another-model", dimension: CONTRACT_EMBEDDING.dimension }, backend), EmbedderMismatchError);
        await assert.rejects(freshStore({ model: CONTRACT_EMBEDDING.model, dimension: 8 }, backend), EmbedderMismatchError);
        const again = await freshStore(CONTRACT_EMBEDDING, backend);
        assert.deepEqual(again.embedding, CONTRACT_EMBEDDING);
        assert.deepEqual(await again.get("ns", ["kept"]), [kept]);
      },
    );

    it("reports the embedding spec it was opened with", async () => {
      const store = await freshStore({ model: "contract-test-embedder-8", dimension: 8 });
      assert.deepEqual(store.embedding, { model: "contract-test-embedder-8", dimension: 8 });
      await assertValidation(store.denseSearch("ns", [1, 0, 0, 0], { k: 1 }), "vector");
    });

    it("prepares a namespace's search without changing any answer, before and after more writes", async () => {
      const store = await freshStore();
      const entries = [...fillerEntries("ns", 6), entry("ns", { id: "heron", text: "A heron stood by the kayak at dawn", persons: ["Ada"] })];
      await store.upsert("ns", entries.map((e, i) => record(e, basis(i))));
      const answers = async () => ({
        dense: ids(await store.denseSearch("ns", [0, 1, 0, 0], { k: 4 })),
        lexical: ids(await store.lexicalSearch("ns", "heron kayak", { k: 4 })),
        filtered: ids(await store.filteredSearch("ns", { persons: ["Ada"] }, { k: 4 })),
      });
      const before = await answers();
      const prepared = await store.prepareSearch("ns");
      assert.equal(typeof prepared.termsHeld, "boolean");
      assert.ok(["current", "loaded", "built", "not-indexed"].includes(prepared.vectorIndex), prepared.vectorIndex);
      assert.deepEqual(await answers(), before);
      assert.equal((await store.prepareSearch("empty")).vectorIndex, "not-indexed", "a namespace with nothing in it has no index");
      await store.upsert("ns", [record(entry("ns", { id: "heron-2", text: "The heron came back to the kayak", persons: ["Ada"] }), [0, 1, 0, 0])]);
      await store.prepareSearch("ns");
      assert.equal((await answers()).lexical.includes("heron-2"), true, "what was written after is found");
    });

    it("refuses every call after close with a StoreError", async () => {
      const store = await freshStore();
      await store.close();
      await assert.rejects(store.get("ns", ["a"]), StoreError);
      await assert.rejects(store.upsert("ns", []), StoreError);
      await assert.rejects(store.prepareSearch("ns"), StoreError);
    });
  });
}
