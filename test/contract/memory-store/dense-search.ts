/** Dense search: cosine ranking and scores, with and without a filter. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { MemoryRecord } from "../../../src/stores/port.js";
import { entry, record, ids, zip, assertClose, type ContractContext } from "./shared.js";

export function denseSearchTests({ freshStore }: ContractContext): void {
  describe("dense search", () => {
    it("ranks by cosine similarity, best first, and scores it", async () => {
      const store = await freshStore();
      await store.upsert("ns", [
        record(entry("ns", { id: "opposite", text: "opposite" }), [-1, 0, 0, 0]),
        record(entry("ns", { id: "close", text: "close" }), [0.8, 0.6, 0, 0]),
        record(entry("ns", { id: "same-long", text: "same direction, longer vector" }), [3, 0, 0, 0]),
        record(entry("ns", { id: "orthogonal", text: "orthogonal" }), [0, 0, 1, 0]),
        record(entry("ns", { id: "near", text: "near" }), [0.6, 0.8, 0, 0]),
      ]);
      const hits = await store.denseSearch("ns", [2, 0, 0, 0], { k: 10 });
      assert.deepEqual(ids(hits), ["same-long", "close", "near", "orthogonal", "opposite"]);
      for (const [hit, expected] of zip(hits, [1, 0.8, 0.6, 0, -1])) assertClose(hit.score, expected);
      assert.deepEqual(ids(await store.denseSearch("ns", [0, 1, 0, 0], { k: 2 })), ["near", "close"]);
    });

    it("with a filter returns only matches, still up to k, in similarity order", async () => {
      const store = await freshStore();
      const records: MemoryRecord[] = [];
      for (let i = 0; i < 12; i += 1) {
        const person = i % 3 === 0 ? "Alice" : "Bob";
        const angle = (i / 12) * (Math.PI / 2);
        records.push(record(entry("ns", { id: `e${i}`, text: `memory ${i}`, persons: [person] }), [Math.cos(angle), Math.sin(angle), 0, 0]));
      }
      await store.upsert("ns", records);
      const hits = await store.denseSearch("ns", [1, 0, 0, 0], { k: 3, filter: { persons: ["alice"] } });
      assert.deepEqual(ids(hits), ["e0", "e3", "e6"]);
      const bobs = await store.denseSearch("ns", [0, 1, 0, 0], { k: 4, filter: { persons: ["BOB"] } });
      assert.deepEqual(ids(bobs), ["e11", "e10", "e8", "e7"]);
      assert.ok(bobs.every((hit, i) => i === 0 || (bobs[i - 1]?.score ?? Infinity) >= hit.score));
    });

    it("with a documentId filter returns only that document's entries", async () => {
      const store = await freshStore();
      const records: MemoryRecord[] = [];
      for (let i = 0; i < 8; i += 1) {
        const documentId = i % 2 ? "odd.md" : "even.md";
        const angle = (i / 8) * (Math.PI / 2);
        records.push(record(entry("ns", { id: `d${i}`, text: `chunk ${i}`, source: { documentId, version: 1 } }), [Math.cos(angle), Math.sin(angle), 0, 0]));
      }
      records.push(record(entry("ns", { id: "loose", text: "no document" }), [1, 0, 0, 0]));
      await store.upsert("ns", records);
      assert.deepEqual(ids(await store.denseSearch("ns", [1, 0, 0, 0], { k: 3, filter: { documentId: "odd.md" } })), ["d1", "d3", "d5"]);
      assert.deepEqual(ids(await store.denseSearch("ns", [0, 1, 0, 0], { k: 2, filter: { documentId: "even.md", persons: [] } })), ["d6", "d4"]);
      assert.deepEqual(await store.denseSearch("ns", [1, 0, 0, 0], { k: 3, filter: { documentId: "odd" } }), []);
    });
  });
}
