/**
 * The MemoryStore contract run against the Qdrant adapter talking to SpecCheckingQdrantStub, the
 * loopback fake that validates every request against Qdrant's OpenAPI spec. This is NOT a real Qdrant:
 * passing here shows the adapter's logic meets the contract given Qdrant's documented semantics as the
 * stub models them, and that every request it sends is spec-valid. The live suite (QDRANT_URL) is the
 * check against the real engine.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { openQdrantStore } from "../../src/stores/qdrant.js";
import { runMemoryStoreContract } from "../contract/memory-store.contract.js";
import { QDRANT_SPEC_PATH, qdrantSpecAvailable } from "./qdrant-spec.js";
import { SpecCheckingQdrantStub } from "./qdrant-stub.js";

const SKIP = qdrantSpecAvailable() ? false : `Qdrant OpenAPI spec not found at ${QDRANT_SPEC_PATH}: stub contract suite skipped`;
if (SKIP) console.log(`# SKIP ${SKIP}`);

describe("Qdrant adapter via SpecCheckingQdrantStub (not a real Qdrant)", { skip: SKIP }, () => {
  let stub: SpecCheckingQdrantStub | undefined;
  before(async () => {
    stub = await SpecCheckingQdrantStub.start();
  });
  after(async () => {
    await stub?.close();
  });

  runMemoryStoreContract(
    "qdrant adapter + SpecCheckingQdrantStub",
    (embedding, backend, extras) => {
      if (!stub) throw new Error("stub not started");
      return openQdrantStore({ url: stub.url, collection: backend.replace(/[^A-Za-z0-9_-]/g, "_"), embedding, ...extras });
    },
    { reopenable: true },
  );

  it("every request of the contract run satisfied Qdrant's OpenAPI spec", () => {
    assert.ok(stub && stub.requests.length > 0);
    assert.deepEqual(stub?.violations, []);
  });
});
