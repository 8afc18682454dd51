/** The Qdrant origin lease against SpecCheckingQdrantStub (not a real Qdrant: see its header); the live suite runs the same cases. */
import assert from "node:assert/strict";
import { after, before, describe } from "node:test";
import { QDRANT_SPEC_PATH, qdrantSpecAvailable } from "./qdrant-spec.js";
import { runQdrantLeaseCases } from "./qdrant-lease.cases.js";
import { SpecCheckingQdrantStub } from "./qdrant-stub.js";

const SKIP = qdrantSpecAvailable() ? false : `Qdrant OpenAPI spec not found at ${QDRANT_SPEC_PATH}: lease cases skipped`;

describe("Qdrant origin lease via SpecCheckingQdrantStub", { skip: SKIP }, () => {
  let stub: SpecCheckingQdrantStub | undefined;
  let collections = 0;
  before(async () => {
    stub = await SpecCheckingQdrantStub.start();
  });
  after(async () => {
    assert.deepEqual(stub?.violations, [], "every lease request satisfies Qdrant's OpenAPI spec");
    await stub?.close();
  });

  runQdrantLeaseCases("stub", () => {
    if (!stub) throw new Error("stub not started");
    return { url: stub.url, collection: () => `rg_lease_${++collections}` };
  });
});
