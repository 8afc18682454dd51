/**
 * Supersession and validity: an entry keeps its `validFrom`, `validUntil` and `supersedes` as written;
 * `supersedersOf` finds the live entries of one namespace that name an id, newest first, and follows
 * every write, replacement, delete, expiry and clear. A superseded entry stays in every read: it is
 * history, never deleted by being superseded.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { MemoryStore } from "../../../src/stores/port.js";
import { NOW, HOUR, DAY, entry, record, basis, ids, assertValidation, type ContractContext } from "./shared.js";

/** "old" said a day before "newer", which supersedes it, and "newest", which supersedes both; "other" is unrelated. */
async function writeChain(store: MemoryStore, namespace: string): Promise<void> {
  await store.upsert(namespace, [
    record(entry(namespace, { id: "old", text: "Dana lives in Lund", persons: ["Dana"], timestamp: NOW - 2 * DAY, validUntil: NOW - DAY }), basis(0)),
    record(entry(namespace, { id: "newer", text: "Dana moved to Malmö", persons: ["Dana"], timestamp: NOW - DAY, validFrom: NOW - DAY, supersedes: ["old"] }), basis(1)),
    record(entry(namespace, { id: "newest", text: "Dana moved to Oslo", persons: ["Dana"], timestamp: NOW, supersedes: ["newer", "old"] }), basis(2)),
    record(entry(namespace, { id: "other", text: "Eli plays chess", persons: ["Eli"], timestamp: NOW }), basis(3)),
  ]);
}

export function supersessionTests({ freshStore }: ContractContext): void {
  describe("supersession and validity", () => {
    it("keeps validFrom, validUntil and supersedes as written, and the superseded entry in every read", async () => {
      const store = await freshStore();
      await writeChain(store, "ns");
      const [old, newer, newest] = await store.get("ns", ["old", "newer", "newest"]);
      assert.equal(old?.validUntil, new Date(NOW - DAY).toISOString());
      assert.equal(old?.supersedes, undefined);
      assert.equal(newer?.validFrom, new Date(NOW - DAY).toISOString());
      assert.deepEqual(newer?.supersedes, ["old"]);
      assert.deepEqual(newest?.supersedes, ["newer", "old"]);
      assert.deepEqual(ids(await store.denseSearch("ns", basis(0), { k: 1 })), ["old"]);
      assert.deepEqual(ids(await store.lexicalSearch("ns", "Lund", { k: 5 })), ["old"]);
      assert.deepEqual(ids(await store.filteredSearch("ns", { persons: ["dana"] }, { k: 5 })), ["newest", "newer", "old"]);
    });

    it("supersedersOf answers who replaced an id, newest first, each once, and nothing for an id no one replaced", async () => {
      const store = await freshStore();
      await writeChain(store, "ns");
      assert.deepEqual(ids(await store.supersedersOf("ns", ["old"])), ["newest", "newer"]);
      assert.deepEqual(ids(await store.supersedersOf("ns", ["newer"])), ["newest"]);
      assert.deepEqual(ids(await store.supersedersOf("ns", ["old", "newer"])), ["newest", "newer"], "an entry naming both ids comes once");
      assert.deepEqual(await store.supersedersOf("ns", ["newest", "other", "never-written"]), []);
      assert.deepEqual(await store.supersedersOf("ns", []), []);
    });

    it("never answers from another namespace, though its entries name the same ids", async () => {
      const store = await freshStore();
      await writeChain(store, "a");
      await store.upsert("b", [record(entry("b", { id: "intruder", text: "Dana moved to Rome", supersedes: ["old", "other"] }), basis(0))]);
      assert.deepEqual(ids(await store.supersedersOf("a", ["old"])), ["newest", "newer"]);
      assert.deepEqual(await store.supersedersOf("a", ["other"]), []);
      assert.deepEqual(ids(await store.supersedersOf("b", ["old", "other"])), ["intruder"]);
      assert.deepEqual(await store.supersedersOf("c", ["old"]), []);
    });

    it("follows replacement, delete and clearNamespace; deleting the superseded leaves its superseder as written", async () => {
      const store = await freshStore();
      await writeChain(store, "ns");
      await store.upsert("ns", [record(entry("ns", { id: "newest", text: "Dana moved to Oslo", timestamp: NOW }), basis(2))]);
      assert.deepEqual(ids(await store.supersedersOf("ns", ["old"])), ["newer"], "a replacement without supersedes links nothing");
      assert.deepEqual(await store.supersedersOf("ns", ["newer"]), []);
      assert.equal(await store.delete("ns", ["old"]), 1);
      assert.deepEqual((await store.get("ns", ["newer"]))[0]?.supersedes, ["old"]);
      assert.deepEqual(ids(await store.supersedersOf("ns", ["old"])), ["newer"]);
      assert.equal(await store.delete("ns", ["newer"]), 1);
      assert.deepEqual(await store.supersedersOf("ns", ["old"]), []);
      await writeChain(store, "ns");
      await store.clearNamespace("ns");
      assert.deepEqual(await store.supersedersOf("ns", ["old", "newer"]), []);
    });

    it("leaves out an expired superseder, and forgets it once pruned", async () => {
      const clock = { now: NOW };
      const store = await freshStore(undefined, undefined, { clock: () => clock.now });
      await store.upsert("ns", [
        record(entry("ns", { id: "old", text: "The sprint ends April 1" }), basis(0)),
        record(entry("ns", { id: "brief", text: "The sprint ends April 5", supersedes: ["old"], expiresAt: NOW + HOUR }), basis(1)),
      ]);
      assert.deepEqual(ids(await store.supersedersOf("ns", ["old"])), ["brief"]);
      clock.now = NOW + HOUR;
      assert.deepEqual(await store.supersedersOf("ns", ["old"]), []);
      assert.equal(await store.deleteExpired("ns"), 1);
      assert.deepEqual(await store.supersedersOf("ns", ["old"]), []);
      assert.deepEqual(ids(await store.get("ns", ["old"])), ["old"]);
    });

    it("refuses a bad namespace or id list, naming the field", async () => {
      const store = await freshStore();
      await assertValidation(store.supersedersOf(" ns", ["a"]), "namespace");
      await assertValidation(store.supersedersOf("ns", "a" as unknown as string[]), "ids");
      await assertValidation(store.supersedersOf("ns", [""]), "ids.0");
    });
  });
}
