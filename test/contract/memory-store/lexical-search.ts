/** Lexical search: BM25-style ranking, searchable fields, query syntax taken as text, identifiers, Chinese, filters. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { NOW, DAY, entry, record, fillerEntries, basis, ids, type ContractContext } from "./shared.js";

export function lexicalSearchTests({ freshStore }: ContractContext): void {
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

    it("matches a hyphen-joined identifier by its lettered parts too, and ranks the exact whole first", async () => {
      const store = await freshStore();
      const entries = [
        entry("ns", { id: "joined", text: "LRBA promotes CTLA-4 recycling in regulatory T cells" }),
        entry("ns", { id: "apart", text: "Loss of CTLA 4 on the surface of T cells" }),
        entry("ns", { id: "dependent", text: "Apoptosis after irradiation was p53-dependent" }),
        entry("ns", { id: "other", text: "CTLA-2 is a cysteine protease inhibitor" }),
        ...fillerEntries("ns", 4),
      ];
      await store.upsert("ns", entries.map((e, i) => record(e, basis(i))));
      const joined = ids(await store.lexicalSearch("ns", "CTLA-4", { k: 5 }));
      assert.equal(joined[0], "joined", "the whole identifier still counts");
      assert.ok(joined.includes("apart"), "the parts find the identifier written apart");
      assert.ok(ids(await store.lexicalSearch("ns", "CTLA 4", { k: 5 })).includes("joined"), "words written apart find the identifier written joined");
      assert.deepEqual(ids(await store.lexicalSearch("ns", "p53", { k: 5 })), ["dependent"]);
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

    it("applies a person and a time window together, the same person's entries of another namespace left out, after writes", async () => {
      const store = await freshStore();
      const sailing = (namespace: string, id: string, person: string, daysAgo: number) =>
        entry(namespace, { id, text: `Sailing lesson ${id} on the bay`, persons: [person], timestamp: NOW - daysAgo * DAY });
      const entries = [sailing("ns", "o1", "Odette", 1), sailing("ns", "o5", "Odette", 5), sailing("ns", "e1", "Evan", 1), sailing("other", "x1", "Odette", 1)];
      await Promise.all(["ns", "other"].map((namespace) => store.upsert(namespace, entries.filter((e) => e.namespace === namespace).map((e, i) => record(e, basis(i))))));
      const window = { startMs: NOW - 2 * DAY, endMs: NOW };
      const search = () => store.lexicalSearch("ns", "sailing", { k: 10, filter: { persons: ["odette"], timeRange: window } });
      assert.deepEqual(ids(await store.lexicalSearch("ns", "sailing", { k: 10, filter: { persons: ["odette"] } })).sort(), ["o1", "o5"]);
      assert.deepEqual(ids(await search()), ["o1"]);
      // The kept matches of each condition follow the namespace's writes.
      await store.upsert("ns", [record(sailing("ns", "o0", "Odette", 0.5), basis(5))]);
      assert.deepEqual(ids(await search()).sort(), ["o0", "o1"]);
    });

    it("applies a documentId filter", async () => {
      const store = await freshStore();
      const entries = Array.from({ length: 6 }, (_, i) =>
        entry("ns", { id: `k${i}`, text: `Kayak route number ${i}`, source: { documentId: i < 2 ? "rivers.md" : "lakes.md", version: 1 } }),
      );
      await store.upsert("ns", [...entries, entry("ns", { id: "loose", text: "Kayak route without a document" })].map((e, i) => record(e, basis(i))));
      assert.deepEqual(ids(await store.lexicalSearch("ns", "kayak route", { k: 10, filter: { documentId: "rivers.md" } })).sort(), ["k0", "k1"]);
      assert.equal((await store.lexicalSearch("ns", "kayak", { k: 3, filter: { documentId: "lakes.md" } })).length, 3, "still up to k");
      assert.deepEqual(await store.lexicalSearch("ns", "kayak", { k: 3, filter: { documentId: "Rivers.md" } }), []);
    });
  });
}
