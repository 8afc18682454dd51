/**
 * Expiry: an entry whose expiresAtMs is at or before the store's clock is absent from get, the
 * searches and list; deleteExpired removes such entries from every index, in one namespace or all.
 * The store's clock is injected (StoreExtras.clock) and moved by the cases.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { MemoryEntry } from "../../../src/memory/entry.js";
import type { MemoryStore } from "../../../src/stores/port.js";
import { NOW, HOUR, DAY, entry, record, fillerEntries, basis, ids, lower, assertValidation, type ContractContext } from "./shared.js";

/** A store whose clock reads `clock.now`, which the case moves. */
async function storeWithClock(freshStore: ContractContext["freshStore"]): Promise<{ store: MemoryStore; clock: { now: number } }> {
  const clock = { now: NOW };
  const store = await freshStore(undefined, undefined, { clock: () => clock.now });
  return { store, clock };
}

const FILLERS = 4;

/** The ids of brief/lasting/forever each read returns (fillers left out), and how many hits a read of k = 3 gets. */
async function visibleIds(store: MemoryStore, namespace: string): Promise<Record<string, string[] | number>> {
  const ours = (list: readonly string[]): string[] => list.filter((id) => !id.startsWith("filler-"));
  return {
    get: ids(await store.get(namespace, ["brief", "lasting", "forever"])),
    dense: ours(ids(await store.denseSearch(namespace, [1, 0, 0, 0], { k: 10 }))).sort(),
    denseOfThree: (await store.denseSearch(namespace, [1, 0, 0, 0], { k: 3 })).length,
    denseFiltered: ids(await store.denseSearch(namespace, [1, 0, 0, 0], { k: 10, filter: { persons: ["kim"] } })).sort(),
    lexical: ids(await store.lexicalSearch(namespace, "ephemeral quokka", { k: 10 })),
    lexicalFiltered: ids(await store.lexicalSearch(namespace, "ephemeral quokka", { k: 10, filter: { documentId: "zoo.md" } })),
    filtered: ids(await store.filteredSearch(namespace, { persons: ["kim"] }, { k: 10 })),
    filteredByVector: ids(await store.filteredSearch(namespace, { persons: ["kim"] }, { k: 10, vector: [1, 0, 0, 0] })).sort(),
    list: ours(ids((await store.list(namespace, { limit: 10 })).entries)),
    listed: (await store.list(namespace, { limit: 10 })).entries.length,
  };
}

/** What visibleIds returns when exactly the entries `live` of brief/lasting/forever are visible (with the fillers). */
function expectedVisible(live: readonly string[]): Record<string, string[] | number> {
  const keep = (list: readonly string[]): string[] => list.filter((id) => live.includes(id));
  return {
    get: keep(["brief", "lasting", "forever"]),
    dense: keep(["brief", "forever", "lasting"]),
    denseOfThree: 3,
    denseFiltered: keep(["brief", "forever", "lasting"]),
    lexical: keep(["brief"]),
    lexicalFiltered: keep(["brief"]),
    filtered: keep(["brief", "lasting", "forever"]),
    filteredByVector: keep(["brief", "forever", "lasting"]),
    list: keep(["brief", "lasting", "forever"]),
    listed: live.length + FILLERS,
  };
}

/** Three entries of one person: one expiring in an hour, one in ten days, one never; all near [1, 0, 0, 0]. */
function expiringEntries(namespace: string): MemoryEntry[] {
  return [
    entry(namespace, { id: "brief", text: "An ephemeral quokka sighting", persons: ["Kim"], source: { documentId: "zoo.md" }, expiresAt: NOW + HOUR }),
    entry(namespace, { id: "lasting", text: "A long-lived tortoise", persons: ["Kim"], timestamp: NOW - HOUR, expiresAt: NOW + 10 * DAY }),
    entry(namespace, { id: "forever", text: "An evergreen fact", persons: ["Kim"], timestamp: NOW - 2 * HOUR }),
  ];
}

async function writeExpiring(store: MemoryStore, namespace: string): Promise<void> {
  const [brief, lasting, forever] = expiringEntries(namespace) as [MemoryEntry, MemoryEntry, MemoryEntry];
  await store.upsert(namespace, [record(brief, [1, 0, 0, 0]), record(lasting, [0.8, 0.6, 0, 0]), record(forever, [0.9, 0.1, 0, 0])]);
  await store.upsert(namespace, fillerEntries(namespace, FILLERS).map((e, i) => record(e, basis(i + 1))));
}

export function expiryTests({ freshStore }: ContractContext): void {
  describe("expiry and deleteExpired", () => {
    it("an entry disappears from get, every search and list once the clock reaches its expiry", async () => {
      const { store, clock } = await storeWithClock(freshStore);
      await writeExpiring(store, "ns");
      assert.deepEqual(await visibleIds(store, "ns"), expectedVisible(["brief", "lasting", "forever"]));
      clock.now = NOW + HOUR - 1;
      assert.deepEqual(await visibleIds(store, "ns"), expectedVisible(["brief", "lasting", "forever"]), "one ms before its expiry it still lives");
      clock.now = NOW + HOUR;
      assert.deepEqual(await visibleIds(store, "ns"), expectedVisible(["lasting", "forever"]), "at its expiry it is gone");
      clock.now = NOW + 10 * DAY + 1;
      assert.deepEqual(await visibleIds(store, "ns"), expectedVisible(["forever"]));
      // Stored until pruned: stats describe what is stored, not what reads see.
      assert.deepEqual((await store.stats()).namespaces, { ns: 7 });
    });

    it("an entry upserted with an expiry already past the store's clock is stored but never returned", async () => {
      // No injected clock: the store reads Date.now(), long after NOW + HOUR.
      const store = await freshStore();
      await writeExpiring(store, "ns");
      assert.deepEqual(await visibleIds(store, "ns"), expectedVisible(["forever"]));
      assert.equal(await store.deleteExpired("ns"), 2);
      assert.deepEqual((await store.stats()).namespaces, { ns: 5 });
    });

    it("replacing an entry replaces its expiry", async () => {
      const { store, clock } = await storeWithClock(freshStore);
      await writeExpiring(store, "ns");
      clock.now = NOW + DAY;
      const renewed = entry("ns", { id: "brief", text: "An ephemeral quokka sighting", persons: ["Kim"], source: { documentId: "zoo.md" } });
      await store.upsert("ns", [record(renewed, [1, 0, 0, 0])]);
      assert.deepEqual(await store.get("ns", ["brief"]), [renewed]);
      assert.deepEqual(ids(await store.lexicalSearch("ns", "ephemeral quokka", { k: 10 })), ["brief"]);
      assert.equal(await store.deleteExpired("ns"), 0);
    });

    it("deleteExpired removes expired entries from every index and counts them, in one namespace or all", async () => {
      const { store, clock } = await storeWithClock(freshStore);
      for (const namespace of ["a", "b", "c"]) await writeExpiring(store, namespace);
      await store.upsert("calm", [record(entry("calm", { id: "stays", text: "never expires" }), basis(0))]);
      assert.equal(await store.deleteExpired("a"), 0, "nothing has expired yet");

      clock.now = NOW + HOUR;
      assert.equal(await store.deleteExpired("a"), 1);
      assert.equal(await store.deleteExpired("a"), 0, "already pruned");
      assert.equal(await store.deleteExpired("calm"), 0);
      assert.deepEqual((await store.stats()).namespaces, { a: 6, b: 7, c: 7, calm: 1 });

      // Back before the expiry: an entry left in any index would show again; b's unpruned one does.
      clock.now = NOW;
      assert.deepEqual(await visibleIds(store, "a"), expectedVisible(["lasting", "forever"]));
      assert.deepEqual(await visibleIds(store, "b"), expectedVisible(["brief", "lasting", "forever"]));
      assert.deepEqual(await store.documentEntryIds("a", "zoo.md"), []);
      assert.deepEqual(lower((await store.vocabulary("a")).persons), ["kim"], "names of the remaining entries stay");

      clock.now = NOW + 10 * DAY;
      assert.equal(await store.deleteExpired(), 5, "every namespace: a's lasting, b's and c's brief and lasting");
      assert.equal(await store.deleteExpired(), 0);
      assert.deepEqual((await store.stats()).namespaces, { a: 5, b: 5, c: 5, calm: 1 });
      clock.now = NOW;
      for (const namespace of ["a", "b", "c"]) assert.deepEqual(await visibleIds(store, namespace), expectedVisible(["forever"]), namespace);
      assert.deepEqual(ids(await store.get("calm", ["stays"])), ["stays"]);
    });

    it("refuses an expiry whose two forms disagree, and a bad namespace to prune", async () => {
      const store = await freshStore();
      const [brief] = expiringEntries("ns") as [MemoryEntry];
      const { expiresAt: _dropped, ...withoutIso } = brief;
      await assertValidation(store.upsert("ns", [record(withoutIso, [1, 0, 0, 0])]), "records.0.entry.expiresAt");
      const { expiresAtMs: _droppedMs, ...withoutMs } = brief;
      await assertValidation(store.upsert("ns", [record(withoutMs, [1, 0, 0, 0])]), "records.0.entry.expiresAtMs");
      await assertValidation(store.upsert("ns", [record({ ...brief, expiresAtMs: (brief.expiresAtMs ?? 0) + 1 }, [1, 0, 0, 0])]), "records.0.entry.expiresAtMs");
      assert.deepEqual((await store.stats()).namespaces, {});
      for (const namespace of ["", "   ", 42]) await assertValidation(store.deleteExpired(namespace as unknown as string), "namespace", JSON.stringify(namespace));
    });
  });
}
