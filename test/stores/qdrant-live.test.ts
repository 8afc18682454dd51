/**
 * The MemoryStore contract against a live Qdrant server, when QDRANT_URL is set (QDRANT_API_KEY
 * optional). Every store the suite opens gets its own collection, named after this run, and every
 * collection created is dropped afterwards. Without QDRANT_URL the suite is skipped, visibly.
 */
import { randomBytes } from "node:crypto";
import { after, describe, it } from "node:test";
import { QdrantClient } from "@qdrant/js-client-rest";
import { openQdrantStore } from "../../src/stores/qdrant.js";
import { runMemoryStoreContract } from "../contract/memory-store.contract.js";
import { runQdrantLeaseCases } from "./qdrant-lease.cases.js";

const url = process.env.QDRANT_URL?.trim();
const apiKey = process.env.QDRANT_API_KEY?.trim() || undefined;
const SKIP = url ? false : "QDRANT_URL is not set: live Qdrant contract suite skipped (no Qdrant server runs here)";
if (SKIP) console.log(`# SKIP ${SKIP}`);

/** Unique per run so concurrent runs against one server never share a collection. */
const runId = `${Date.now().toString(36)}_${randomBytes(3).toString("hex")}`;
const created = new Set<string>();

// A skipped test (not only a skipped suite) so the runner's summary counts it under "skipped".
if (SKIP) it("MemoryStore contract against a live Qdrant", { skip: SKIP }, () => undefined);

describe("Qdrant adapter against a live server (QDRANT_URL)", { skip: SKIP }, () => {
  after(async () => {
    if (!url) return;
    const admin = new QdrantClient({ url, ...(apiKey ? { apiKey } : {}), checkCompatibility: false });
    for (const collection of created) await admin.deleteCollection(collection).catch(() => undefined);
  });

  runMemoryStoreContract(
    `qdrant (live at ${url ?? "-"})`,
    (embedding, backend, extras) => {
      const collection = `rg_contract_${runId}_${backend.replace(/[^A-Za-z0-9_-]/g, "_")}`;
      created.add(collection);
      return openQdrantStore({ url: url ?? "", ...(apiKey ? { apiKey } : {}), collection, embedding, ...extras });
    },
    { reopenable: true },
  );

  let leaseCollections = 0;
  runQdrantLeaseCases(`live at ${url ?? "-"}`, () => ({
    url: url ?? "",
    ...(apiKey ? { apiKey } : {}),
    collection: () => {
      const collection = `rg_lease_${runId}_${++leaseCollections}`;
      created.add(collection);
      return collection;
    },
  }));
});
