/** The store factory's configuration parsing, and that it opens the Qdrant adapter (against the spec-checking stub, not a real Qdrant). */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ValidationError } from "../../src/core/errors.js";
import { DEFAULT_SQLITE_PATH, openStore, StoreConfigSchema, storeConfigFromEnv } from "../../src/stores/open-store.js";
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

  it("names the offending variable", () => {
    const field = (env: Record<string, string>): string => {
      try {
        storeConfigFromEnv(env);
      } catch (error) {
        assert.ok(error instanceof ValidationError);
        return error.field;
      }
      return "(no error)";
    };
    assert.equal(field({ RECALLGRAPH_STORE: "qdrant" }), "QDRANT_URL");
    assert.equal(field({ RECALLGRAPH_STORE: "qdrant", QDRANT_URL: "nope" }), "QDRANT.url");
    assert.equal(field({ RECALLGRAPH_STORE: "postgres" }), "RECALLGRAPH_STORE");
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
      assert.deepEqual(stub.violations, []);
    } finally {
      await stub.close();
    }
  });
});
