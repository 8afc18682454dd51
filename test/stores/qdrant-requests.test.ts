/**
 * Request-shape tests of the Qdrant adapter against SpecCheckingQdrantStub: a loopback fake that
 * validates every body against Qdrant's own OpenAPI document. The stub is not Qdrant (see its header);
 * these tests prove the adapter sends spec-valid, namespace-scoped requests and handles the answers.
 */
import assert from "node:assert/strict";
import { after, afterEach, before, beforeEach, describe, it, type TestContext } from "node:test";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { EmbedderMismatchError, RequestTimeoutError, ResponseTooLargeError, StoreError, ValidationError } from "../../src/core/errors.js";
import { normalizeEntry, type MemoryEntry, type MemoryInput } from "../../src/memory/entry.js";
import type { MemoryRecord } from "../../src/stores/port.js";
import type { EmbeddingSpec } from "../../src/text/embedder.js";
import { clusterSettingDifferences, createCollectionBody, leasePointId, memoryPointId, type ClusterSettings } from "../../src/stores/qdrant-layout.js";
import { LEASE_TAKEOVER_MS } from "../../src/stores/origin-lease.js";
import { BM25_B, inverseDocumentFrequency } from "../../src/text/bm25.js";
import { encodeSparse, queryTermIndices } from "../../src/text/sparse.js";
import { lexicalDocument } from "../../src/stores/lexical-document.js";
import { tokenize } from "../../src/text/tokenizer.js";
import { createQdrantStore, openQdrantStore, QdrantMemoryStore, UPSERT_POINTS_PER_REQUEST } from "../../src/stores/qdrant.js";
import { QDRANT_MAX_RESPONSE_BYTES, QdrantRest } from "../../src/stores/qdrant-rest.js";
import { QdrantSpec, QDRANT_SPEC_PATH, qdrantSpecAvailable } from "./qdrant-spec.js";
import { SpecCheckingQdrantStub, type RecordedRequest } from "./qdrant-stub.js";

const SPEC_MISSING = qdrantSpecAvailable() ? false : `Qdrant OpenAPI spec not found at ${QDRANT_SPEC_PATH}: request-shape tests skipped`;
if (SPEC_MISSING) console.log(`# SKIP ${SPEC_MISSING}`);

const EMBEDDING: EmbeddingSpec = { model: "test-hash", dimension: 4 };
const NOW = Date.parse("2024-05-01T12:00:00Z");

function entry(namespace: string, input: MemoryInput): MemoryEntry {
  return normalizeEntry(namespace, input, { now: NOW });
}

function record(namespace: string, input: MemoryInput, vector: number[]): MemoryRecord {
  return { entry: entry(namespace, input), vector };
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
function field(value: Json | undefined, ...path: Array<string | number>): Json | undefined {
  let current = value;
  for (const key of path) {
    if (current === null || typeof current !== "object") return undefined;
    current = Array.isArray(current) ? current[Number(key)] : current[String(key)];
  }
  return current;
}

/** The bodies a request carries: each search of a query batch, else its own body. */
function bodiesOf(request: RecordedRequest): Json[] {
  const body = request.body as Json;
  if (request.operationId !== "query_batch_points") return [body];
  const searches = field(body, "searches");
  return Array.isArray(searches) ? searches : [];
}

/**
 * The log lines written while `action` runs. log.ts writes one JSON object per line to stderr, so
 * stderr is swapped for a recorder (restored afterwards) and the level pinned to warn for the while.
 */
async function logLinesDuring(t: TestContext, action: () => Promise<unknown>): Promise<Json[]> {
  const level = process.env.RECALLGRAPH_LOG_LEVEL;
  process.env.RECALLGRAPH_LOG_LEVEL = "warn";
  const write = t.mock.method(process.stderr, "write", () => true);
  try {
    await action();
  } finally {
    write.mock.restore();
    if (level === undefined) delete process.env.RECALLGRAPH_LOG_LEVEL;
    else process.env.RECALLGRAPH_LOG_LEVEL = level;
  }
  const lines = write.mock.calls.flatMap((call) => String(call.arguments[0]).split("\n"));
  return lines.filter((line) => line.startsWith("{")).map((line) => JSON.parse(line) as Json);
}

describe("Qdrant adapter request shapes (SpecCheckingQdrantStub, not a real Qdrant)", { skip: SPEC_MISSING }, () => {
  let spec: QdrantSpec;
  let stub: SpecCheckingQdrantStub;
  let collectionCounter = 0;
  let collection: string;

  before(async () => {
    spec = QdrantSpec.load();
    stub = await SpecCheckingQdrantStub.start(spec);
  });
  after(async () => {
    await stub?.close();
  });
  beforeEach(() => {
    collection = `rg_test_${++collectionCounter}`;
    stub.clearRequests();
  });
  afterEach(() => {
    assert.deepEqual(stub.violations, [], "every request body (and stub response) must satisfy Qdrant's OpenAPI spec");
  });

  const open = (options: { embedding?: EmbeddingSpec; timeoutMs?: number; name?: string; cluster?: ClusterSettings } = {}): Promise<QdrantMemoryStore> =>
    openQdrantStore({
      url: stub.url,
      collection: options.name ?? collection,
      embedding: options.embedding ?? EMBEDDING,
      ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
      ...options.cluster,
    });

  describe("the spec validator", () => {
    it("rejects deliberately wrong bodies, which pass without the nullable translation", () => {
      const raw = QdrantSpec.load({ translateNullable: false });
      const wrongModifier = { vectors: { dense: { size: 4, distance: "Cosine" } }, sparse_vectors: { lexical: { modifier: "IDF" } } };
      assert.notDeepEqual(spec.checkRequestBody("create_collection", wrongModifier), []);
      assert.deepEqual(raw.checkRequestBody("create_collection", wrongModifier), [], "untranslated, `{nullable: true}` accepts anything");

      // A filter that is not a Filter at all: untranslated, the namespace scope could be silently garbage.
      const stringFilter = { query: [1, 0, 0, 0], using: "dense", limit: 3, filter: "namespace = alice" };
      assert.notDeepEqual(spec.checkRequestBody("query_points", stringFilter), []);
      assert.deepEqual(raw.checkRequestBody("query_points", stringFilter), []);
      const wrongOrderBy = { limit: 3, order_by: { key: "timestampMs", direction: "newest" } };
      assert.notDeepEqual(spec.checkRequestBody("scroll_points", wrongOrderBy), []);
      assert.deepEqual(raw.checkRequestBody("scroll_points", wrongOrderBy), []);

      assert.notDeepEqual(spec.checkRequestBody("query_points", { query: [1, 0, 0, 0], using: "dense", limit: 0 }), []);

      const negativeSparseIndex = { query: { indices: [-1], values: [1] }, using: "lexical" };
      assert.notDeepEqual(spec.checkRequestBody("query_points", negativeSparseIndex), []);
      const wrongTenant = { field_name: "namespace", field_schema: { type: "keyword", is_tenant: "yes" } };
      assert.notDeepEqual(spec.checkRequestBody("create_field_index", wrongTenant), []);

      const valid = { query: [1, 0, 0, 0], using: "dense", limit: 3, filter: { must: [{ key: "namespace", match: { value: "a" } }] } };
      assert.deepEqual(spec.checkRequestBody("query_points", valid), []);
    });

    it("makes the stub answer 422 to a body the spec rejects", async () => {
      const response = await fetch(`${stub.url}/collections/${collection}/points/query`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query: [1, 0, 0, 0], limit: -3 }),
      });
      assert.equal(response.status, 422);
      assert.equal(stub.violations.length, 1);
      stub.violations.length = 0;
    });
  });

  describe("collection bootstrap", () => {
    it("creates named dense (cosine) + sparse (no modifier) vectors, the embedding metadata and the payload indexes", async () => {
      await open();
      const [create] = stub.requestsOf("create_collection");
      assert.ok(create, "collection created");
      const body = create.body as Json;
      assert.deepEqual(field(body, "vectors", "dense"), { size: 4, distance: "Cosine" });
      assert.deepEqual(field(body, "sparse_vectors", "lexical"), { modifier: "none" }, "idf is counted per namespace, not by Qdrant");
      assert.deepEqual(field(body, "metadata", "recallgraph"), { layoutVersion: 2, embedding: EMBEDDING, bm25B: BM25_B });

      const indexes = new Map(stub.requestsOf("create_field_index").map((request) => [field(request.body as Json, "field_name"), request]));
      assert.deepEqual(field(indexes.get("namespace")?.body as Json, "field_schema"), { type: "keyword", is_tenant: true });
      assert.deepEqual(field(indexes.get("timestampMs")?.body as Json, "field_schema"), { type: "integer", lookup: false, range: true });
      assert.deepEqual(field(indexes.get("lexical_terms")?.body as Json, "field_schema"), { type: "integer", lookup: true, range: false });
      for (const name of ["record", "id", "persons_lc", "entities_lc", "location_grams", "source.documentId"]) {
        assert.ok(indexes.has(name), `payload index on ${name}`);
      }
      for (const request of stub.requestsOf("create_field_index")) assert.equal(request.query.get("wait"), "true");
    });

    it("reopens without re-creating anything, and refuses another embedder or a foreign collection", async () => {
      await open();
      stub.clearRequests();
      await open();
      assert.equal(stub.requestsOf("create_collection").length, 0);
      assert.equal(stub.requestsOf("create_field_index").length, 0);

      await assert.rejects(open({ embedding: { model: "other-model", dimension: 4 } }), EmbedderMismatchError);
      await assert.rejects(open({ embedding: { model: "test-hash", dimension: 8 } }), (error: unknown) => {
        assert.ok(error instanceof EmbedderMismatchError);
        assert.match(error.message, /4-d.*8-d/);
        return true;
      });

      stub.createForeignCollection(`${collection}_foreign`, { vectors: { size: 4, distance: "Cosine" } });
      await assert.rejects(open({ name: `${collection}_foreign` }), (error: unknown) => {
        assert.ok(error instanceof StoreError);
        assert.match(error.message, /not created by recallgraph/);
        return true;
      });
    });

    it("refuses a layout-1 collection (saying how to move on) and one whose lexical vector has the idf modifier", async () => {
      const layout = (name: string, body: Json): Promise<QdrantMemoryStore> => {
        stub.createForeignCollection(name, body as { [key: string]: Json });
        return open({ name });
      };
      const current = createCollectionBody(EMBEDDING) as Json;
      const withLexical = (lexical: Json): Json => ({ ...(current as { [key: string]: Json }), sparse_vectors: { lexical } });
      const layoutOne = { ...(withLexical({ modifier: "idf" }) as { [key: string]: Json }), metadata: { recallgraph: { layoutVersion: 1, embedding: EMBEDDING } } };

      await assert.rejects(layout(`${collection}_v1`, layoutOne), (error: unknown) => {
        assert.ok(error instanceof StoreError);
        assert.match(error.message, /uses recallgraph layout 1, this version reads layout 2: ingest the memories again into a new collection/);
        assert.match(error.message, /QDRANT_COLLECTION/);
        return true;
      });
      await assert.rejects(layout(`${collection}_v3`, { ...(current as { [key: string]: Json }), metadata: { recallgraph: { layoutVersion: 3, embedding: EMBEDDING } } }), /layout 3.*use a recallgraph version that reads it/);
      await assert.rejects(layout(`${collection}_idf`, withLexical({ modifier: "idf" })), (error: unknown) => {
        assert.ok(error instanceof StoreError);
        assert.match(error.message, /sparse vector "lexical" is missing or has a modifier/);
        return true;
      });
      await assert.rejects(layout(`${collection}_nolexical`, { ...(current as { [key: string]: Json }), sparse_vectors: {} }), /sparse vector "lexical" is missing/);
      // No modifier key at all is Qdrant's default, none: the same collection.
      await layout(`${collection}_default`, withLexical({}));
      assert.deepEqual(stub.violations, []);
    });

    it("writes with the b its collection records, 0.75 when it records none (a vector's weights are fixed when written)", async () => {
      const current = createCollectionBody(EMBEDDING) as { [key: string]: Json };
      const written = record("alice", { id: "m1", text: "a long message about the harbour, the lighthouse and the harbour again" }, [1, 0, 0, 0]);
      for (const [name, recorded, b] of [
        [`${collection}_b04`, { layoutVersion: 2, embedding: EMBEDDING, bm25B: 0.4 }, 0.4],
        [`${collection}_unrecorded`, { layoutVersion: 2, embedding: EMBEDDING }, 0.75],
      ] as const) {
        stub.createForeignCollection(name, { ...current, metadata: { recallgraph: recorded } });
        const store = await open({ name });
        stub.clearRequests();
        await store.upsert("alice", [written]);
        const [point] = field(stub.requestsOf("upsert_points")[0]?.body as Json, "points") as Json[];
        assert.deepEqual(field(point as Json, "vector", "lexical"), encodeSparse(tokenize(lexicalDocument(written.entry)), { b }), name);
        assert.notDeepEqual(field(point as Json, "vector", "lexical"), encodeSparse(tokenize(lexicalDocument(written.entry)), { b: b === 0.4 ? 0.75 : 0.4 }), name);
      }
    });

    it("rejects bad options with a ValidationError naming the field", async () => {
      await assert.rejects(openQdrantStore({ url: "not a url", embedding: EMBEDDING }), (error: unknown) => {
        assert.ok(error instanceof ValidationError);
        assert.equal(error.field, "qdrant.url");
        return true;
      });
      await assert.rejects(openQdrantStore({ url: stub.url, collection: "bad/name", embedding: EMBEDDING }), ValidationError);
      await assert.rejects(openQdrantStore({ url: "ftp://127.0.0.1:6333", embedding: EMBEDDING }), ValidationError);

      const refused = async (cluster: ClusterSettings, expectedField: string, message: RegExp): Promise<void> => {
        await assert.rejects(openQdrantStore({ url: stub.url, collection, embedding: EMBEDDING, ...cluster }), (error: unknown) => {
          assert.ok(error instanceof ValidationError);
          assert.equal(error.field, expectedField);
          assert.match(error.message, message);
          return true;
        });
      };
      await refused({ shards: 0 }, "qdrant.shards", /shards must be an integer >= 1/);
      await refused({ replicationFactor: 1.5 }, "qdrant.replicationFactor", /replicationFactor must be an integer >= 1/);
      await refused({ writeConsistencyFactor: -1 }, "qdrant.writeConsistencyFactor", /writeConsistencyFactor must be an integer >= 1/);
      await refused({ replicationFactor: 2, writeConsistencyFactor: 3 }, "qdrant.writeConsistencyFactor", /writeConsistencyFactor \(3\) must not exceed replicationFactor \(2\)/);
      assert.equal(stub.requests.length, 0, "refused before any request");
    });

    it("sends shard_number, replication_factor and write_consistency_factor when given, and omits them when not", async () => {
      await open();
      const plain = stub.requestsOf("create_collection")[0]?.body as Json;
      for (const param of ["shard_number", "replication_factor", "write_consistency_factor", "sharding_method"]) {
        assert.equal(field(plain, param), undefined, `${param} left to Qdrant`);
      }

      await open({ name: `${collection}_cluster`, cluster: { shards: 3, replicationFactor: 2, writeConsistencyFactor: 2 } });
      const clustered = stub.requestsOf("create_collection")[1]?.body as Json;
      assert.equal(field(clustered, "shard_number"), 3);
      assert.equal(field(clustered, "replication_factor"), 2);
      assert.equal(field(clustered, "write_consistency_factor"), 2);
      assert.deepEqual(field(clustered, "vectors", "dense"), { size: 4, distance: "Cosine" }, "the layout is unchanged");

      await open({ name: `${collection}_shards`, cluster: { shards: 6 } });
      const shardsOnly = stub.requestsOf("create_collection")[2]?.body as Json;
      assert.equal(field(shardsOnly, "shard_number"), 6);
      assert.equal(field(shardsOnly, "replication_factor"), undefined);
      assert.equal(field(shardsOnly, "write_consistency_factor"), undefined);
    });

    it("warns, and still opens, when an existing collection's settings differ from those asked", async (t) => {
      await open({ cluster: { shards: 2, replicationFactor: 2 } });
      stub.clearRequests();

      const differing = await logLinesDuring(t, () => open({ cluster: { shards: 3, replicationFactor: 3, writeConsistencyFactor: 1 } }));
      assert.equal(stub.requestsOf("create_collection").length, 0, "an existing collection is never re-created");
      const warnings = differing.filter((line) => field(line, "event") === "qdrant_settings_differ");
      assert.equal(warnings.length, 1, JSON.stringify(differing));
      const [warning] = warnings;
      assert.equal(field(warning, "level"), "warn");
      assert.equal(field(warning, "collection"), collection);
      const settings = (field(warning, "settings") as Json[]).map((setting) => ({
        setting: field(setting, "setting"),
        param: field(setting, "param"),
        collection: field(setting, "collection"),
        asked: field(setting, "asked"),
      }));
      assert.deepEqual(
        settings,
        [
          { setting: "shards", param: "shard_number", collection: 2, asked: 3 },
          { setting: "replicationFactor", param: "replication_factor", collection: 2, asked: 3 },
        ],
        "write consistency 1 is what the collection has: not reported",
      );
      assert.match(String(field(warning, "settings", 0, "change")), /migrat/);
      assert.match(String(field(warning, "settings", 1, "change")), /PATCH \/collections/);

      assert.deepEqual(await logLinesDuring(t, () => open({ cluster: { shards: 2, replicationFactor: 2 } })), [], "same settings: silent");
      assert.deepEqual(await logLinesDuring(t, () => open()), [], "no settings asked: nothing to compare");
    });

    it("compares only the parameters the server reports", () => {
      assert.deepEqual(clusterSettingDifferences({ shards: 3, replicationFactor: 2 }, { replication_factor: 2 }), []);
      assert.deepEqual(clusterSettingDifferences({ writeConsistencyFactor: 2 }, { write_consistency_factor: 1 }), [
        { setting: "writeConsistencyFactor", param: "write_consistency_factor", collection: 1, asked: 2 },
      ]);
    });
  });

  describe("writes", () => {
    it("sends a batch as one upsert with wait=true, deterministic per-namespace UUIDs and sorted unique sparse indices", async () => {
      const store = await open();
      stub.clearRequests();
      await store.upsert("alice", [
        record("alice", { id: "m1", text: "Alice moved to Berlin, Berlin is where Alice works", persons: ["Alice"] }, [1, 0, 0, 0]),
        record("alice", { id: "m2", text: "The ERR_1024 error broke the build twice" }, [0, 1, 0, 0]),
      ]);
      await store.upsert("bob", [record("bob", { id: "m1", text: "Bob likes tea" }, [0, 0, 1, 0])]);

      const upserts = stub.requestsOf("upsert_points");
      assert.equal(upserts.length, 2, "one request per batch");
      assert.equal(upserts[0]?.query.get("wait"), "true");
      const points = field(upserts[0]?.body as Json, "points") as Json[];
      assert.equal(points.length, 2);
      for (const point of points) {
        const sparse = field(point, "vector", "lexical") as { indices: number[]; values: number[] };
        assert.ok(Array.isArray(field(point, "vector", "dense")));
        assert.ok(sparse.indices.length > 0);
        assert.equal(sparse.indices.length, sparse.values.length);
        assert.ok(sparse.indices.every((index, i) => i === 0 || index > (sparse.indices[i - 1] ?? -1)), "indices strictly ascending (sorted, unique)");
        assert.deepEqual(field(point, "payload", "lexical_terms"), sparse.indices, "the payload's terms are the vector's, to count per namespace");
        assert.equal(field(point, "payload", "namespace"), "alice");
      }
      assert.equal(field(points[0], "id"), memoryPointId("alice", "m1"));
      assert.equal(memoryPointId("alice", "m1"), memoryPointId("alice", "m1"), "deterministic");
      assert.notEqual(memoryPointId("alice", "m1"), memoryPointId("bob", "m1"), "same entry id, other namespace: other point");
      assert.match(memoryPointId("alice", "m1"), /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      assert.equal(stub.storedPoints(collection).length, 3);

      const alice = await store.get("alice", ["m1"]);
      const bob = await store.get("bob", ["m1"]);
      assert.equal(alice[0]?.text, "Alice moved to Berlin, Berlin is where Alice works");
      assert.equal(bob[0]?.text, "Bob likes tea");
    });

    it("splits a large call into requests and, when one fails, removes the call's new points", async (t) => {
      const store = await open();
      await store.upsert("alice", [record("alice", { id: "m0", text: "before" }, [1, 0, 0, 0])]);
      const records = Array.from({ length: UPSERT_POINTS_PER_REQUEST * 2 + 10 }, (_, i) => record("alice", { id: `m${i}`, text: `memory ${i}` }, [1, 0, 0, 0]));
      stub.clearRequests();
      await store.upsert("alice", records);
      assert.equal(stub.requestsOf("upsert_points").length, 3, "one request per UPSERT_POINTS_PER_REQUEST points");
      assert.equal((await store.stats()).namespaces.alice, records.length);

      await store.clearNamespace("alice");
      await store.upsert("alice", [record("alice", { id: "m0", text: "before" }, [1, 0, 0, 0])]);
      // The second request of the call fails: the first one's points are on the server by then.
      const client = (store as unknown as { client: { upsert: (...args: unknown[]) => Promise<unknown> } }).client;
      const original = client.upsert.bind(client);
      let calls = 0;
      t.mock.method(client, "upsert", (...args: unknown[]) => {
        calls += 1;
        if (calls === 2) stub.failNext("upsert_points", 503, "overloaded");
        return original(...args);
      });
      await assert.rejects(store.upsert("alice", records), /upsert: .*HTTP 503/);
      const left = stub.storedPoints(collection).filter((point) => field(point.payload as Json, "namespace") === "alice" && field(point.payload as Json, "record") === "memory");
      assert.deepEqual(
        left.map((point) => field(point.payload as Json, "id")),
        ["m0"],
        "only the point that existed before the call is left (with the content the call gave it)",
      );
    });

    it("validates the whole batch before sending anything", async () => {
      const store = await open();
      stub.clearRequests();
      const good = record("alice", { id: "ok", text: "fine" }, [1, 0, 0, 0]);
      const cases: Array<[MemoryRecord[], string]> = [
        [[good, record("alice", { id: "short", text: "x" }, [1, 0, 0])], "records.1.vector"],
        [[good, record("alice", { id: "nan", text: "x" }, [1, Number.NaN, 0, 0])], "records.1.vector.1"],
        [[good, record("bob", { id: "other", text: "x" }, [1, 0, 0, 0])], "records.1.entry.namespace"],
        [[good, { ...good }], "records.1.entry.id"],
        [[good, { entry: { ...good.entry, text: "" }, vector: [1, 0, 0, 0] }], "records.1.entry.text"],
      ];
      for (const [records, expectedField] of cases) {
        await assert.rejects(store.upsert("alice", records), (error: unknown) => {
          assert.ok(error instanceof ValidationError, String(error));
          assert.equal(error.field, expectedField);
          return true;
        });
      }
      await assert.rejects(store.upsert("", [good]), (error: unknown) => error instanceof ValidationError && error.field === "namespace");
      assert.equal(stub.requestsOf("upsert_points").length, 0, "nothing was sent");
      assert.equal(stub.storedPoints(collection).length, 0);
    });
  });

  describe("reads", () => {
    let store: QdrantMemoryStore;
    const seed = async (): Promise<void> => {
      store = await open();
      await store.upsert("alice", [
        record("alice", { id: "berlin", text: "Alice moved to Berlin for a job at Siemens", persons: ["Alice"], entities: ["Siemens"], location: "Berlin, Germany", timestamp: "2023-03-01T00:00:00Z", source: { documentId: "doc-1", version: 1 } }, [1, 0, 0, 0]),
        record("alice", { id: "paris", text: "Alice and Bob visited Paris in spring", persons: ["Alice", "Bob"], location: "Paris", timestamp: "2023-04-01T00:00:00Z", source: { documentId: "doc-1", version: 2 } }, [0.9, 0.1, 0, 0]),
        record("alice", { id: "tea", text: "Bob prefers green tea over coffee", persons: ["Bob"], timestamp: "2023-05-01T00:00:00Z" }, [0, 1, 0, 0]),
        record("alice", { id: "trap", text: "A location whose trigrams fool a naive index", location: "abcXbcd", timestamp: "2023-06-01T00:00:00Z" }, [0, 0, 1, 0]),
      ]);
      await store.upsert("mallory", [
        record("mallory", { id: "berlin", text: "Mallory also lives in Berlin", persons: ["Alice"], location: "Berlin", timestamp: "2023-03-02T00:00:00Z" }, [1, 0, 0, 0]),
      ]);
      stub.clearRequests();
    };

    it("scopes every read and delete by a must namespace condition (stats' facet is the only exception)", async () => {
      await seed();
      await store.get("alice", ["berlin", "missing"]);
      await store.denseSearch("alice", [1, 0, 0, 0], { k: 3 });
      await store.denseSearch("alice", [1, 0, 0, 0], { k: 3, filter: { persons: ["bob"] } });
      await store.lexicalSearch("alice", "Berlin job", { k: 3 });
      await store.filteredSearch("alice", { location: "berl" }, { k: 3 });
      await store.filteredSearch("alice", { persons: ["Bob"] }, { k: 3, vector: [0, 1, 0, 0] });
      await store.vocabulary("alice");
      await store.documentVersions("alice", ["doc-1"]);
      await store.documentEntryIds("alice", "doc-1");
      await store.setSettings("alice", { finalK: 7 });
      await store.getSettings("alice");
      await store.delete("alice", ["tea"]);
      await store.clearNamespace("alice");
      await store.stats();

      const scopedOperations = new Set(["scroll_points", "query_batch_points", "count_points", "delete_points", "facet"]);
      const reads = stub.requests.filter((request) => scopedOperations.has(request.operationId)).flatMap((request) => bodiesOf(request).map((body) => ({ request, body })));
      assert.ok(reads.length >= 15, `expected many scoped requests, saw ${reads.length}`);
      const unscoped = reads.filter(({ body }) => JSON.stringify(field(body, "filter", "must", 0)) !== JSON.stringify({ key: "namespace", match: { value: "alice" } }));
      assert.equal(unscoped.length, 1, `only stats may be unscoped: ${JSON.stringify(unscoped.map((read) => read.body))}`);
      assert.equal(unscoped[0]?.request.operationId, "facet");
      assert.equal(field(unscoped[0]?.body, "key"), "namespace");
      for (const write of stub.requests.filter((request) => ["delete_points", "upsert_points"].includes(request.operationId))) {
        assert.equal(write.query.get("wait"), "true");
      }
    });

    it("uses the Query API with `dense` or sparse `lexical`, and scrolls newest-first for filter-only search", async () => {
      await seed();
      const dense = await store.denseSearch("alice", [1, 0, 0, 0], { k: 2 });
      assert.deepEqual(dense.map((hit) => hit.entry.id), ["berlin", "paris"]);
      assert.ok(Math.abs((dense[0]?.score ?? 0) - 1) < 1e-9);
      const lastSearch = (): Json | undefined => stub.requestsOf("query_batch_points").flatMap(bodiesOf).at(-1);
      const denseRequest = lastSearch();
      assert.equal(field(denseRequest, "using"), "dense");
      assert.equal(field(denseRequest, "limit"), 2);

      stub.clearRequests();
      const question = "Which job took Alice to BERLIN?";
      const lexical = await store.lexicalSearch("alice", question, { k: 5 });
      assert.equal(lexical[0]?.entry.id, "berlin");
      assert.ok(lexical.every((hit) => hit.entry.namespace === "alice"));
      const lexicalRequest = lastSearch();
      assert.equal(field(lexicalRequest, "using"), "lexical");

      // idf from alice's counts alone: all her memories, then those holding each distinct query term.
      const terms = queryTermIndices(tokenize(question));
      const counts = stub.requestsOf("count_points").map((request) => request.body as Json);
      const scope = [{ key: "namespace", match: { value: "alice" } }, { key: "record", match: { value: "memory" } }];
      assert.equal(counts.length, terms.length + 1, "one count for the namespace, one per distinct term");
      assert.deepEqual(counts[0], { filter: { must: scope }, exact: true });
      assert.deepEqual(counts.slice(1), terms.map((term) => ({ filter: { must: [...scope, { key: "lexical_terms", match: { value: term } }] }, exact: true })));
      const aliceTerms = stub.storedPoints(collection).filter((point) => point.payload.namespace === "alice" && point.payload.record === "memory").map((point) => point.payload.lexical_terms as number[]);
      const held = terms.map((term) => aliceTerms.filter((pointTerms) => pointTerms.includes(term)).length);
      const sparse = field(lexicalRequest, "query") as { indices: number[]; values: number[] };
      assert.deepEqual(sparse.indices, terms.filter((_, i) => (held[i] ?? 0) > 0), "terms no memory of alice holds are left out");
      assert.deepEqual(sparse.values, held.filter((n) => n > 0).map((n) => inverseDocumentFrequency(aliceTerms.length, n)));
      assert.ok(sparse.indices.length < terms.length, "the question has words alice never stored");

      stub.clearRequests();
      assert.deepEqual(await store.lexicalSearch("alice", "Mallory", { k: 5 }), [], "a word only mallory holds: counted, then no query at all");
      assert.equal(stub.requestsOf("query_batch_points").length, 0);
      assert.deepEqual(
        stub.requestsOf("count_points").map((request) => field(request.body as Json, "filter", "must", 2, "key")),
        ["lexical_terms"],
        "the namespace's size was kept from the search before: only the new word is counted",
      );
      stub.clearRequests();
      assert.deepEqual(await store.lexicalSearch("alice", "   the of ?! ", { k: 5 }), [], "no indexable term, no request, no hit");
      assert.equal(stub.requests.length, 0);

      const newest = await store.filteredSearch("alice", { timeRange: { startMs: Date.parse("2023-01-01T00:00:00Z") } }, { k: 3 });
      assert.deepEqual(newest.map((hit) => hit.entry.id), ["trap", "tea", "paris"]);
      const ordered = stub.requestsOf("scroll_points").filter((request) => field(request.body as Json, "order_by") !== undefined);
      assert.deepEqual(field(ordered.at(-1)?.body as Json, "order_by"), { key: "timestampMs", direction: "desc" });

      assert.deepEqual(await store.filteredSearch("alice", {}, { k: 3 }), [], "empty filter: nothing");
    });

    it("breaks timestamp ties by entry id, even when the tie straddles the page", async () => {
      store = await open();
      const at = "2024-01-01T00:00:00Z";
      await store.upsert("ties", [
        record("ties", { id: "d", text: "four", persons: ["Ann"], timestamp: at }, [1, 0, 0, 0]),
        record("ties", { id: "b", text: "two", persons: ["Ann"], timestamp: at }, [1, 0, 0, 0]),
        record("ties", { id: "newest", text: "newest", persons: ["Ann"], timestamp: "2024-02-01T00:00:00Z" }, [1, 0, 0, 0]),
        record("ties", { id: "c", text: "three", persons: ["Ann"], timestamp: at }, [1, 0, 0, 0]),
        record("ties", { id: "a", text: "one", persons: ["Ann"], timestamp: at }, [1, 0, 0, 0]),
      ]);
      const ids = async (k: number): Promise<string[]> => (await store.filteredSearch("ties", { persons: ["ann"] }, { k })).map((hit) => hit.entry.id);
      assert.deepEqual(await ids(1), ["newest"]);
      assert.deepEqual(await ids(3), ["newest", "a", "b"]);
      assert.deepEqual(await ids(10), ["newest", "a", "b", "c", "d"]);
    });

    it("filters persons/entities any-of case-insensitively, time range [start, end), location as case-insensitive substring", async () => {
      await seed();
      const ids = async (filter: Parameters<QdrantMemoryStore["filteredSearch"]>[1]): Promise<string[]> =>
        (await store.filteredSearch("alice", filter, { k: 10 })).map((hit) => hit.entry.id).sort();
      assert.deepEqual(await ids({ persons: ["BOB"] }), ["paris", "tea"]);
      assert.deepEqual(await ids({ persons: ["nobody", "alice"] }), ["berlin", "paris"]);
      assert.deepEqual(await ids({ entities: ["siemens"] }), ["berlin"]);
      assert.deepEqual(await ids({ persons: ["Alice"], entities: ["Siemens"] }), ["berlin"]);
      assert.deepEqual(await ids({ persons: ["  "] }), [], "only blank names: a condition nothing matches, not a dropped one");
      assert.deepEqual(await ids({ timeRange: { startMs: Date.parse("2023-04-01T00:00:00Z"), endMs: Date.parse("2023-05-01T00:00:00Z") } }), ["paris"]);
      assert.deepEqual(await ids({ location: "GERMANY" }), ["berlin"]);
      assert.deepEqual(await ids({ location: "ar" }), ["paris"]);
      assert.deepEqual(await ids({ location: "lin, ger" }), ["berlin"]);
      assert.deepEqual(await ids({ location: "abcd" }), [], "all trigrams present but not a substring: confirmed client-side");
      assert.deepEqual(await ids({ location: "bcXb" }), ["trap"]);

      const denseFiltered = await store.denseSearch("alice", [1, 0, 0, 0], { k: 5, filter: { location: "paris" } });
      assert.deepEqual(denseFiltered.map((hit) => hit.entry.id), ["paris"]);
    });

    it("answers get, delete, clearNamespace, settings, vocabulary, document lookups and stats", async () => {
      await seed();
      assert.deepEqual((await store.get("alice", ["tea", "missing", "berlin"])).map((e) => e.id), ["tea", "berlin"]);
      assert.deepEqual(await store.get("bob", ["berlin"]), [], "other namespace sees nothing");

      const vocabulary = await store.vocabulary("alice");
      assert.deepEqual([...vocabulary.persons].sort(), ["Alice", "Bob"]);
      assert.deepEqual(vocabulary.entities, ["Siemens"]);
      assert.deepEqual([...vocabulary.locations].sort(), ["Berlin, Germany", "Paris", "abcXbcd"]);

      await store.upsert("vocab", [
        record("vocab", { id: "1", text: "one", persons: ["alice", "Bob"], location: "Paris" }, [1, 0, 0, 0]),
        record("vocab", { id: "2", text: "two", persons: ["Alice"], entities: ["ACME"], location: "paris" }, [1, 0, 0, 0]),
      ]);
      assert.deepEqual(
        await store.vocabulary("vocab"),
        { persons: ["Alice", "Bob"], entities: ["ACME"], locations: ["Paris"] },
        "one name per case-insensitive spelling (the smallest), ordered by folded name, as sqlite does",
      );
      await store.clearNamespace("vocab");

      assert.deepEqual(await store.documentVersions("alice", ["doc-1", "doc-none"]), { "doc-1": 2 });
      assert.deepEqual((await store.documentEntryIds("alice", "doc-1")).sort(), ["berlin", "paris"]);
      assert.deepEqual(await store.documentEntryIds("mallory", "doc-1"), []);

      assert.equal(await store.getSettings("alice"), undefined);
      await store.setSettings("alice", { semanticTopK: 9 });
      assert.deepEqual(await store.getSettings("alice"), { semanticTopK: 9 });
      assert.equal(await store.getSettings("mallory"), undefined);

      assert.deepEqual(await store.stats(), { namespaces: { alice: 4, mallory: 1 } }, "settings points are not counted");
      assert.equal(await store.delete("alice", ["tea", "tea", "missing"]), 1);
      assert.equal(await store.delete("alice", []), 0);
      assert.equal(await store.clearNamespace("alice"), 3);
      assert.equal(await store.getSettings("alice"), undefined, "settings cleared with the namespace");
      assert.deepEqual(await store.stats(), { namespaces: { mallory: 1 } });
      assert.equal((await store.get("mallory", ["berlin"])).length, 1, "other namespace untouched");
    });
  });

  describe("list and expiry", () => {
    const START = Date.parse("2024-05-02T00:00:00Z");
    const clock = { now: START };
    beforeEach(() => {
      clock.now = START;
    });
    // Nothing kept between calls (namespaceCacheMs 0): each call's own requests are what is checked.
    const openWithClock = (): Promise<QdrantMemoryStore> =>
      openQdrantStore({ url: stub.url, collection, embedding: EMBEDDING, clock: () => clock.now, namespaceCacheMs: 0 });
    const notExpired = (now: number): Json => [{ key: "expiresAtMs", range: { lte: now } }];

    it("adds the expiresAtMs range index to a collection that lacks it, and nothing else", async () => {
      await open();
      stub.dropPayloadIndex(collection, "expiresAtMs");
      stub.clearRequests();
      await open();
      const created = stub.requestsOf("create_field_index").map((request) => request.body as Json);
      assert.deepEqual(created, [{ field_name: "expiresAtMs", field_schema: { type: "integer", lookup: false, range: true } }]);
    });

    it("every entry read sends must_not expiresAtMs <= now, the clock read per call; bookkeeping reads do not", async () => {
      const store = await openWithClock();
      await store.upsert("alice", [
        record("alice", { id: "a", text: "Alice rows", persons: ["Alice"], source: { documentId: "doc" }, expiresAt: "2024-06-01T00:00:00Z" }, [1, 0, 0, 0]),
      ]);
      const reads: Array<[string, () => Promise<unknown>]> = [
        ["get", () => store.get("alice", ["a"])],
        ["denseSearch", () => store.denseSearch("alice", [1, 0, 0, 0], { k: 2 })],
        ["lexicalSearch", () => store.lexicalSearch("alice", "rows", { k: 2, filter: { documentId: "doc" } })],
        ["filteredSearch", () => store.filteredSearch("alice", { persons: ["alice"] }, { k: 2 })],
        ["filteredSearch by vector", () => store.filteredSearch("alice", { documentId: "doc" }, { k: 2, vector: [1, 0, 0, 0] })],
        ["list", () => store.list("alice", { limit: 2 })],
      ];
      for (const now of [clock.now, Date.parse("2024-07-01T00:00:00Z")]) {
        clock.now = now;
        for (const [name, read] of reads) {
          stub.clearRequests();
          await read();
          const sent = stub.requests.filter((request) => ["scroll_points", "query_batch_points"].includes(request.operationId)).flatMap(bodiesOf);
          assert.ok(sent.length > 0, name);
          for (const body of sent) assert.deepEqual(field(body, "filter", "must_not"), notExpired(now), name);
        }
      }
      assert.deepEqual(await store.get("alice", ["a"]), [], "expired at the later clock");
      stub.clearRequests();
      // The idf counts take every stored memory of the namespace, expired ones not yet pruned included (as sqlite).
      await store.lexicalSearch("alice", "rows", { k: 2 });
      const counts = stub.requestsOf("count_points");
      assert.equal(counts.length, 2);
      for (const request of counts) assert.equal(field(request.body as Json, "filter", "must_not"), undefined, "lexicalSearch's counts");
      stub.clearRequests();
      await store.vocabulary("alice");
      await store.documentVersions("alice", ["doc"]);
      await store.documentEntryIds("alice", "doc");
      for (const request of stub.requests) assert.equal(field(request.body as Json, "filter", "must_not"), undefined, request.operationId);
    });

    it("a documentId filter is an exact keyword match on source.documentId", async () => {
      const store = await openWithClock();
      stub.clearRequests();
      await store.filteredSearch("alice", { documentId: "notes/a.md" }, { k: 3 });
      const must = field(stub.requestsOf("scroll_points")[0]?.body as Json, "filter", "must") as Json[];
      assert.deepEqual(must.at(-1), { key: "source.documentId", match: { value: "notes/a.md" } });
    });

    it("list scrolls by timestampMs desc for one more than the page; after a cursor, its tie and then strictly older", async () => {
      const store = await openWithClock();
      const at = "2024-01-01T00:00:00Z";
      await store.upsert("ties", [
        record("ties", { id: "newest", text: "n", timestamp: "2024-02-01T00:00:00Z" }, [1, 0, 0, 0]),
        ...["c", "a", "d", "b"].map((id) => record("ties", { id, text: id, timestamp: at }, [1, 0, 0, 0])),
        record("ties", { id: "oldest", text: "o", timestamp: "2023-01-01T00:00:00Z" }, [1, 0, 0, 0]),
      ]);
      stub.clearRequests();
      const first = await store.list("ties", { limit: 2 });
      assert.deepEqual(first.entries.map((e) => e.id), ["newest", "a"]);
      const [ordered] = stub.requestsOf("scroll_points");
      assert.deepEqual(field(ordered?.body as Json, "order_by"), { key: "timestampMs", direction: "desc" });
      assert.equal(field(ordered?.body as Json, "limit"), 3);

      stub.clearRequests();
      const second = await store.list("ties", { limit: 2, cursor: first.nextCursor });
      assert.deepEqual(second.entries.map((e) => e.id), ["b", "c"]);
      const scrolls = stub.requestsOf("scroll_points").map((request) => request.body as Json);
      const tieRange = { key: "timestampMs", range: { gte: Date.parse(at), lte: Date.parse(at) } };
      assert.deepEqual((field(scrolls[0], "filter", "must") as Json[]).at(-1), tieRange, "first the cursor's tie, whole");
      assert.equal(field(scrolls[0], "order_by"), undefined);
      assert.equal(scrolls.length, 1, "the tie alone fills the page and its extra entry: no older scroll");

      stub.clearRequests();
      const third = await store.list("ties", { limit: 2, cursor: second.nextCursor });
      assert.deepEqual(third.entries.map((e) => e.id), ["d", "oldest"]);
      assert.equal(third.nextCursor, undefined);
      const older = stub.requestsOf("scroll_points").find((request) => field(request.body as Json, "order_by") !== undefined)?.body as Json;
      assert.deepEqual((field(older, "filter", "must") as Json[]).at(-1), { key: "timestampMs", range: { lt: Date.parse(at) } });
      assert.equal(field(older, "limit"), 2, "the page plus one, less the tie's one entry");
    });

    it("deleteExpired counts then deletes expired memories: scoped to a namespace, or the one store-wide delete", async () => {
      const store = await openWithClock();
      const expiring = (namespace: string): MemoryRecord => record(namespace, { id: "x", text: "brief", expiresAt: "2024-06-01T00:00:00Z" }, [1, 0, 0, 0]);
      await store.upsert("alice", [expiring("alice")]);
      await store.upsert("bob", [expiring("bob")]);
      clock.now = Date.parse("2024-07-01T00:00:00Z");
      const expired = { key: "expiresAtMs", range: { lte: clock.now } };

      stub.clearRequests();
      assert.equal(await store.deleteExpired("alice"), 1);
      for (const request of [...stub.requestsOf("count_points"), ...stub.requestsOf("delete_points")]) {
        assert.deepEqual(field(request.body as Json, "filter"), {
          must: [{ key: "namespace", match: { value: "alice" } }, { key: "record", match: { value: "memory" } }, expired],
        });
      }
      assert.equal(stub.requestsOf("delete_points")[0]?.query.get("wait"), "true");

      stub.clearRequests();
      assert.equal(await store.deleteExpired(), 1);
      const [deleted] = stub.requestsOf("delete_points");
      assert.deepEqual(field(deleted?.body as Json, "filter"), { must: [{ key: "record", match: { value: "memory" } }, expired] }, "settings points are never pruned");
      stub.clearRequests();
      assert.equal(await store.deleteExpired(), 0);
      assert.equal(stub.requestsOf("delete_points").length, 0, "nothing expired: count only");
    });
  });

  describe("origin lease", () => {
    const leaseRequests = () => stub.requests.filter((request) => ["upsert_points", "get_points"].includes(request.operationId));
    const holderOf = (request: RecordedRequest | undefined) => field(request?.body as Json, "points", 0, "payload", "holder");

    it("takes, renews and frees one vector-less lease point by conditional upserts (wait, strong ordering), each read back from all replicas", async () => {
      const store = await openQdrantStore({ url: stub.url, collection, embedding: EMBEDDING, clock: () => NOW });
      stub.clearRequests();
      const release = await store.leaseOrigin("/data/parcels.jsonl");
      await release();
      const requests = leaseRequests();
      assert.deepEqual(
        requests.map((request) => [request.operationId, field(request.body as Json, "update_mode") ?? null]),
        [["upsert_points", "upsert"], ["get_points", null], ["upsert_points", "update_only"], ["get_points", null], ["upsert_points", "update_only"]],
        "take, read back; at the release a last renewal, read back; then free",
      );
      const holder = holderOf(requests[0]);
      assert.ok(typeof holder === "string" && holder.length > 0);
      const id = leasePointId("/data/parcels.jsonl");
      const take = requests[0]?.body as Json;
      assert.deepEqual(take, {
        points: [{ id, vector: {}, payload: { record: "lease", origin: "/data/parcels.jsonl", holder, heldUntilMs: NOW + LEASE_TAKEOVER_MS } }],
        update_filter: { should: [{ key: "holder", match: { value: holder } }, { key: "heldUntilMs", range: { lt: NOW } }] },
        update_mode: "upsert",
      }, "inserted when absent, else overwritten only when mine or lapsed; no namespace, so no namespace read or delete reaches it");
      assert.deepEqual(requests[1]?.body, { ids: [id], with_payload: true, with_vector: false });
      assert.deepEqual(field(requests[2]?.body as Json, "update_filter"), { must: [{ key: "holder", match: { value: holder } }] });
      assert.deepEqual(field(requests[4]?.body as Json, "points", 0, "payload"), { record: "lease", origin: "/data/parcels.jsonl", holder: "", heldUntilMs: 0 });
      assert.deepEqual(field(requests[4]?.body as Json, "update_filter"), { must: [{ key: "holder", match: { value: holder } }] });
      for (const request of requests) {
        if (request.operationId === "upsert_points") assert.deepEqual([request.query.get("wait"), request.query.get("ordering")], ["true", "strong"]);
        else assert.equal(request.query.get("consistency"), "all");
      }
    });

    it("is a no-op on a read-only store, and a lease request that fails is a StoreError of leaseOrigin", async () => {
      await open();
      const readOnly = await openQdrantStore({ url: stub.url, collection, embedding: EMBEDDING, readOnly: true });
      stub.clearRequests();
      await (await readOnly.leaseOrigin("parcels"))();
      assert.deepEqual(leaseRequests(), []);
      const store = await open();
      stub.failNext("upsert_points", 503, "overloaded");
      await assert.rejects(store.leaseOrigin("parcels"), (error: unknown) => error instanceof StoreError && /^leaseOrigin: .*HTTP 503/.test(error.message));
      await (await store.leaseOrigin("parcels"))();
    });
  });

  describe("a collection of its own (createQdrantStore, drop)", () => {
    it("creates a new collection, refuses one that exists without touching it, and drop deletes it and closes the store", async () => {
      const store = await createQdrantStore({ url: stub.url, collection, embedding: EMBEDDING });
      assert.deepEqual(stub.requestsOf("create_collection").map((request) => request.collection), [collection]);
      await store.upsert("alice", [record("alice", { id: "a", text: "x" }, [1, 0, 0, 0])]);

      stub.clearRequests();
      await assert.rejects(createQdrantStore({ url: stub.url, collection, embedding: EMBEDDING }), (error: unknown) => {
        assert.ok(error instanceof StoreError);
        assert.match(error.message, /already exists: a new store needs a collection of its own/);
        return true;
      });
      assert.deepEqual(stub.requests.map((request) => request.operationId), ["collection_exists"], "an existing collection is only asked about");
      assert.equal(stub.storedPoints(collection).length, 1);

      assert.equal(await store.drop(), true);
      assert.ok(!stub.collectionNames().includes(collection), "the collection is gone");
      await assert.rejects(store.get("alice", ["a"]), /get: store is closed/);
    });

    it("drops the collection again when opening fails after creating it, and throws the open's error", async () => {
      stub.failNext("create_field_index", 500, "index trouble");
      await assert.rejects(createQdrantStore({ url: stub.url, collection, embedding: EMBEDDING }), (error: unknown) => {
        assert.ok(error instanceof StoreError);
        assert.match(error.message, /^open: .*HTTP 500: index trouble/);
        return true;
      });
      assert.equal(stub.requestsOf("create_collection").length, 1);
      assert.deepEqual(stub.requestsOf("delete_collection").map((request) => request.collection), [collection]);
      assert.ok(!stub.collectionNames().includes(collection));
    });

    it("refuses readOnly before any request, and drop on a read-only store", async () => {
      await assert.rejects(createQdrantStore({ url: stub.url, collection, embedding: EMBEDDING, readOnly: true }), (error: unknown) => {
        assert.ok(error instanceof ValidationError);
        assert.equal(error.field, "qdrant.readOnly");
        return true;
      });
      assert.equal(stub.requests.length, 0);
      await open();
      const reader = await openQdrantStore({ url: stub.url, collection, embedding: EMBEDDING, readOnly: true });
      await assert.rejects(reader.drop(), /drop/);
      assert.ok(stub.collectionNames().includes(collection));
    });
  });

  describe("failures", () => {
    it("wraps HTTP errors in a StoreError naming the operation and the server's message", async () => {
      const store = await open();
      stub.failNext("query_batch_points", 500, "Service internal error: disk on fire");
      await assert.rejects(store.denseSearch("alice", [1, 0, 0, 0], { k: 1 }), (error: unknown) => {
        assert.ok(error instanceof StoreError);
        assert.equal(error.context.operation, "denseSearch");
        assert.match(error.message, /^denseSearch: .*HTTP 500.*disk on fire/);
        return true;
      });
      stub.failNext("upsert_points", 503, "overloaded");
      await assert.rejects(store.upsert("alice", [record("alice", { text: "x" }, [1, 0, 0, 0])]), /^StoreError|upsert: .*HTTP 503/);
    });

    it("turns a timeout into a StoreError whose cause is a RequestTimeoutError", async () => {
      const store = await open({ timeoutMs: 150 });
      stub.failNext("scroll_points", 500, "late", 1_000);
      await assert.rejects(store.get("alice", ["a"]), (error: unknown) => {
        assert.ok(error instanceof StoreError);
        assert.match(error.message, /^get: .*timed out/);
        assert.ok(error.cause instanceof RequestTimeoutError);
        return true;
      });
    });

    it("gives a StoreError, never a hang, when a server stalls mid-answer or sends more than the cap", async (t) => {
      const server = createServer((request, response) => {
        request.resume();
        response.writeHead(200, { "content-type": "application/json", ...(request.url?.endsWith("/exists") ? { "content-length": String(QDRANT_MAX_RESPONSE_BYTES + 1) } : {}) });
        response.write('{"result":');
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      t.after(() => {
        server.closeAllConnections();
        server.close();
      });
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      await assert.rejects(openQdrantStore({ url, embedding: EMBEDDING, timeoutMs: 30_000 }), (error: unknown) => {
        assert.ok(error instanceof StoreError, String(error));
        assert.equal(error.context.operation, "open");
        assert.ok(error.cause instanceof ResponseTooLargeError);
        assert.match(error.message, new RegExp(`larger than ${QDRANT_MAX_RESPONSE_BYTES} bytes`));
        return true;
      });
      const store = new QdrantMemoryStore(new QdrantRest({ url, timeoutMs: 150 }), "stalled", EMBEDDING);
      t.after(() => store.close());
      await assert.rejects(store.denseSearch("alice", [1, 0, 0, 0], { k: 1 }), (error: unknown) => {
        assert.ok(error instanceof StoreError && error.cause instanceof RequestTimeoutError, String(error));
        return true;
      });
    });

    it("fails to open with a StoreError when nothing listens", async () => {
      await assert.rejects(openQdrantStore({ url: "http://127.0.0.1:9", embedding: EMBEDDING, timeoutMs: 2_000 }), (error: unknown) => {
        assert.ok(error instanceof StoreError);
        assert.equal(error.context.operation, "open");
        return true;
      });
    });

    it("refuses calls after close", async () => {
      const store = await open();
      await store.close();
      await assert.rejects(store.get("alice", ["a"]), /get: store is closed/);
    });
  });
});
