/**
 * `recallgraph eval --store qdrant` (issue 32, item 1) against SpecCheckingQdrantStub, not a real
 * Qdrant: the run writes to a collection of its own, which is gone afterwards whether the run
 * succeeded or failed, and the configured QDRANT_COLLECTION is never sent a request. The stub proves
 * the requests and the clean-up; whether a live server ranks alike is the live suite's question.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { after, before, beforeEach, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { StoreError, ValidationError } from "../../src/core/errors.js";
import { beirJson, beirText, type BeirJson } from "../../src/eval/beir-report.js";
import { runBeirEval, type BeirEvalOptions, type BeirRun } from "../../src/eval/beir-run.js";
import { EVAL_COLLECTION_PREFIX } from "../../src/stores/qdrant-kind.js";
import { normalizeEntry } from "../../src/memory/entry.js";
import { openQdrantStore } from "../../src/stores/qdrant.js";
import { runCli, temporaryFolder } from "../cli/helpers.js";
import { QDRANT_SPEC_PATH, qdrantSpecAvailable } from "../stores/qdrant-spec.js";
import { SpecCheckingQdrantStub } from "../stores/qdrant-stub.js";

const SKIP = qdrantSpecAvailable() ? false : `Qdrant OpenAPI spec not found at ${QDRANT_SPEC_PATH}: eval on Qdrant (stub) skipped`;
if (SKIP) console.log(`# SKIP ${SKIP}`);

const FIXTURE = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures/beir-tiny");
const EVAL_COLLECTION = new RegExp(`^${EVAL_COLLECTION_PREFIX}[0-9a-f]{16}$`);
const HASH = { provider: "hash" } as const;
/** The user's own collection, as QDRANT_COLLECTION names it: an evaluation must never reach it. */
const CONFIGURED = "team_memories";

/**
 * Every retriever's per-question scores, without the timings that differ from run to run, and with the
 * best similarity to six places: the two stores round their cosines differently (they differ in the
 * seventh).
 */
function scoresOf(run: BeirRun): Array<[string, unknown[]]> {
  return run.retrievers.map((retriever) => [
    retriever.name,
    retriever.results.map(({ latencyMs: _latency, bestSimilarity, ...scores }) => ({ ...scores, bestSimilarity: bestSimilarity?.toFixed(6) })),
  ]);
}

describe("recallgraph eval with --store qdrant (SpecCheckingQdrantStub, not a real Qdrant)", { skip: SKIP }, () => {
  let stub: SpecCheckingQdrantStub;
  const onQdrant = (options: Partial<BeirEvalOptions> = {}): BeirEvalOptions => ({ folder: FIXTURE, embedder: HASH, ...options, store: { kind: "qdrant", url: stub.url } });

  /** The collections the run created and deleted, in order. */
  const createdAndDeleted = () => ({
    created: stub.requestsOf("create_collection").map((request) => request.collection),
    deleted: stub.requestsOf("delete_collection").map((request) => request.collection),
  });
  /** One collection, with the evaluation's prefix, created and then deleted, and none left on the server but the user's. */
  const assertCleanedUp = (): string => {
    const { created, deleted } = createdAndDeleted();
    assert.equal(created.length, 1, `one collection created: ${created.join(", ")}`);
    const [collection = ""] = created;
    assert.match(collection, EVAL_COLLECTION);
    assert.deepEqual(deleted, [collection], "the run's collection, and only it, is dropped");
    assert.deepEqual(stub.collectionNames(), [CONFIGURED], "nothing is left behind");
    return collection;
  };

  before(async () => {
    stub = await SpecCheckingQdrantStub.start();
    // The user's store, with a memory in it, as the configured QDRANT_COLLECTION.
    const mine = await openQdrantStore({ url: stub.url, collection: CONFIGURED, embedding: { model: "hash-v1", dimension: 512 } });
    await mine.upsert("beir", [{ entry: normalizeEntry("beir", { id: "d1", text: "mine, not the benchmark's" }), vector: Array.from({ length: 512 }, (_, i) => (i === 0 ? 1 : 0)) }]);
  });
  beforeEach(() => stub.clearRequests());
  after(async () => {
    assert.deepEqual(stub?.violations, [], "every request satisfied Qdrant's OpenAPI spec");
    await stub?.close();
  });

  it("scores every mode and peer of the BEIR fixture as on sqlite, question by question, and drops its collection", { timeout: 60_000 }, async () => {
    const onSqlite = await runBeirEval({ folder: FIXTURE, embedder: HASH, peers: true });
    const onStub = await runBeirEval(onQdrant({ peers: true }));
    // Dense search is exact on both (cosine over ten documents), so must agree. The lexical rows agree
    // here though the two BM25s normalise lengths differently (Qdrant's against a constant, see
    // qdrant.ts): on this fixture no margin between a query's documents is that thin.
    assert.deepEqual(scoresOf(onStub), scoresOf(onSqlite));
    assert.equal(onSqlite.store, "sqlite");
    assert.equal(onStub.store, "qdrant");
    assert.equal(beirJson(onStub).store, "qdrant");
    assert.match(beirText(onStub), /, store qdrant \(a temporary collection\), /);
    const collection = assertCleanedUp();
    assert.ok(stub.requestsOf("upsert_points").every((request) => request.collection === collection), "the corpus went to the run's collection");
    assert.ok(stub.requestsOf("query_batch_points").length > 0);
    assert.ok(stub.requests.every((request) => request.collection !== CONFIGURED), `no request reached ${CONFIGURED}`);
  });

  it("drops the collection when the run fails while writing the corpus", async () => {
    stub.failNext("upsert_points", 503, "overloaded");
    await assert.rejects(runBeirEval(onQdrant({ mode: "lexical" })), (error: unknown) => {
      assert.ok(error instanceof StoreError, String(error));
      assert.match(error.message, /^upsert: .*HTTP 503: overloaded/);
      return true;
    });
    assertCleanedUp();
  });

  it("drops the collection when an error interrupts the run while asking", async () => {
    const interruption = new Error("interrupted while asking");
    const context = { onProgress: ({ phase, done }: { phase: string; done: number }) => {
      if (phase === "ask" && done === 0) throw interruption;
    } };
    await assert.rejects(runBeirEval(onQdrant({ mode: "lexical" }), context), (error: unknown) => error === interruption);
    assertCleanedUp();
  });

  it("a failed search degrades its view, as in any retrieval, and the run still ends with the collection dropped", async () => {
    stub.failNext("query_batch_points", 500, "disk on fire");
    const run = await runBeirEval(onQdrant({ mode: "dense" }));
    assert.equal(run.retrievers[0]?.results[0]?.ndcg[10], 0, "q1's dense search failed: nothing found");
    assertCleanedUp();
  });

  it("a run that cannot drop its collection fails, naming the collection left behind", async () => {
    stub.failNext("delete_collection", 500, "busy");
    await assert.rejects(runBeirEval(onQdrant({ mode: "lexical" })), (error: unknown) => {
      assert.ok(error instanceof StoreError, String(error));
      assert.match(error.message, new RegExp(`^drop: collection "${EVAL_COLLECTION_PREFIX}[0-9a-f]{16}": .*HTTP 500: busy`));
      return true;
    });
    // Left for this test's own clean-up, so the next ones see only the user's collection.
    const [left = ""] = stub.collectionNames().filter((name) => name !== CONFIGURED);
    await (await openQdrantStore({ url: stub.url, collection: left, embedding: { model: "hash-v1", dimension: 512 } })).drop();
  });

  it("refuses a bad server address before creating anything, naming the field", async () => {
    await assert.rejects(runBeirEval({ folder: FIXTURE, embedder: HASH, store: { kind: "qdrant", url: "ftp://127.0.0.1:6333" } }), (error: unknown) => {
      assert.ok(error instanceof ValidationError, String(error));
      assert.equal(error.field, "options.store.url");
      return true;
    });
    assert.equal(stub.requests.length, 0);
  });

  it("runs as `recallgraph eval DIR --store qdrant` with QDRANT_URL, never touching QDRANT_COLLECTION", { timeout: 60_000 }, async () => {
    const folder = await temporaryFolder();
    try {
      const variables = { QDRANT_URL: stub.url, QDRANT_COLLECTION: CONFIGURED };
      const run = await runCli(["eval", FIXTURE, "--store", "qdrant", "--mode", "lexical", "--embedder", "hash", "--json"], folder.path, undefined, variables);
      assert.equal(run.code, 0, run.stderr);
      const json = JSON.parse(run.stdout) as BeirJson;
      assert.equal(json.store, "qdrant");
      assert.equal(json.queries, 6);
      assertCleanedUp();
      assert.ok(stub.requests.every((request) => request.collection !== CONFIGURED), `no request reached ${CONFIGURED}`);
      assert.deepEqual(stub.storedPoints(CONFIGURED).filter((point) => point.payload.record === "memory").map((point) => point.payload.id), ["d1"]);
      assert.equal(run.stderr, "", "nothing logged");

    } finally {
      await folder.remove();
    }
  });
});
