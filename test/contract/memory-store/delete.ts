/** Removal: delete and clearNamespace take an entry out of every view, and only what they were asked to. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { entry, record, ids, lower, type ContractContext } from "./shared.js";

export function deleteAndClearNamespaceTests({ freshStore }: ContractContext): void {
  describe("delete and clearNamespace", () => {
    it("delete removes entries from every view and counts only what existed", async () => {
      const store = await freshStore();
      const gone = entry("ns", {
        id: "gone",
        text: "Zephyr the parrot speaks Portuguese",
        persons: ["Zoe"],
        entities: ["Zephyr"],
        location: "Porto",
        source: { documentId: "doc-z", version: 1 },
      });
      const kept = entry("ns", { id: "kept", text: "Yara plays the violin", persons: ["Yara"], source: { documentId: "doc-z", version: 1 } });
      await store.upsert("ns", [record(gone, [1, 0, 0, 0]), record(kept, [0, 1, 0, 0])]);
      assert.equal(await store.delete("ns", ["gone", "never-existed"]), 1);
      assert.equal(await store.delete("ns", ["gone"]), 0);
      assert.deepEqual(await store.get("ns", ["gone", "kept"]), [kept]);
      assert.deepEqual(ids(await store.denseSearch("ns", [1, 0, 0, 0], { k: 10 })), ["kept"]);
      assert.deepEqual(ids(await store.lexicalSearch("ns", "zephyr parrot portuguese", { k: 10 })), []);
      assert.deepEqual(ids(await store.filteredSearch("ns", { persons: ["Zoe"] }, { k: 10 })), []);
      assert.deepEqual(ids(await store.filteredSearch("ns", { location: "porto" }, { k: 10 })), []);
      assert.deepEqual(ids(await store.filteredSearch("ns", { timeRange: { startMs: 0 } }, { k: 10 })), ["kept"]);
      const vocabulary = await store.vocabulary("ns");
      assert.deepEqual(lower(vocabulary.persons), ["yara"]);
      assert.deepEqual(vocabulary.entities, []);
      assert.deepEqual(vocabulary.locations, []);
      assert.deepEqual(await store.documentEntryIds("ns", "doc-z"), ["kept"]);
      assert.deepEqual((await store.stats()).namespaces, { ns: 1 });
    });

    it("clearNamespace removes every entry and the settings of that namespace only", async () => {
      const store = await freshStore();
      await store.upsert("a", [record(entry("a", { id: "1", text: "Quentin likes quinoa", persons: ["Quentin"] }), [1, 0, 0, 0])]);
      await store.upsert("a", [record(entry("a", { id: "2", text: "Rita likes rice", persons: ["Rita"] }), [0, 1, 0, 0])]);
      await store.upsert("b", [record(entry("b", { id: "1", text: "Quentin likes quinoa", persons: ["Quentin"] }), [1, 0, 0, 0])]);
      await store.setSettings("a", { semanticTopK: 7 });
      await store.setSettings("b", { semanticTopK: 9 });
      assert.equal(await store.clearNamespace("a"), 2);
      assert.equal(await store.clearNamespace("a"), 0);
      assert.deepEqual(await store.get("a", ["1", "2"]), []);
      assert.deepEqual(await store.denseSearch("a", [1, 0, 0, 0], { k: 10 }), []);
      assert.deepEqual(await store.lexicalSearch("a", "quinoa", { k: 10 }), []);
      assert.deepEqual(await store.filteredSearch("a", { persons: ["quentin"] }, { k: 10 }), []);
      assert.deepEqual(await store.vocabulary("a"), { persons: [], entities: [], locations: [] });
      assert.equal(await store.getSettings("a"), undefined);
      // Namespace b is untouched.
      assert.deepEqual(ids(await store.lexicalSearch("b", "quinoa", { k: 10 })), ["1"]);
      assert.deepEqual(await store.getSettings("b"), { semanticTopK: 9 });
      assert.deepEqual((await store.stats()).namespaces, { b: 1 });
    });
  });
}
