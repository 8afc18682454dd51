/**
 * QueryBatcher on its own: the queries asked in one turn of the event loop go as one batch, each
 * caller gets its own search's answer, a failed request fails each of its queries, a wide turn is
 * split at MAX_SEARCHES_PER_BATCH, and a query of a later turn goes in a batch of its own.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Schemas } from "@qdrant/js-client-rest";
import { MAX_SEARCHES_PER_BATCH, QueryBatcher } from "../../src/stores/qdrant-query-batch.js";
import type { QdrantScoredPoint } from "../../src/stores/qdrant-rest.js";

/** A search told apart by its limit; its answer is one point whose id is that limit. */
const search = (limit: number): Schemas["QueryRequest"] => ({ query: [1, 0], using: "dense", limit });

function recordingBatcher(fail?: Error) {
  const batches: number[][] = [];
  const batcher = new QueryBatcher(async (searches) => {
    batches.push(searches.map((sent) => sent.limit ?? 0));
    if (fail) throw fail;
    return searches.map((sent): QdrantScoredPoint[] => [{ id: sent.limit ?? 0, payload: null, score: 1 }]);
  });
  return { batcher, batches };
}

describe("QueryBatcher", () => {
  it("sends the queries of one turn as one batch and gives each caller its own answer", async () => {
    const { batcher, batches } = recordingBatcher();
    const answers = await Promise.all([1, 2, 3].map((limit) => batcher.query(search(limit))));
    assert.deepEqual(batches, [[1, 2, 3]]);
    assert.deepEqual(answers.map((points) => points.map((point) => point.id)), [[1], [2], [3]]);
  });

  it("sends a query of a later turn in a batch of its own", async () => {
    const { batcher, batches } = recordingBatcher();
    await batcher.query(search(1));
    await batcher.query(search(2));
    assert.deepEqual(batches, [[1], [2]]);
  });

  it("fails each query of a failed batch with the request's error", async () => {
    const failure = new Error("HTTP 500");
    const { batcher } = recordingBatcher(failure);
    const settled = await Promise.allSettled([batcher.query(search(1)), batcher.query(search(2))]);
    assert.deepEqual(settled.map((outcome) => (outcome.status === "rejected" ? outcome.reason : undefined)), [failure, failure]);
  });

  it(`splits a turn of more than ${MAX_SEARCHES_PER_BATCH} queries`, async () => {
    const { batcher, batches } = recordingBatcher();
    const limits = Array.from({ length: MAX_SEARCHES_PER_BATCH + 3 }, (_, i) => i + 1);
    const answers = await Promise.all(limits.map((limit) => batcher.query(search(limit))));
    assert.deepEqual(batches.map((batch) => batch.length), [MAX_SEARCHES_PER_BATCH, 3]);
    assert.deepEqual(answers.map((points) => points[0]?.id), limits);
  });
});
