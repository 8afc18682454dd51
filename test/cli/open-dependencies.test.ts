import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { openForWriting } from "../../src/cli/open-dependencies.js";
import { GlobalOptionsSchema } from "../../src/cli/global-options.js";
import { CheckedEmbeddings } from "../../src/text/embedders/checked.js";
import { UseLiteEmbeddings } from "../../src/text/embedders/use-lite.js";

/** The CLI reads the embedder from the environment: two workers, one text per model call (two texts, two batches). */
const ENVIRONMENT = { RECALLGRAPH_EMBEDDER: "use-lite", RECALLGRAPH_EMBEDDING_WORKERS: "2", RECALLGRAPH_EMBEDDING_BATCH_SIZE: "1" };

describe("the CLI's opened dependencies", { timeout: 300_000 }, () => {
  const saved = { ...process.env };
  before(() => {
    // Offline and decided here: no model, store or embedder from the machine's environment.
    for (const name of Object.keys(process.env)) if (/^(RECALLGRAPH_|OPENAI_|QDRANT_)/.test(name)) delete process.env[name];
    Object.assign(process.env, ENVIRONMENT);
  });
  after(() => {
    for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
    Object.assign(process.env, saved);
  });

  it("close() closes the store and the embedder: USE-lite's worker threads stop", async () => {
    const dependencies = await openForWriting(GlobalOptionsSchema.parse({ db: ":memory:" }));
    const { embeddings } = dependencies.embedder;
    assert.ok(embeddings instanceof CheckedEmbeddings && embeddings.inner instanceof UseLiteEmbeddings);
    assert.equal((await embeddings.embedDocuments(["a dog in the park", "a tax return"])).length, 2);
    assert.equal(embeddings.inner.poolRunning, true);
    await dependencies.close();
    assert.equal(embeddings.inner.poolRunning, false);
    await assert.rejects(dependencies.store.stats());
  });
});
