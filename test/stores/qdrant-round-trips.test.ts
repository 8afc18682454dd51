/**
 * How many HTTP requests one question costs on the Qdrant path (issue 32, item 2), counted by
 * SpecCheckingQdrantStub (not a real Qdrant: these are counts, never times). The whole graph runs with
 * the rule planner and judge and the hashing embedder over the team memory of the graph tests.
 *
 * Before the round trips were cut, each of these questions cost 16 requests: the namespace's settings
 * (a scroll), its vocabulary (3 facets), 7 idf counts, 4 queries (one per search), the final re-read
 * (a scroll). Now a round's searches share `/points/query/batch` requests, and the settings,
 * vocabulary and idf counts are kept between questions (qdrant-cache.ts) until this process writes
 * to the namespace or namespaceCacheMs passes.
 */
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import { openRecallGraph, type RecallGraph } from "../../src/library/open-recallgraph.js";
import { openQdrantStore, type QdrantMemoryStore } from "../../src/stores/qdrant.js";
import { createEmbedder } from "../../src/text/embedders/create-embedder.js";
import { NOW, RIVALS, TEAM } from "../support/team-memory.js";
import { QDRANT_SPEC_PATH, qdrantSpecAvailable } from "./qdrant-spec.js";
import { SpecCheckingQdrantStub } from "./qdrant-stub.js";

const SKIP = qdrantSpecAvailable() ? false : `Qdrant OpenAPI spec not found at ${QDRANT_SPEC_PATH}: request counts skipped`;
if (SKIP) console.log(`# SKIP ${SKIP}`);

const QUESTION = "What did Alice discuss with Bob in Shanghai?";

describe("requests per question on the Qdrant path (SpecCheckingQdrantStub, not a real Qdrant)", { skip: SKIP }, () => {
  let stub: SpecCheckingQdrantStub;
  let store: QdrantMemoryStore;
  let memory: RecallGraph;
  let collections = 0;

  /** The requests one question sent, by operation, and what the store counted of its own. */
  const ask = async (question: string) => {
    stub.clearRequests();
    const before = store.traffic().requests;
    const output = await memory.retrieve({ question, namespace: "team", now: NOW });
    const byOperation: Record<string, number> = {};
    for (const request of stub.requests) byOperation[request.operationId] = (byOperation[request.operationId] ?? 0) + 1;
    return { total: stub.requests.length, byOperation, counted: store.traffic().requests - before, results: output.results.map((result) => result.id) };
  };

  /**
   * The requests other than query batches, exactly, and at most `batches` batches: which searches share
   * a batch depends on which answers arrive in the same turn of the event loop, so a loaded machine may
   * merge two batches into one, never split one. The symbolic view sends one batch more when its
   * matches fall short of k (the memories that say the plan's names, after the tagged ones).
   */
  const assertRequests = (asked: Awaited<ReturnType<typeof ask>>, others: Record<string, number>, batches: number): void => {
    const { query_batch_points: sent = 0, ...rest } = asked.byOperation;
    assert.deepEqual(rest, others);
    assert.ok(sent >= 1 && sent <= batches, `${sent} query batches, at most ${batches}`);
    assert.equal(asked.counted, asked.total, "the store's own count (what bench:speed reports against a real server) agrees with the stub's");
  };

  before(async () => {
    stub = await SpecCheckingQdrantStub.start();
  });
  beforeEach(async () => {
    const embedder = createEmbedder({ provider: "hash", dimension: 256 });
    store = await openQdrantStore({ url: stub.url, collection: `rg_round_trips_${++collections}`, embedding: embedder.spec });
    memory = await openRecallGraph({ store, embedder, model: null });
    await memory.remember("team", TEAM);
    await memory.remember("rivals", RIVALS);
  });
  after(async () => {
    await memory?.close();
    assert.deepEqual(stub?.violations, [], "every request satisfied Qdrant's OpenAPI spec");
    await stub?.close();
  });

  it("a namespace's first question: at most 15 requests (was 16), its searches in at most 4 batches", async () => {
    const first = await ask(QUESTION);
    // Scrolls: the settings, the final re-read of the hits, and who supersedes them (one per namespace asked).
    assertRequests(first, { scroll_points: 3, facet: 3, count_points: 5 }, 4);
    assert.ok(first.total <= 15);
    assert.equal(first.results[0], "shanghai-meeting");
  });

  it("a question asked again: at most 5 requests (its searches in at most 3 batches, the final re-read, the supersession lookup); the same answer", async () => {
    const first = await ask(QUESTION);
    const again = await ask(QUESTION);
    assertRequests(again, { scroll_points: 2 }, 3);
    assert.ok(again.total <= 5, "settings, vocabulary and idf counts kept");
    assert.deepEqual(again.results, first.results);
  });

  it("another question of the namespace counts only its three new words; a write by this process makes the next question read everything again", async () => {
    await ask(QUESTION);
    const other = await ask("Which error did Dave fix last week?");
    assertRequests(other, { count_points: 3, scroll_points: 2 }, 4);
    await memory.remember("team", [{ id: "alice-shanghai-2", text: "Alice flew back to Shanghai to meet Bob again.", persons: ["Alice", "Bob"], location: "Shanghai", timestamp: "2026-11-16T09:00:00Z" }]);
    const afterWrite = await ask(QUESTION);
    assertRequests(afterWrite, { scroll_points: 3, facet: 3, count_points: 5 }, 4);
    assert.ok(afterWrite.results.includes("alice-shanghai-2"), "the new memory is found");
  });
});
