/** The store factory's configuration parsing, and that it opens the Qdrant adapter (against the spec-checking stub, not a real Qdrant). */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ValidationError } from "../../src/core/errors.js";
import { openStore, StoreConfigSchema, storeConfigFromEnv } from "../../src/stores/open-store.js";
import { DEFAULT_SQLITE_PATH } from "../../src/stores/sqlite/kind.js";
import { qdrantSpecAvailable, QDRANT_SPEC_PATH } from "./qdrant-spec.js";
import { SpecCheckingQdrantStub } from "./qdrant-stub.js";

describe("storeConfigFromEnv", () => {
  it("defaults to sqlite at ./.recallgraph/memory.db", () => {
    assert.deepEqual(storeConfigFromEnv({}), { kind: "sqlite", path: DEFAULT_SQLITE_PATH });
    assert.deepEqual(storeConfigFromEnv({ RECALLGRAPH_DB: ":memory:" }), { kind: "sqlite", path: ":memory:" });
  });

  it("reads the qdrant variables", () => {
    assert.deepEqual(storeConfigFromEnv({ RECALLGRAPH_STORE: "qdrant", QDRANT_URL: "http://q:6333" }), { kind: "qdrant", url: "http://q:6333" });
    assert.deepEqual(
      storeConfigFromEnv({ RECALLGRAPH_STORE: "QDRANT", QDRANT_URL: "https://q.example", QDRANT_API_KEY: "k", QDRANT_COLLECTION: "mem" }),
      { kind: "qdrant", url: "https://q.example", apiKey: "k", collection: "mem" },
    );
  });

  it("reads the cluster settings of the collection", () => {
    const qdrant = { RECALLGRAPH_STORE: "qdrant", QDRANT_URL: "http://q:6333" };
    assert.deepEqual(storeConfigFromEnv({ ...qdrant, QDRANT_SHARDS: "3", QDRANT_REPLICATION_FACTOR: "2", QDRANT_WRITE_CONSISTENCY: " 2 " }), {
      kind: "qdrant",
      url: "http://q:6333",
      shards: 3,
      replicationFactor: 2,
      writeConsistencyFactor: 2,
    });
    assert.deepEqual(storeConfigFromEnv({ ...qdrant, QDRANT_SHARDS: "4", QDRANT_REPLICATION_FACTOR: "" }), { ...storeConfigFromEnv(qdrant), shards: 4 }, "empty is unset");
  });

  it("names the offending variable", () => {
    const refusal = (env: Record<string, string>): { field: string; message: string } => {
      try {
        storeConfigFromEnv(env);
      } catch (error) {
        assert.ok(error instanceof ValidationError);
        return { field: error.field, message: error.message };
      }
      return { field: "(no error)", message: "" };
    };
    const field = (env: Record<string, string>): string => refusal(env).field;
    assert.equal(field({ RECALLGRAPH_STORE: "qdrant" }), "QDRANT_URL");
    assert.equal(field({ RECALLGRAPH_STORE: "qdrant", QDRANT_URL: "nope" }), "QDRANT.url");
    assert.equal(field({ RECALLGRAPH_STORE: "postgres" }), "RECALLGRAPH_STORE");

    const qdrant = { RECALLGRAPH_STORE: "qdrant", QDRANT_URL: "http://q:6333" };
    assert.deepEqual(refusal({ ...qdrant, QDRANT_SHARDS: "three" }), { field: "QDRANT_SHARDS", message: 'QDRANT_SHARDS: must be a positive integer, got "three"' });
    assert.equal(field({ ...qdrant, QDRANT_SHARDS: "0" }), "QDRANT_SHARDS");
    assert.equal(field({ ...qdrant, QDRANT_REPLICATION_FACTOR: "1.5" }), "QDRANT_REPLICATION_FACTOR");
    assert.equal(field({ ...qdrant, QDRANT_WRITE_CONSISTENCY: "-2" }), "QDRANT_WRITE_CONSISTENCY");
  });

  it("refuses a write consistency factor above the replication factor, naming the field", () => {
    const qdrant = { RECALLGRAPH_STORE: "qdrant", QDRANT_URL: "http://q:6333" };
    assert.throws(
      () => storeConfigFromEnv({ ...qdrant, QDRANT_REPLICATION_FACTOR: "2", QDRANT_WRITE_CONSISTENCY: "3" }),
      (error: unknown) => {
        assert.ok(error instanceof ValidationError);
        assert.equal(error.field, "QDRANT.writeConsistencyFactor");
        assert.match(error.message, /writeConsistencyFactor \(3\) must not exceed replicationFactor \(2\)/);
        return true;
      },
    );
    const parsed = StoreConfigSchema.safeParse({ kind: "qdrant", url: "http://q:6333", replicationFactor: 1, writeConsistencyFactor: 2 });
    assert.deepEqual(parsed.error?.issues.map((issue) => issue.path), [["writeConsistencyFactor"]]);
    assert.equal(StoreConfigSchema.safeParse({ kind: "qdrant", url: "http://q:6333", replicationFactor: 3, writeConsistencyFactor: 3 }).success, true);
    assert.equal(
      StoreConfigSchema.safeParse({ kind: "qdrant", url: "http://q:6333", writeConsistencyFactor: 2 }).success,
      true,
      "without a replication factor the server's default applies, which recallgraph cannot see",
    );
  });

  it("StoreConfigSchema is a discriminated union on kind", () => {
    assert.equal(StoreConfigSchema.safeParse({ kind: "qdrant", path: "x" }).success, false);
    assert.equal(StoreConfigSchema.safeParse({ kind: "sqlite", path: "x" }).success, true);
  });
});

describe("openStore", () => {
  it("opens the Qdrant adapter from a config", { skip: qdrantSpecAvailable() ? false : `Qdrant OpenAPI spec not found at ${QDRANT_SPEC_PATH}` }, async () => {
    const stub = await SpecCheckingQdrantStub.start();
    try {
      const store = await openStore({ kind: "qdrant", url: stub.url, collection: "factory_test" }, { model: "m", dimension: 3 });
      assert.equal(store.kind, "qdrant");
      assert.deepEqual(store.embedding, { model: "m", dimension: 3 });
      assert.equal(stub.requestsOf("create_collection")[0]?.collection, "factory_test");
      await store.close();

      const clustered = await openStore(
        { kind: "qdrant", url: stub.url, collection: "factory_cluster", shards: 3, replicationFactor: 2, writeConsistencyFactor: 2 },
        { model: "m", dimension: 3 },
      );
      const body = stub.requestsOf("create_collection")[1]?.body;
      assert.ok(body !== null && typeof body === "object" && !Array.isArray(body));
      assert.deepEqual([body.shard_number, body.replication_factor, body.write_consistency_factor], [3, 2, 2], "passed through to the adapter");
      await clustered.close();

      const facetsOfTwoVocabularies = async (config: { namespaceCacheMs?: number }): Promise<number> => {
        const opened = await openStore({ kind: "qdrant", url: stub.url, collection: "factory_cache", ...config }, { model: "m", dimension: 3 });
        stub.clearRequests();
        await opened.vocabulary("ns");
        await opened.vocabulary("ns");
        await opened.close();
        return stub.requestsOf("facet").length;
      };
      assert.equal(await facetsOfTwoVocabularies({}), 3, "by default the second vocabulary is the kept one");
      assert.equal(await facetsOfTwoVocabularies({ namespaceCacheMs: 0 }), 6, "namespaceCacheMs passed through: nothing kept");
      assert.equal(StoreConfigSchema.safeParse({ kind: "qdrant", url: "http://q:6333", namespaceCacheMs: -1 }).success, false);
      assert.deepEqual(stub.violations, []);
    } finally {
      await stub.close();
    }
  });
});
