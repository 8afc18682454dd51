/** Embedding spec and lifecycle: reopening with another embedder, the spec reported, calls after close. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { EmbedderMismatchError, StoreError } from "../../../src/core/errors.js";
import { CONTRACT_EMBEDDING, entry, record, assertValidation, type ContractContext } from "./shared.js";

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

    it("refuses every call after close with a StoreError", async () => {
      const store = await freshStore();
      await store.close();
      await assert.rejects(store.get("ns", ["a"]), StoreError);
      await assert.rejects(store.upsert("ns", []), StoreError);
    });
  });
}
