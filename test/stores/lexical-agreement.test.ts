/**
 * sqlite and Qdrant (SpecCheckingQdrantStub, held to a real server's recorded answers) rank a lexical
 * search alike. The two normalise document lengths differently (sqlite against the namespace's
 * average, Qdrant against a constant fixed when a vector is written), so the memories here all have
 * one length and hold each word once: then every score is the same multiple of the other store's,
 * and any other difference in how a word counts (a tag weighed unlike a word of the text, another idf)
 * changes the order or breaks the ratio.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import { normalizeEntry } from "../../src/memory/entry.js";
import type { MemoryRecord, MemoryStore } from "../../src/stores/port.js";
import { openQdrantStore } from "../../src/stores/qdrant.js";
import { openSqliteStore } from "../../src/stores/sqlite/store.js";
import { QDRANT_SPEC_PATH, qdrantSpecAvailable } from "./qdrant-spec.js";
import { SpecCheckingQdrantStub } from "./qdrant-stub.js";

const SKIP = qdrantSpecAvailable() ? false : `Qdrant OpenAPI spec not found at ${QDRANT_SPEC_PATH}: lexical agreement tests skipped`;
if (SKIP) console.log(`# SKIP ${SKIP}`);

const NOW = Date.parse("2024-05-01T12:00:00Z");
const RUNS = Number(process.env.ISOLATION_RUNS ?? 25);
const NAMESPACE = "alice";
const EMBEDDING = { model: "test-hash", dimension: 4 };
const WORDS = ["nightingale", "harbor", "violin", "lantern", "orchard", "glacier", "compass", "meadow", "quarry", "thistle"] as const;
/** Words per memory, split between its text and its keywords. */
const LENGTH = 5;

/** A memory: LENGTH distinct words, the first `inText` of them its text, the rest its keywords. */
const memory = fc.record({
  words: fc.shuffledSubarray([...WORDS], { minLength: LENGTH, maxLength: LENGTH }),
  inText: fc.integer({ min: 1, max: LENGTH }),
});

function records(memories: ReadonlyArray<{ words: string[]; inText: number }>): MemoryRecord[] {
  return memories.map(({ words, inText }, i) => ({
    entry: normalizeEntry(NAMESPACE, { id: `m${i}`, text: words.slice(0, inText).join(" "), keywords: words.slice(inText) }, { now: NOW }),
    vector: [1, 0, 0, 0],
  }));
}

/** Ids best first, equal scores (to a relative 1e-9) by id: the order both stores must agree on. */
function order(hits: ReadonlyArray<{ entry: { id: string }; score: number }>): string[] {
  const same = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b));
  return [...hits].sort((a, b) => (same(a.score, b.score) ? a.entry.id.localeCompare(b.entry.id) : b.score - a.score)).map((hit) => hit.entry.id);
}

describe("sqlite and Qdrant rank a lexical search alike (SpecCheckingQdrantStub, not a real Qdrant)", { skip: SKIP }, () => {
  let stub: SpecCheckingQdrantStub;
  let collections = 0;

  before(async () => {
    stub = await SpecCheckingQdrantStub.start();
  });
  after(async () => {
    assert.deepEqual(stub?.violations, [], "every request satisfied Qdrant's OpenAPI spec");
    await stub?.close();
  });

  it("the same memories in the same order, each score the same multiple of the other store's, tags counted as text", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          memories: fc.array(memory, { minLength: 2, maxLength: 8 }),
          query: fc.shuffledSubarray([...WORDS], { minLength: 1, maxLength: 3 }).map((words) => words.join(" ")),
        }),
        async ({ memories, query }) => {
          const stores: MemoryStore[] = [
            await openSqliteStore({ path: ":memory:", embedding: EMBEDDING }),
            await openQdrantStore({ url: stub.url, collection: `rg_lexical_agreement_${++collections}`, embedding: EMBEDDING }),
          ];
          try {
            const [sqlite = [], qdrant = []] = await Promise.all(
              stores.map(async (store) => {
                await store.upsert(NAMESPACE, records(memories));
                return store.lexicalSearch(NAMESPACE, query, { k: memories.length });
              }),
            );
            assert.deepEqual(order(qdrant), order(sqlite), `query "${query}"`);
            const byId = new Map(qdrant.map((hit) => [hit.entry.id, hit.score]));
            const ratios = sqlite.map((hit) => hit.score / (byId.get(hit.entry.id) ?? Number.NaN));
            for (const ratio of ratios) assert.ok(Math.abs(ratio - (ratios[0] ?? 0)) <= 1e-6 * Math.abs(ratios[0] ?? 1), `score ratios ${ratios.join(", ")}`);
          } finally {
            await Promise.all(stores.map((store) => store.close()));
          }
        },
      ),
      { numRuns: RUNS, includeErrorInReport: true },
    );
  });
});
