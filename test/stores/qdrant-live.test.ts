/**
 * The MemoryStore contract against a live Qdrant server, when QDRANT_URL is set (QDRANT_API_KEY
 * optional), and `eval --store qdrant` leaving no collection behind. Every store the suite opens gets
 * its own collection, named after this run, and every collection created is dropped afterwards.
 * Without QDRANT_URL the suite is skipped, visibly.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { QdrantClient } from "@qdrant/js-client-rest";
import { beirJson } from "../../src/eval/beir-report.js";
import { runBeirEval } from "../../src/eval/beir-run.js";
import { EVAL_COLLECTION_PREFIX } from "../../src/stores/qdrant-kind.js";
import { openQdrantStore } from "../../src/stores/qdrant.js";
import { runMemoryStoreContract } from "../contract/memory-store.contract.js";
import { runQdrantLeaseCases } from "./qdrant-lease.cases.js";

const BEIR_FIXTURE = fileURLToPath(new URL("../eval/fixtures/beir-tiny", import.meta.url));
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

  it("eval --store qdrant: the BEIR fixture scores as on sqlite, and its collection is gone afterwards", { timeout: 120_000 }, async () => {
    const admin = new QdrantClient({ url: url ?? "", ...(apiKey ? { apiKey } : {}), checkCompatibility: false });
    const evalCollections = async () => (await admin.getCollections()).collections.map((c) => c.name).filter((name) => name.startsWith(EVAL_COLLECTION_PREFIX));
    const before = await evalCollections();
    const options = { folder: BEIR_FIXTURE, mode: "dense" as const, embedder: { provider: "hash" as const } };
    const onServer = await runBeirEval({ ...options, store: { kind: "qdrant", url: url ?? "", ...(apiKey ? { apiKey } : {}) } });
    const onSqlite = await runBeirEval(options);
    // Dense search over ten documents is exact on both (Qdrant scans a segment this small in full).
    assert.deepEqual(beirJson(onServer).ndcg, beirJson(onSqlite).ndcg);
    assert.deepEqual(await evalCollections(), before, "no evaluation collection left behind");
  });

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
