/** Namespace isolation: no method reads or writes across namespaces. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { NOW, DAY, entry, record, ids, onlyNamespaces, lower, assertClose, assertValidation, type ContractContext } from "./shared.js";

export function namespaceIsolationTests({ freshStore }: ContractContext): void {
  describe("namespace isolation", () => {
    it("the same id in two namespaces is two entries, and no method crosses over", async () => {
      const store = await freshStore();
      const inA = entry("a", {
        id: "shared",
        text: "Alpha apples harvested in Avignon",
        persons: ["Anna"],
        entities: ["Apple Co"],
        location: "Avignon",
        timestamp: NOW - DAY,
        source: { documentId: "doc", version: 1 },
      });
      const inB = entry("b", {
        id: "shared",
        text: "Beta bananas shipped to Bordeaux",
        persons: ["Boris"],
        entities: ["Banana Inc"],
        location: "Bordeaux",
        timestamp: NOW,
        source: { documentId: "doc", version: 5 },
      });
      await store.upsert("a", [record(inA, [1, 0, 0, 0])]);
      await store.upsert("b", [record(inB, [0, 1, 0, 0])]);
      await store.setSettings("a", { finalK: 3 });

      assert.deepEqual(await store.get("a", ["shared"]), [inA]);
      assert.deepEqual(await store.get("b", ["shared"]), [inB]);
      assert.deepEqual(await store.get("c", ["shared"]), []);
      assert.deepEqual(onlyNamespaces(await store.denseSearch("a", [0, 1, 0, 0], { k: 10 })), ["a"]);
      assertClose((await store.denseSearch("a", [0, 1, 0, 0], { k: 10 }))[0]?.score, 0);
      assert.deepEqual(await store.lexicalSearch("a", "bananas bordeaux", { k: 10 }), []);
      assert.deepEqual(onlyNamespaces(await store.lexicalSearch("b", "bananas", { k: 10 })), ["b"]);
      assert.deepEqual(await store.filteredSearch("a", { persons: ["boris"] }, { k: 10 }), []);
      assert.deepEqual(await store.filteredSearch("a", { location: "bordeaux" }, { k: 10 }), []);
      assert.deepEqual(onlyNamespaces(await store.filteredSearch("a", { timeRange: { startMs: 0 } }, { k: 10 })), ["a"]);
      assert.deepEqual(onlyNamespaces(await store.filteredSearch("b", { timeRange: { startMs: 0 } }, { k: 10, vector: [1, 0, 0, 0] })), ["b"]);
      assert.deepEqual(await store.denseSearch("c", [1, 0, 0, 0], { k: 10 }), []);
      assert.deepEqual(lower((await store.vocabulary("a")).persons), ["anna"]);
      assert.deepEqual(lower((await store.vocabulary("b")).locations), ["bordeaux"]);
      assert.deepEqual(await store.documentVersions("a", ["doc"]), { doc: 1 });
      assert.deepEqual(await store.documentVersions("b", ["doc"]), { doc: 5 });
      assert.deepEqual(await store.documentEntryIds("c", "doc"), []);
      assert.deepEqual(await store.getSettings("a"), { finalK: 3 });
      assert.equal(await store.getSettings("b"), undefined);
      assert.deepEqual((await store.stats()).namespaces, { a: 1, b: 1 });

      assert.equal(await store.delete("c", ["shared"]), 0);
      assert.equal(await store.delete("a", ["shared"]), 1);
      assert.deepEqual(await store.get("b", ["shared"]), [inB]);
      assert.deepEqual(ids(await store.lexicalSearch("b", "bananas", { k: 10 })), ["shared"]);
      assert.equal(await store.clearNamespace("a"), 0);
      assert.deepEqual((await store.stats()).namespaces, { b: 1 });
    });

    it("an entry must belong to the namespace it is written to", async () => {
      const store = await freshStore();
      const foreign = entry("b", { id: "f", text: "belongs to b" });
      await assertValidation(store.upsert("a", [record(foreign, [1, 0, 0, 0])]), "records.0.entry.namespace");
      assert.deepEqual((await store.stats()).namespaces, {});
    });
  });
}
