import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { ingestDocuments } from "../../src/ingest/documents.js";
import { ingestFile } from "../../src/ingest/ingest-file.js";
import type { MemoryStore } from "../../src/stores/port.js";
import { openTestSqliteStore, testEmbedder } from "./helpers.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const LOCOMO_PATH = path.resolve(ROOT, "../shared/data/locomo/locomo10.json");

describe("ingest into the real sqlite store", () => {
  let folder = "";
  let store: MemoryStore;
  before(async () => {
    folder = await mkdtemp(path.join(tmpdir(), "recallgraph-sqlite-ingest-"));
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it("a changed document retires its old chunks: a search never returns a stale one", async () => {
    store = await openTestSqliteStore();
    const doc = path.join(folder, "policy.md");
    await writeFile(doc, "# Travel policy\n\n## Hotels\n\nHotels in Shanghai: up to 700 yuan per night.\n\n## Meals\n\nMeals: 150 yuan per day.");
    const first = await ingestDocuments(store, testEmbedder, "kb", folder);
    assert.equal(first.entries, 2);
    assert.deepEqual(await store.documentVersions("kb", ["policy.md"]), { "policy.md": 1 });

    const unchanged = await ingestDocuments(store, testEmbedder, "kb", folder);
    assert.equal(unchanged.entries, 0);
    assert.equal((await store.stats()).namespaces.kb, 2);

    await writeFile(doc, "# Travel policy\n\n## Hotels\n\nHotels in Shanghai: up to 800 yuan per night.\n\n## Meals\n\nMeals: 150 yuan per day.");
    const changed = await ingestDocuments(store, testEmbedder, "kb", folder);
    assert.equal(changed.retired, 2);
    assert.deepEqual(await store.documentVersions("kb", ["policy.md"]), { "policy.md": 2 });
    const hits = await store.lexicalSearch("kb", "hotel Shanghai yuan per night", { k: 10 });
    assert.ok(hits.length > 0);
    assert.ok(hits.every((hit) => hit.entry.source?.version === 2), "only the new version is found");
    assert.ok(hits.some((hit) => hit.entry.text.includes("800 yuan")));
    assert.ok(!hits.some((hit) => hit.entry.text.includes("700 yuan")));
    await store.close();
  });

  it(
    "LoCoMo conv-26: re-ingesting replaces, and a known evidence turn is found lexically",
    { skip: existsSync(LOCOMO_PATH) ? false : `LoCoMo data not found at ${LOCOMO_PATH}` },
    async () => {
      store = await openTestSqliteStore();
      const summary = await ingestFile(LOCOMO_PATH, { store, embedder: testEmbedder, conversations: ["conv-26"] });
      assert.deepEqual(summary.namespaces, { "conv-26": 419 });
      await ingestFile(LOCOMO_PATH, { store, embedder: testEmbedder, conversations: ["conv-26"] });
      assert.equal((await store.stats()).namespaces["conv-26"], 419);
      const hits = await store.lexicalSearch("conv-26", "When did Caroline go to the LGBTQ support group?", { k: 5 });
      assert.ok(hits.some((hit) => hit.entry.source?.turnIds?.includes("D1:3")), JSON.stringify(hits.map((hit) => hit.entry.source)));
      const vocabulary = await store.vocabulary("conv-26");
      assert.ok(vocabulary.persons.includes("Caroline") && vocabulary.persons.includes("Melanie"));
      await store.close();
    },
  );
});
