import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { closeEach, openRecallGraph } from "../../src/library/open-recallgraph.js";
import type { Embedder } from "../../src/text/embedder.js";
import { CheckedEmbeddings } from "../../src/text/embedders/checked.js";
import { createHashEmbedder } from "../../src/text/embedders/create-embedder.js";
import { UseLiteEmbeddings } from "../../src/text/embedders/use-lite.js";

const MEMORY_STORE = { kind: "sqlite", path: ":memory:" } as const;

/** Whether the USE-lite embedder's worker threads are running (the observable part of closing it). */
function poolRunning(embedder: Embedder): boolean {
  assert.ok(embedder.embeddings instanceof CheckedEmbeddings);
  const inner = embedder.embeddings.inner;
  assert.ok(inner instanceof UseLiteEmbeddings);
  return inner.poolRunning;
}

describe("openRecallGraph().close()", { timeout: 300_000 }, () => {
  it("closes the embedder it created from a configuration: its worker threads stop, and the store closes", async () => {
    // One text per model call, so two texts are two batches and go to the pool.
    const recallgraph = await openRecallGraph({ store: MEMORY_STORE, embedder: { provider: "use-lite", workers: 2, batchSize: 1 }, model: null });
    const vectors = await recallgraph.embedder.embeddings.embedDocuments(["a dog in the park", "a tax return"]);
    assert.equal(vectors.length, 2);
    assert.equal(poolRunning(recallgraph.embedder), true);
    await recallgraph.close();
    assert.equal(poolRunning(recallgraph.embedder), false);
    await assert.rejects(recallgraph.store.stats());
  });

  it("leaves an embedder the caller gave open (the caller owns it), and still closes the store", async () => {
    let closes = 0;
    const given: Embedder = {
      ...createHashEmbedder(),
      close: async () => {
        closes += 1;
      },
    };
    const recallgraph = await openRecallGraph({ store: MEMORY_STORE, embedder: given, model: null });
    await recallgraph.close();
    assert.equal(closes, 0);
    await assert.rejects(recallgraph.store.stats());
  });
});

describe("closeEach", () => {
  it("runs every close even when one fails, then throws the first failure", async () => {
    const ran: string[] = [];
    const failure = new Error("embedder would not stop");
    await assert.rejects(
      closeEach([
        async () => {
          ran.push("first");
          throw failure;
        },
        undefined,
        () => {
          ran.push("second");
          throw new Error("thrown before any promise");
        },
        async () => {
          ran.push("store");
        },
      ]),
      (error: unknown) => error === failure,
    );
    assert.deepEqual(ran, ["first", "second", "store"]);
  });

  it("resolves when every close does", async () => {
    await closeEach([async () => undefined, undefined]);
  });
});
