/** Per-namespace metadata: settings, vocabulary, document versions and entry ids, stats. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MAX_DOCUMENT_ID_CHARS } from "../../../src/memory/entry.js";
import { entry, record, fillerEntries, basis, lower, type ContractContext } from "./shared.js";

export function settingsVocabularyDocumentsStatsTests({ freshStore }: ContractContext): void {
  describe("settings, vocabulary, documents, stats", () => {
    it("settings round-trip per namespace and are replaced as a whole", async () => {
      const store = await freshStore();
      assert.equal(await store.getSettings("ns"), undefined);
      await store.setSettings("ns", { semanticTopK: 30, lexicalMinRelative: 0.25, denseMinScore: -0.5 });
      assert.deepEqual(await store.getSettings("ns"), { semanticTopK: 30, lexicalMinRelative: 0.25, denseMinScore: -0.5 });
      await store.setSettings("ns", { finalK: 8 });
      assert.deepEqual(await store.getSettings("ns"), { finalK: 8 });
      assert.equal(await store.getSettings("other"), undefined);
    });

    it("vocabulary lists each person, entity and location once, case-insensitively, in a stored spelling", async () => {
      const store = await freshStore();
      await store.upsert("ns", [
        record(entry("ns", { id: "1", text: "one", persons: ["Alice", "Bob"], entities: ["Acme Corp"], location: "New York" }), [1, 0, 0, 0]),
        record(entry("ns", { id: "2", text: "two", persons: ["alice", "Carol"], entities: ["ACME CORP", "Globex"], location: "new york" }), [0, 1, 0, 0]),
        record(entry("ns", { id: "3", text: "three", location: "Osaka" }), [0, 0, 1, 0]),
      ]);
      const vocabulary = await store.vocabulary("ns");
      assert.deepEqual(lower(vocabulary.persons), ["alice", "bob", "carol"]);
      assert.deepEqual(lower(vocabulary.entities), ["acme corp", "globex"]);
      assert.deepEqual(lower(vocabulary.locations), ["new york", "osaka"]);
      const spellings = new Set(["Alice", "alice", "Bob", "Carol", "Acme Corp", "ACME CORP", "Globex", "New York", "new york", "Osaka"]);
      for (const name of [...vocabulary.persons, ...vocabulary.entities, ...vocabulary.locations]) assert.ok(spellings.has(name), name);
    });

    it("documentVersions gives each document's highest version (no version counts as 1); documentEntryIds lists its entries", async () => {
      const store = await freshStore();
      await store.upsert("ns", [
        record(entry("ns", { id: "d1-a", text: "chunk a", source: { documentId: "d1", version: 1 } }), [1, 0, 0, 0]),
        record(entry("ns", { id: "d1-b", text: "chunk b", source: { documentId: "d1", version: 2 } }), [0, 1, 0, 0]),
        record(entry("ns", { id: "d2-a", text: "chunk c", source: { documentId: "d2" } }), [0, 0, 1, 0]),
        record(entry("ns", { id: "turn", text: "from a dialogue", source: { turnIds: ["D1:3"] } }), [0, 0, 0, 1]),
      ]);
      assert.deepEqual(await store.documentVersions("ns", ["d1", "d2", "d3"]), { d1: 2, d2: 1 });
      assert.deepEqual(await store.documentVersions("ns", []), {});
      assert.deepEqual(await store.documentEntryIds("ns", "d1"), ["d1-a", "d1-b"]);
      assert.deepEqual(await store.documentEntryIds("ns", "d3"), []);
    });

    it("looks up any document id an entry may carry (up to MAX_DOCUMENT_ID_CHARS), and names a longer one", async () => {
      const store = await freshStore();
      const longId = `docs/${"deep/".repeat(100)}notes.md`; // 510 characters: longer than an entry id may be
      await store.upsert("ns", [record(entry("ns", { id: "chunk", text: "a chunk", source: { documentId: longId, version: 2 } }), [1, 0, 0, 0])]);
      assert.deepEqual(await store.documentVersions("ns", [longId]), { [longId]: 2 });
      assert.deepEqual(await store.documentEntryIds("ns", longId), ["chunk"]);
      const tooLong = "d".repeat(MAX_DOCUMENT_ID_CHARS + 1);
      await assert.rejects(store.documentVersions("ns", [tooLong]), /documentIds\.0: documentId must be at most 1024 characters/);
      await assert.rejects(store.documentEntryIds("ns", tooLong), /documentId: documentId must be at most 1024 characters/);
    });

    it("originEntryIds lists the entries an ingest read from one source, in one namespace, and names a bad origin", async () => {
      const store = await freshStore();
      const from = (namespace: string, id: string, origin?: string) =>
        record(entry(namespace, { id, text: `line ${id}`, ...(origin ? { source: { origin } } : {}) }), basis(id.length));
      await store.upsert("ns", [from("ns", "b", "/data/notes.jsonl"), from("ns", "a", "/data/notes.jsonl"), from("ns", "c", "/data/other.jsonl"), from("ns", "d")]);
      await store.upsert("elsewhere", [from("elsewhere", "e", "/data/notes.jsonl")]);
      assert.deepEqual(await store.originEntryIds("ns", "/data/notes.jsonl"), ["a", "b"]);
      assert.deepEqual(await store.originEntryIds("ns", "/data/other.jsonl"), ["c"]);
      assert.deepEqual(await store.originEntryIds("ns", "/data/none.jsonl"), []);
      assert.deepEqual(await store.originEntryIds("elsewhere", "/data/notes.jsonl"), ["e"]);
      await store.upsert("ns", [from("ns", "a", "/data/other.jsonl")]);
      assert.deepEqual(await store.originEntryIds("ns", "/data/notes.jsonl"), ["b"], "a memory written again from another source moves with it");
      await assert.rejects(store.originEntryIds("ns", " "), /origin: origin must not be empty/);
    });

    it("stats counts entries per namespace", async () => {
      const store = await freshStore();
      await store.upsert("x", fillerEntries("x", 3).map((e, i) => record(e, basis(i))));
      await store.upsert("y", fillerEntries("y", 2).map((e, i) => record(e, basis(i))));
      assert.deepEqual((await store.stats()).namespaces, { x: 3, y: 2 });
    });
  });
}
