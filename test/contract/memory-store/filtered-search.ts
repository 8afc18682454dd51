/** Filtered search: each condition's matching rule, how they combine, and the order of the results. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { MemoryEntry } from "../../../src/memory/entry.js";
import type { MemoryFilter, MemoryStore } from "../../../src/stores/port.js";
import { NOW, DAY, entry, record, ids, assertClose, type ContractContext } from "./shared.js";

export function filteredSearchTests({ freshStore }: ContractContext): void {
  describe("filtered search", () => {
    async function seeded(): Promise<MemoryStore> {
      const store = await freshStore();
      const entries = [
        entry("ns", { id: "paris-alice", text: "t1", persons: ["Alice"], entities: ["Louvre"], location: "Paris, France", timestamp: NOW - 3 * DAY, source: { documentId: "trip/notes.md", version: 1 } }),
        entry("ns", { id: "paris-bob", text: "t2", persons: ["Bob"], entities: ["Eiffel Tower"], location: "paris", timestamp: NOW - 2 * DAY }),
        entry("ns", { id: "rome-alice", text: "t3", persons: ["Alice", "Carol"], entities: ["Colosseum"], location: "Rome", timestamp: NOW - DAY, source: { documentId: "trip/notes.md", version: 2 } }),
        entry("ns", { id: "nowhere-dave", text: "t4", persons: ["Dave"], timestamp: NOW, source: { documentId: "trip/notes.md.bak" } }),
        entry("ns", { id: "alicia", text: "t5", persons: ["Alicia"], location: "Harissa Lane", timestamp: NOW - 4 * DAY }),
      ];
      await store.upsert("ns", [
        record(entries[0] as MemoryEntry, [1, 0, 0, 0]),
        record(entries[1] as MemoryEntry, [0, 1, 0, 0]),
        record(entries[2] as MemoryEntry, [0.6, 0.8, 0, 0]),
        record(entries[3] as MemoryEntry, [0, 0, 1, 0]),
        record(entries[4] as MemoryEntry, [0, 0, 0, 1]),
      ]);
      return store;
    }
    const search = async (store: MemoryStore, filter: MemoryFilter, k = 10): Promise<string[]> => ids(await store.filteredSearch("ns", filter, { k }));

    it("persons: any of the names, whole name, case-insensitive; newest first", async () => {
      const store = await seeded();
      assert.deepEqual(await search(store, { persons: ["alice"] }), ["rome-alice", "paris-alice"]);
      assert.deepEqual(await search(store, { persons: ["ALICE", "dave"] }), ["nowhere-dave", "rome-alice", "paris-alice"]);
      assert.deepEqual(await search(store, { persons: ["Ali"] }), [], "a part of a name is not the name");
      assert.deepEqual(await search(store, { persons: ["nobody"] }), []);
    });

    it("entities: any of, whole name, case-insensitive", async () => {
      const store = await seeded();
      assert.deepEqual(await search(store, { entities: ["eiffel tower", "COLOSSEUM"] }), ["rome-alice", "paris-bob"]);
      assert.deepEqual(await search(store, { entities: ["Eiffel"] }), []);
    });

    it("location: case-insensitive substring", async () => {
      const store = await seeded();
      assert.deepEqual(await search(store, { location: "PARIS" }), ["paris-bob", "paris-alice"]);
      assert.deepEqual(await search(store, { location: "aris" }), ["paris-bob", "paris-alice", "alicia"]);
      assert.deepEqual(await search(store, { location: ", fr" }), ["paris-alice"]);
      assert.deepEqual(await search(store, { location: "%" }), [], "no wildcard characters");
    });

    it("time range: start inclusive, end exclusive, either side open", async () => {
      const store = await seeded();
      assert.deepEqual(await search(store, { timeRange: { startMs: NOW - 2 * DAY, endMs: NOW } }), ["rome-alice", "paris-bob"]);
      assert.deepEqual(await search(store, { timeRange: { startMs: NOW - DAY } }), ["nowhere-dave", "rome-alice"]);
      assert.deepEqual(await search(store, { timeRange: { endMs: NOW - 3 * DAY } }), ["alicia"]);
      assert.deepEqual(await search(store, { timeRange: { startMs: NOW, endMs: NOW + 1 } }), ["nowhere-dave"]);
      assert.deepEqual(await search(store, { timeRange: { startMs: NOW, endMs: NOW } }), []);
    });

    it("documentId: the source document exactly, any version", async () => {
      const store = await seeded();
      assert.deepEqual(await search(store, { documentId: "trip/notes.md" }), ["rome-alice", "paris-alice"]);
      assert.deepEqual(await search(store, { documentId: "trip/notes.md.bak" }), ["nowhere-dave"]);
      assert.deepEqual(await search(store, { documentId: "TRIP/NOTES.MD" }), [], "case-sensitive");
      assert.deepEqual(await search(store, { documentId: "trip" }), [], "not a prefix or substring match");
      assert.deepEqual(await search(store, { documentId: "trip/notes.md", location: "rome" }), ["rome-alice"]);
      const ranked = await store.filteredSearch("ns", { documentId: "trip/notes.md" }, { k: 5, vector: [1, 0, 0, 0] });
      assert.deepEqual(ids(ranked), ["paris-alice", "rome-alice"]);
    });

    it("conditions combine with AND", async () => {
      const store = await seeded();
      assert.deepEqual(await search(store, { persons: ["alice"], location: "paris" }), ["paris-alice"]);
      assert.deepEqual(await search(store, { persons: ["alice", "bob"], location: "paris", timeRange: { startMs: NOW - 2 * DAY } }), ["paris-bob"]);
      assert.deepEqual(await search(store, { persons: ["alice"], entities: ["louvre"], location: "rome" }), []);
    });

    it("an empty filter (or only empty lists) returns nothing", async () => {
      const store = await seeded();
      assert.deepEqual(await search(store, {}), []);
      assert.deepEqual(await search(store, { persons: [], entities: [] }), []);
      assert.deepEqual(await search(store, { timeRange: {} }), []);
      assert.deepEqual(await search(store, { persons: ["  "] }), [], "a blank name is a condition nothing meets, not a dropped one");
    });

    it("ranks by similarity to a vector when one is given, else newest first; k limits", async () => {
      const store = await seeded();
      const filter: MemoryFilter = { timeRange: { startMs: NOW - 10 * DAY } };
      assert.deepEqual(await search(store, filter, 3), ["nowhere-dave", "rome-alice", "paris-bob"]);
      const ranked = await store.filteredSearch("ns", filter, { k: 2, vector: [1, 0, 0, 0] });
      assert.deepEqual(ids(ranked), ["paris-alice", "rome-alice"]);
      assertClose(ranked[0]?.score, 1);
      assertClose(ranked[1]?.score, 0.6);
      const alices = await store.filteredSearch("ns", { persons: ["alice"] }, { k: 5, vector: [0, 1, 0, 0] });
      assert.deepEqual(ids(alices), ["rome-alice", "paris-alice"]);
    });
  });
}
