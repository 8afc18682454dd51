/**
 * The behavioural contract of the MemoryStore port: what every adapter (sqlite, Qdrant, ...) must do.
 * An adapter's test file calls `runMemoryStoreContract` with a way to open its store; the cases are
 * registered as node:test `describe`/`it` blocks under `name`.
 *
 * Vectors are small and hand-made (4-d), so expected rankings and cosine scores are exact.
 * Lexical scores are only compared with each other (BM25 statistics differ between backends).
 */
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { EmbedderMismatchError, RecallGraphError, StoreError, ValidationError } from "../../src/core/errors.js";
import { MAX_DOCUMENT_ID_CHARS, MAX_TEXT_CHARS, normalizeEntry, type MemoryEntry, type MemoryInput } from "../../src/memory/entry.js";
import type { MemoryFilter, MemoryRecord, MemoryStore, ScoredEntry } from "../../src/stores/port.js";
import type { EmbeddingSpec } from "../../src/text/embedder.js";

/**
 * Opens the adapter's store with `embedding` on the backing storage named `backend` (a file, a
 * collection...). A name the suite has not used before must start empty; opening the same name again
 * must reach the same data when the adapter is `reopenable`.
 */
export type OpenContractStore = (embedding: EmbeddingSpec, backend: string) => Promise<MemoryStore>;

export interface ContractOptions {
  /** True when a second open of the same backend sees the first one's data (files, servers); false for `:memory:`. */
  reopenable: boolean;
}

export const CONTRACT_EMBEDDING: EmbeddingSpec = { model: "contract-test-embedder", dimension: 4 };
const NOW = Date.parse("2024-06-01T12:00:00Z");
const DAY = 86_400_000;
const SCORE_TOLERANCE = 1e-5;

export function runMemoryStoreContract(name: string, openStore: OpenContractStore, options: ContractOptions): void {
  describe(`MemoryStore contract: ${name}`, () => {
    const opened: MemoryStore[] = [];
    let backendCounter = 0;

    /** A store on a backend of its own, closed after the test. */
    async function freshStore(embedding: EmbeddingSpec = CONTRACT_EMBEDDING, backend = `contract-${process.pid}-${++backendCounter}`): Promise<MemoryStore> {
      const store = await openStore(embedding, backend);
      opened.push(store);
      return store;
    }

    afterEach(async () => {
      for (const store of opened.splice(0)) await store.close().catch(() => undefined);
    });

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
    });

    describe("lexical search", () => {
      it("ranks the entry holding a rare exact term first", async () => {
        const store = await freshStore();
        const entries = [
          ...fillerEntries("ns", 8),
          entry("ns", { id: "rare", text: "We planned a weekend trip to Zanzibar with the kids" }),
          entry("ns", { id: "common", text: "We planned a weekend trip to the lake with the kids" }),
        ];
        await store.upsert("ns", entries.map((e, i) => record(e, basis(i))));
        const hits = await store.lexicalSearch("ns", "When is the trip to Zanzibar?", { k: 5 });
        assert.equal(hits[0]?.entry.id, "rare");
        assert.ok(ids(hits).includes("common"), "the other trip still matches on 'trip'");
        assert.ok(hits.every((hit) => hit.score > 0), "scores are positive, higher is better");
        assert.ok((hits[0]?.score ?? 0) > (hits[1]?.score ?? 0));
      });

      it("keywords, persons, entities, location and topic are searchable too", async () => {
        const store = await freshStore();
        const tagged = entry("ns", {
          id: "tagged",
          text: "She signed the contract",
          keywords: ["mortgage"],
          persons: ["Priyanka"],
          entities: ["Globex"],
          location: "Reykjavik",
          topic: "housing",
        });
        await store.upsert("ns", [record(tagged, [1, 0, 0, 0]), ...fillerEntries("ns", 4).map((e, i) => record(e, basis(i)))]);
        for (const query of ["mortgage", "Priyanka", "globex", "reykjavik", "housing"]) {
          assert.deepEqual(ids(await store.lexicalSearch("ns", query, { k: 5 })), ["tagged"], query);
        }
      });

      it("treats FTS query syntax in the question as plain text", async () => {
        const store = await freshStore();
        const entries = [...fillerEntries("ns", 5), entry("ns", { id: "zanzibar", text: "A trip to Zanzibar in July" })];
        await store.upsert("ns", entries.map((e, i) => record(e, basis(i))));
        const tricky = [
          '"zanzibar',
          "zanzibar*",
          "NEAR(zanzibar july)",
          "zanzibar OR",
          "AND zanzibar NOT",
          "-zanzibar",
          "(zanzibar",
          "text_terms:zanzibar",
          "nosuchcolumn: zanzibar",
          "^zanzibar",
          "{text tags}: zanzibar",
          "zanzibar + july - 'x'",
        ];
        for (const query of tricky) {
          const hits = await store.lexicalSearch("ns", query, { k: 3 });
          assert.equal(hits[0]?.entry.id, "zanzibar", `query ${JSON.stringify(query)}`);
        }
        for (const query of ['"', "* ( ) : ^ - +", "", "   ", "NEAR", "OR AND NOT"]) {
          const hits = await store.lexicalSearch("ns", query, { k: 3 });
          assert.ok(Array.isArray(hits), `query ${JSON.stringify(query)} returns a list`);
          assert.ok(!ids(hits).includes("zanzibar"), `query ${JSON.stringify(query)} does not match by accident`);
        }
      });

      it("keeps identifiers and versions whole: ERR_1024 is not ERR_2048", async () => {
        const store = await freshStore();
        const entries = [
          entry("ns", { id: "e1024", text: "The deploy failed with ERR_1024 on release v2.3.1" }),
          entry("ns", { id: "e2048", text: "The deploy failed with ERR_2048 on release v2.3.2" }),
          ...fillerEntries("ns", 4),
        ];
        await store.upsert("ns", entries.map((e, i) => record(e, basis(i))));
        assert.deepEqual(ids(await store.lexicalSearch("ns", "ERR_1024", { k: 5 })), ["e1024"]);
        assert.deepEqual(ids(await store.lexicalSearch("ns", "err_2048", { k: 5 })), ["e2048"]);
        assert.deepEqual(ids(await store.lexicalSearch("ns", "v2.3.2", { k: 5 })), ["e2048"]);
      });

      it("finds Chinese by words, not whole sentences: 报销标准 finds 报销的标准是多少", async () => {
        const store = await freshStore();
        const entries = [
          entry("ns", { id: "reimburse", text: "报销的标准是多少" }),
          entry("ns", { id: "weather", text: "今天的天气很好" }),
          entry("ns", { id: "meeting", text: "会议室在三楼" }),
          ...fillerEntries("ns", 3),
        ];
        await store.upsert("ns", entries.map((e, i) => record(e, basis(i))));
        const hits = await store.lexicalSearch("ns", "报销标准", { k: 5 });
        assert.equal(hits[0]?.entry.id, "reimburse");
        assert.ok(!ids(hits).includes("weather"));
      });

      it("applies a filter and still returns up to k", async () => {
        const store = await freshStore();
        const entries = Array.from({ length: 10 }, (_, i) =>
          entry("ns", { id: `s${i}`, text: `Sailing lesson number ${i} on the bay`, persons: [i % 2 ? "Odette" : "Evan"], timestamp: NOW - i * DAY }),
        );
        await store.upsert("ns", entries.map((e, i) => record(e, basis(i))));
        const hits = await store.lexicalSearch("ns", "sailing lesson", { k: 3, filter: { persons: ["odette"] } });
        assert.equal(hits.length, 3);
        assert.ok(hits.every((hit) => hit.entry.persons.includes("Odette")));
        const inWindow = await store.lexicalSearch("ns", "sailing", { k: 10, filter: { timeRange: { startMs: NOW - 2 * DAY, endMs: NOW } } });
        assert.deepEqual(ids(inWindow).sort(), ["s1", "s2"]);
      });
    });

    describe("filtered search", () => {
      async function seeded(): Promise<MemoryStore> {
        const store = await freshStore();
        const entries = [
          entry("ns", { id: "paris-alice", text: "t1", persons: ["Alice"], entities: ["Louvre"], location: "Paris, France", timestamp: NOW - 3 * DAY }),
          entry("ns", { id: "paris-bob", text: "t2", persons: ["Bob"], entities: ["Eiffel Tower"], location: "paris", timestamp: NOW - 2 * DAY }),
          entry("ns", { id: "rome-alice", text: "t3", persons: ["Alice", "Carol"], entities: ["Colosseum"], location: "Rome", timestamp: NOW - DAY }),
          entry("ns", { id: "nowhere-dave", text: "t4", persons: ["Dave"], timestamp: NOW }),
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
            ["vocabulary", () => store.vocabulary(ns)],
            ["documentVersions", () => store.documentVersions(ns, ["doc"])],
            ["documentEntryIds", () => store.documentEntryIds(ns, "doc")],
            ["getSettings", () => store.getSettings(ns)],
            ["setSettings", () => store.setSettings(ns, { finalK: 2 })],
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
        await assertValidation(store.lexicalSearch("ns", 42 as unknown as string, { k: 3 }), "query");
        await assertValidation(store.get("ns", [""]), "ids.0");
        await assertValidation(store.setSettings("ns", { semanticTopK: 0 }), "settings.semanticTopK");
      });
    });

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

      it("stats counts entries per namespace", async () => {
        const store = await freshStore();
        await store.upsert("x", fillerEntries("x", 3).map((e, i) => record(e, basis(i))));
        await store.upsert("y", fillerEntries("y", 2).map((e, i) => record(e, basis(i))));
        assert.deepEqual((await store.stats()).namespaces, { x: 3, y: 2 });
      });
    });

    describe("embedding spec and lifecycle", () => {
      it(
        "refuses to reopen with another embedding model or dimension, and keeps the data",
        { skip: options.reopenable ? false : "this backend does not outlive its store (e.g. :memory:)" },
        async () => {
          const backend = `contract-${process.pid}-reopen-${++backendCounter}`;
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
  });
}

// ---------------------------------------------------------------------------------------------

function entry(namespace: string, input: MemoryInput): MemoryEntry {
  return normalizeEntry(namespace, { timestamp: NOW, ...input }, { now: NOW });
}

function record(entryValue: MemoryEntry, vector: number[]): MemoryRecord {
  return { entry: entryValue, vector };
}

/** Distinct, unremarkable memories so BM25 has a corpus to compare against. */
function fillerEntries(namespace: string, count: number): MemoryEntry[] {
  const subjects = ["The weather", "Lunch", "The commute", "A meeting", "The garden", "A movie", "The gym", "Groceries", "A book", "The laundry"];
  const endings = ["was fine today", "took an hour", "ran late again", "went as planned", "needs attention", "was cancelled"];
  return Array.from({ length: count }, (_, i) =>
    entry(namespace, { id: `filler-${i}`, text: `${subjects[i % subjects.length]} ${endings[i % endings.length]}`, timestamp: NOW - (i + 10) * DAY }),
  );
}

/** A unit vector along one axis (cycling), for entries whose dense score does not matter. */
function basis(index: number): number[] {
  const vector = [0, 0, 0, 0];
  vector[index % 4] = 1;
  return vector;
}

function ids(hits: readonly (ScoredEntry | MemoryEntry)[]): string[] {
  return hits.map((hit) => ("entry" in hit ? hit.entry.id : hit.id));
}

function onlyNamespaces(hits: readonly ScoredEntry[]): string[] {
  return [...new Set(hits.map((hit) => hit.entry.namespace))];
}

function lower(names: readonly string[]): string[] {
  return names.map((name) => name.toLowerCase()).sort();
}

function zip<A, B>(left: readonly A[], right: readonly B[]): [A, B][] {
  assert.equal(left.length, right.length);
  return left.map((value, i) => [value, right[i] as B]);
}

function assertClose(actual: number | undefined, expected: number, message?: string): void {
  assert.ok(actual !== undefined && Math.abs(actual - expected) <= SCORE_TOLERANCE, message ?? `expected ${expected}, got ${actual}`);
}

/** Awaits a call that must fail with a ValidationError whose field is `field`. */
async function assertValidation(call: Promise<unknown>, field: string, context = ""): Promise<void> {
  await assert.rejects(call, (error: unknown) => {
    assert.ok(error instanceof ValidationError, `${context} expected a ValidationError, got ${describeError(error)}`);
    assert.equal(error.field, field, `${context} ${error.message}`);
    return true;
  });
}

function describeError(error: unknown): string {
  if (error instanceof RecallGraphError) return `${error.name}: ${error.message}`;
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
