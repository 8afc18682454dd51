/** Writes: upsert returns through get, replacing an id rewrites every view, a batch may not repeat an id. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { NOW, DAY, entry, record, fillerEntries, ids, lower, assertClose, assertValidation, type ContractContext } from "./shared.js";

export function upsertGetReplaceTests({ freshStore }: ContractContext): void {
  describe("upsert, get, replace", () => {
    it("returns what was written, in the order asked, skipping unknown ids", async () => {
      const store = await freshStore();
      const a = entry("ns", { id: "a", text: "Alice said: I adopted a cat named Miso", speaker: "Alice", keywords: ["cat", "Miso"] });
      const b = entry("ns", { id: "b", text: "Bob moved to Lisbon", persons: ["Bob"], location: "Lisbon", source: { documentId: "doc-1", version: 2 } });
      await store.upsert("ns", [record(a, [1, 0, 0, 0]), record(b, [0, 1, 0, 0])]);
      assert.deepEqual(await store.get("ns", ["b", "missing", "a"]), [b, a]);
      assert.deepEqual(await store.get("ns", []), []);
      assert.deepEqual((await store.stats()).namespaces, { ns: 2 });
    });

    it("an empty batch is a no-op", async () => {
      const store = await freshStore();
      await store.upsert("ns", []);
      assert.deepEqual((await store.stats()).namespaces, {});
    });

    it("replacing an id updates the entry and every view, with no stale index rows", async () => {
      const store = await freshStore();
      const filler = fillerEntries("ns", 6);
      await store.upsert("ns", filler.map((e, i) => record(e, [0, 0, 1, i / 10])));
      const before = entry("ns", {
        id: "x",
        text: "Alice ate apricots in Paris",
        persons: ["Alice"],
        entities: ["Apricot Farm"],
        location: "Paris",
        keywords: ["apricots"],
        timestamp: NOW - 5 * DAY,
        source: { documentId: "doc-old", version: 1 },
      });
      await store.upsert("ns", [record(before, [1, 0, 0, 0])]);
      const after = entry("ns", {
        id: "x",
        text: "Bob bought blueberries in Berlin",
        persons: ["Bob"],
        entities: ["Berry Market"],
        location: "Berlin",
        keywords: ["blueberries"],
        timestamp: NOW,
        source: { documentId: "doc-new", version: 3 },
      });
      await store.upsert("ns", [record(after, [0, 1, 0, 0])]);

      assert.deepEqual(await store.get("ns", ["x"]), [after]);
      assert.equal((await store.stats()).namespaces.ns, 7);
      // Lexical: the old words are gone, the new ones found.
      assert.deepEqual(ids(await store.lexicalSearch("ns", "apricots", { k: 10 })), []);
      assert.deepEqual(ids(await store.lexicalSearch("ns", "blueberries", { k: 10 })), ["x"]);
      // Dense: one hit for x, scored against the new vector only.
      const dense = await store.denseSearch("ns", [0, 1, 0, 0], { k: 10 });
      assert.equal(dense.filter((hit) => hit.entry.id === "x").length, 1);
      assert.equal(dense[0]?.entry.id, "x");
      assertClose(dense[0]?.score, 1);
      const oldDirection = await store.denseSearch("ns", [1, 0, 0, 0], { k: 10 });
      assertClose(oldDirection.find((hit) => hit.entry.id === "x")?.score, 0);
      // Filters: old persons, entities, location, time and document no longer match.
      assert.deepEqual(ids(await store.filteredSearch("ns", { persons: ["Alice"] }, { k: 10 })), []);
      assert.deepEqual(ids(await store.filteredSearch("ns", { entities: ["apricot farm"] }, { k: 10 })), []);
      assert.deepEqual(ids(await store.filteredSearch("ns", { location: "paris" }, { k: 10 })), []);
      assert.deepEqual(ids(await store.filteredSearch("ns", { timeRange: { startMs: NOW - 6 * DAY, endMs: NOW - 4 * DAY } }, { k: 10 })), []);
      assert.deepEqual(ids(await store.filteredSearch("ns", { persons: ["bob"] }, { k: 10 })), ["x"]);
      assert.deepEqual(ids(await store.filteredSearch("ns", { location: "BERL" }, { k: 10 })), ["x"]);
      // Vocabulary and documents follow.
      const vocabulary = await store.vocabulary("ns");
      assert.deepEqual(lower(vocabulary.persons), ["bob"]);
      assert.deepEqual(lower(vocabulary.entities), ["berry market"]);
      assert.deepEqual(lower(vocabulary.locations), ["berlin"]);
      assert.deepEqual(await store.documentVersions("ns", ["doc-old", "doc-new"]), { "doc-new": 3 });
      assert.deepEqual(await store.documentEntryIds("ns", "doc-old"), []);
    });

    it("refuses a batch with the same id twice", async () => {
      const store = await freshStore();
      const first = entry("ns", { id: "dup", text: "first" });
      const second = entry("ns", { id: "dup", text: "second" });
      await assertValidation(store.upsert("ns", [record(first, [1, 0, 0, 0]), record(second, [0, 1, 0, 0])]), "records.1.entry.id");
      assert.deepEqual(await store.get("ns", ["dup"]), []);
    });
  });
}
