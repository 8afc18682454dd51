/**
 * BM25 statistics stay within a namespace on the Qdrant adapter (issue 29, item 4), checked through
 * SpecCheckingQdrantStub (not a real Qdrant). Another namespace's writes and deletes must change no
 * score and no rank of mine, and my scores must not tell me which words another namespace holds. With
 * layout 1's idf, counted over the whole collection, both failed at once: my one memory "nightingale"
 * scored 0.48 for "nightingale", and 0.30 once another namespace had stored the same text.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import { normalizeEntry, type MemoryInput } from "../../src/memory/entry.js";
import type { MemoryRecord } from "../../src/stores/port.js";
import { openQdrantStore, type QdrantMemoryStore } from "../../src/stores/qdrant.js";
import { QDRANT_SPEC_PATH, qdrantSpecAvailable } from "./qdrant-spec.js";
import { SpecCheckingQdrantStub } from "./qdrant-stub.js";

const SKIP = qdrantSpecAvailable() ? false : `Qdrant OpenAPI spec not found at ${QDRANT_SPEC_PATH}: lexical isolation tests skipped`;
if (SKIP) console.log(`# SKIP ${SKIP}`);

const NOW = Date.parse("2024-05-01T12:00:00Z");
const RUNS = Number(process.env.ISOLATION_RUNS ?? 25);
const MINE = "alice";
const THEIRS = "bob";

/** Few words, so that the two namespaces share many of them and each text repeats some. */
const WORDS = ["nightingale", "harbor", "violin", "lantern", "orchard", "glacier", "compass", "meadow"] as const;
const word = fc.constantFrom(...WORDS);
const text = fc.array(word, { minLength: 1, maxLength: 7 }).map((words) => words.join(" "));
const input = fc.record({ id: fc.constantFrom("m1", "m2", "m3", "m4", "m5", "m6"), text, keywords: fc.array(word, { maxLength: 2 }) });

/** One change of the other namespace: an upsert (new or overwriting ids), a delete, or a clear. */
type TheirChange = { upsert: MemoryInput[] } | { delete: string[] } | { clear: true };
const theirChange: fc.Arbitrary<TheirChange> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ upsert: fc.array(input, { minLength: 1, maxLength: 5 }) }) },
  { weight: 2, arbitrary: fc.record({ delete: fc.array(fc.constantFrom("m1", "m2", "m3", "m9"), { minLength: 1, maxLength: 3 }) }) },
  { weight: 1, arbitrary: fc.constant({ clear: true as const }) },
);

function records(namespace: string, inputs: readonly MemoryInput[]): MemoryRecord[] {
  // Distinct ids within one call (the port refuses duplicates); the last spelling of an id wins.
  const byId = new Map(inputs.map((memory) => [memory.id, memory]));
  return [...byId.values()].map((memory) => ({ entry: normalizeEntry(namespace, memory, { now: NOW }), vector: [1, 0, 0, 0] }));
}

async function apply(store: QdrantMemoryStore, change: TheirChange): Promise<void> {
  if ("upsert" in change) await store.upsert(THEIRS, records(THEIRS, change.upsert));
  else if ("delete" in change) await store.delete(THEIRS, change.delete);
  else await store.clearNamespace(THEIRS);
}

/** What a search shows me: ids, their order and their exact scores. */
async function ranking(store: QdrantMemoryStore, query: string, k: number): Promise<Array<[string, number]>> {
  return (await store.lexicalSearch(MINE, query, { k })).map((hit) => [hit.entry.id, hit.score]);
}

describe("Qdrant lexical scores are one namespace's own (SpecCheckingQdrantStub, not a real Qdrant)", { skip: SKIP }, () => {
  let stub: SpecCheckingQdrantStub;
  let collections = 0;
  const open = (): Promise<QdrantMemoryStore> =>
    openQdrantStore({ url: stub.url, collection: `rg_lexical_isolation_${++collections}`, embedding: { model: "test-hash", dimension: 4 } });

  before(async () => {
    stub = await SpecCheckingQdrantStub.start();
  });
  after(async () => {
    assert.deepEqual(stub?.violations, [], "every request satisfied Qdrant's OpenAPI spec");
    await stub?.close();
  });

  it("another namespace's writes and deletes change no id, rank or score of my lexical search", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          mine: fc.array(input, { minLength: 1, maxLength: 6 }),
          theirsBefore: fc.array(input, { maxLength: 4 }),
          // Their first change writes something, so a store-wide statistic would move.
          changes: fc.tuple(fc.record({ upsert: fc.array(input, { minLength: 1, maxLength: 5 }) }), fc.array(theirChange, { maxLength: 4 })),
          queries: fc.array(fc.array(word, { minLength: 1, maxLength: 3 }).map((words) => words.join(" ")), { minLength: 1, maxLength: 3 }),
          k: fc.integer({ min: 1, max: 8 }),
        }),
        async ({ mine, theirsBefore, changes: [first, rest], queries, k }) => {
          const store = await open();
          await store.upsert(MINE, records(MINE, mine));
          if (theirsBefore.length) await store.upsert(THEIRS, records(THEIRS, theirsBefore));
          const before = await Promise.all(queries.map((query) => ranking(store, query, k)));
          for (const change of [first, ...rest]) {
            await apply(store, change);
            const now = await Promise.all(queries.map((query) => ranking(store, query, k)));
            assert.deepEqual(now, before, `after ${JSON.stringify(change)}`);
          }
        },
      ),
      { numRuns: RUNS, includeErrorInReport: true },
    );
  });

  it("scoring a guess cannot tell a word another namespace stored from one nobody stored", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          // The other namespace's memories hold `stored`; nobody holds `unstored` before I probe.
          pair: fc.shuffledSubarray([...WORDS], { minLength: 2, maxLength: 2 }),
          theirCopies: fc.integer({ min: 1, max: 12 }),
          mine: fc.array(fc.constantFrom("quarry", "beacon", "thistle"), { minLength: 1, maxLength: 4 }).map((words) => words.join(" ")),
        }),
        async ({ pair: [stored = "", unstored = ""], theirCopies, mine }) => {
          const store = await open();
          await store.upsert(
            THEIRS,
            records(THEIRS, Array.from({ length: theirCopies }, (_, i) => ({ id: `b${i}`, text: i % 2 ? `${stored} ferry` : stored }))),
          );
          // My probes: the same shape of memory around each guess, then the same query for each.
          await store.upsert(MINE, records(MINE, [
            { id: "context", text: mine },
            { id: "probe-stored", text: stored },
            { id: "probe-unstored", text: unstored },
          ]));
          const [withStored, withUnstored] = await Promise.all([ranking(store, `${stored} beacon`, 5), ranking(store, `${unstored} beacon`, 5)]);
          assert.deepEqual(
            withStored.map(([id, score]) => [id.replace("probe-stored", "probe"), score]),
            withUnstored.map(([id, score]) => [id.replace("probe-unstored", "probe"), score]),
          );
          assert.ok(withStored.some(([id]) => id === "probe-stored"), "the guess finds my probe");
        },
      ),
      { numRuns: RUNS, includeErrorInReport: true },
    );
  });
});
