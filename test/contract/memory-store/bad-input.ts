/** Bad input: refused with a ValidationError naming the field, and nothing changes. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MAX_DOCUMENT_ID_CHARS, MAX_TEXT_CHARS, type MemoryEntry } from "../../../src/memory/entry.js";
import type { MemoryFilter, MemoryRecord, MemoryStore } from "../../../src/stores/port.js";
import { entry, record, ids, assertValidation, type ContractContext } from "./shared.js";

export function badInputTests({ freshStore }: ContractContext): void {
  describe("bad input is refused with a ValidationError naming the field, and changes nothing", () => {
    const existing = (): MemoryEntry => entry("ns", { id: "existing", text: "Existing memory about gardening", persons: ["Gwen"], location: "Garden" });
    const fresh = (): MemoryEntry => entry("ns", { id: "new-good", text: "A new valid memory about hiking", persons: ["Hank"] });

    async function seededStore(): Promise<MemoryStore> {
      const store = await freshStore();
      await store.upsert("ns", [record(existing(), [1, 0, 0, 0])]);
      await store.setSettings("ns", { lexicalTopK: 4 });
      return store;
    }

    async function snapshot(store: MemoryStore): Promise<string> {
      return JSON.stringify({
        stats: (await store.stats()).namespaces,
        get: await store.get("ns", ["existing", "new-good", "bad"]),
        vocabulary: await store.vocabulary("ns"),
        lexical: ids(await store.lexicalSearch("ns", "gardening hiking memory", { k: 10 })),
        dense: ids(await store.denseSearch("ns", [1, 1, 1, 1], { k: 10 })),
        filtered: ids(await store.filteredSearch("ns", { timeRange: { startMs: 0 } }, { k: 10 })),
        settings: await store.getSettings("ns"),
      });
    }

    const badBatches: { name: string; field: string; bad: () => { entry: unknown; vector: unknown } }[] = [
      { name: "empty text", field: "records.1.entry.text", bad: () => ({ entry: { ...existing(), id: "bad", text: "" }, vector: [1, 0, 0, 0] }) },
      {
        name: "oversized text",
        field: "records.1.entry.text",
        bad: () => ({ entry: { ...existing(), id: "bad", text: "x".repeat(MAX_TEXT_CHARS + 1) }, vector: [1, 0, 0, 0] }),
      },
      { name: "invalid timestamp", field: "records.1.entry.timestamp", bad: () => ({ entry: { ...existing(), id: "bad", timestamp: "last Tuesday" }, vector: [1, 0, 0, 0] }) },
      { name: "missing entry namespace", field: "records.1.entry.namespace", bad: () => ({ entry: { ...existing(), id: "bad", namespace: undefined }, vector: [1, 0, 0, 0] }) },
      { name: "wrong vector dimension", field: "records.1.vector", bad: () => ({ entry: { ...existing(), id: "bad" }, vector: [1, 0, 0] }) },
      { name: "NaN in the vector", field: "records.1.vector.2", bad: () => ({ entry: { ...existing(), id: "bad" }, vector: [1, 0, Number.NaN, 0] }) },
      { name: "Infinity in the vector", field: "records.1.vector.0", bad: () => ({ entry: { ...existing(), id: "bad" }, vector: [Infinity, 0, 0, 0] }) },
      { name: "no vector", field: "records.1.vector", bad: () => ({ entry: { ...existing(), id: "bad" }, vector: undefined }) },
    ];
    for (const { name: caseName, field, bad } of badBatches) {
      it(`a batch with one bad entry (${caseName}) writes nothing`, async () => {
        const store = await seededStore();
        const before = await snapshot(store);
        const batch = [record(fresh(), [0, 1, 0, 0]), bad(), record({ ...existing(), text: "Replaced text about cooking" }, [0, 0, 1, 0])];
        await assertValidation(store.upsert("ns", batch as MemoryRecord[]), field);
        assert.equal(await snapshot(store), before);
      });
    }

    for (const namespace of ["", "   ", undefined, 42]) {
      it(`namespace ${JSON.stringify(namespace) ?? "undefined"} is refused by every method`, async () => {
        const store = await seededStore();
        const before = await snapshot(store);
        const ns = namespace as unknown as string;
        const calls: [string, () => Promise<unknown>][] = [
          ["upsert", () => store.upsert(ns, [record(fresh(), [0, 1, 0, 0])])],
          ["delete", () => store.delete(ns, ["existing"])],
          ["clearNamespace", () => store.clearNamespace(ns)],
          ["get", () => store.get(ns, ["existing"])],
          ["denseSearch", () => store.denseSearch(ns, [1, 0, 0, 0], { k: 3 })],
          ["lexicalSearch", () => store.lexicalSearch(ns, "gardening", { k: 3 })],
          ["filteredSearch", () => store.filteredSearch(ns, { persons: ["Gwen"] }, { k: 3 })],
          ["list", () => store.list(ns, { limit: 3 })],
          ["vocabulary", () => store.vocabulary(ns)],
          ["documentVersions", () => store.documentVersions(ns, ["doc"])],
          ["documentEntryIds", () => store.documentEntryIds(ns, "doc")],
          ["getSettings", () => store.getSettings(ns)],
          ["setSettings", () => store.setSettings(ns, { finalK: 2 })],
          ["prepareSearch", () => store.prepareSearch(ns)],
        ];
        for (const [method, call] of calls) await assertValidation(call(), "namespace", method);
        assert.equal(await snapshot(store), before);
      });
    }

    it("bad k, query vectors and filters are refused", async () => {
      const store = await seededStore();
      for (const k of [0, -1, 1.5, Number.NaN, undefined]) {
        const options = { k } as unknown as { k: number };
        await assertValidation(store.denseSearch("ns", [1, 0, 0, 0], options), "k", `dense k=${k}`);
        await assertValidation(store.lexicalSearch("ns", "gardening", options), "k", `lexical k=${k}`);
        await assertValidation(store.filteredSearch("ns", { persons: ["Gwen"] }, options), "k", `filtered k=${k}`);
      }
      await assertValidation(store.denseSearch("ns", [1, 0, 0], { k: 3 }), "vector");
      await assertValidation(store.denseSearch("ns", [1, Number.NaN, 0, 0], { k: 3 }), "vector.1");
      await assertValidation(store.filteredSearch("ns", { persons: ["Gwen"] }, { k: 3, vector: [1, 0, 0, 0, 0] }), "vector");
      await assertValidation(store.denseSearch("ns", [1, 0, 0, 0], { k: 3, filter: { persons: "Gwen" } as unknown as MemoryFilter }), "filter.persons");
      await assertValidation(store.filteredSearch("ns", { timeRange: { startMs: Number.NaN } }, { k: 3 }), "filter.timeRange.startMs");
      await assertValidation(store.filteredSearch("ns", { unknown: 1 } as unknown as MemoryFilter, { k: 3 }), "filter");
      await assertValidation(store.filteredSearch("ns", { documentId: "" }, { k: 3 }), "filter.documentId");
      await assertValidation(store.lexicalSearch("ns", "gardening", { k: 3, filter: { documentId: "d".repeat(MAX_DOCUMENT_ID_CHARS + 1) } }), "filter.documentId");
      await assertValidation(store.denseSearch("ns", [1, 0, 0, 0], { k: 3, filter: { documentId: 7 } as unknown as MemoryFilter }), "filter.documentId");
      await assertValidation(store.lexicalSearch("ns", 42 as unknown as string, { k: 3 }), "query");
      await assertValidation(store.get("ns", [""]), "ids.0");
      await assertValidation(store.setSettings("ns", { semanticTopK: 0 }), "settings.semanticTopK");
    });
  });
}
