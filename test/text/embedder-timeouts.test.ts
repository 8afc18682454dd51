import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { ValidationError } from "../../src/core/errors.js";
import { CheckedEmbeddings } from "../../src/text/embedders/checked.js";
import { createEmbedder, embedderConfigFromEnv } from "../../src/text/embedders/create-embedder.js";
import { LazyOpenAIEmbeddings, OPENAI_DEFAULT_MAX_RETRIES, OPENAI_DEFAULT_TIMEOUT_MS } from "../../src/text/embedders/openai.js";

const OPENAI_ENV = { RECALLGRAPH_EMBEDDER: "openai", OPENAI_BASE_URL: "http://127.0.0.1:9/v1", RECALLGRAPH_EMBEDDING_DIMENSIONS: "8" };

/** An /embeddings server that takes every request and never answers: the hung embedder of the finding. */
function hungServer(): { server: Server; requests: () => number; url: () => string } {
  let count = 0;
  const server = createServer(() => {
    count += 1; // never responds
  });
  return { server, requests: () => count, url: () => `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1` };
}

/** The LangChain embeddings under the dimension check, where the timeout and retries live. */
async function innerOf(embeddings: unknown): Promise<{ timeout?: number; caller: { maxRetries: number } }> {
  assert.ok(embeddings instanceof CheckedEmbeddings);
  assert.ok(embeddings.inner instanceof LazyOpenAIEmbeddings);
  return (await embeddings.inner.client()) as unknown as { timeout?: number; caller: { maxRetries: number } };
}

describe("openai embedder timeouts and retries", () => {
  const hung = hungServer();
  before(() => new Promise<void>((resolve) => hung.server.listen(0, "127.0.0.1", resolve)));
  after(() => {
    hung.server.closeAllConnections();
    hung.server.close();
  });

  it("defaults to a question's path: 10 s and one retry", async () => {
    const embedder = createEmbedder({ provider: "openai", model: "m", dimensions: 8, baseURL: "http://127.0.0.1:9/v1" });
    const inner = await innerOf(embedder.embeddings);
    assert.equal(inner.timeout, OPENAI_DEFAULT_TIMEOUT_MS);
    assert.equal(inner.caller.maxRetries, OPENAI_DEFAULT_MAX_RETRIES);
    assert.deepEqual([OPENAI_DEFAULT_TIMEOUT_MS, OPENAI_DEFAULT_MAX_RETRIES], [10_000, 1]);
  });

  it("reads the timeout and retries from the environment", async () => {
    const config = embedderConfigFromEnv({ ...OPENAI_ENV, RECALLGRAPH_EMBEDDING_TIMEOUT_MS: "250", RECALLGRAPH_EMBEDDING_RETRIES: "0" });
    assert.equal(config.provider, "openai");
    assert.ok(config.provider === "openai");
    assert.equal(config.timeoutMs, 250);
    assert.equal(config.maxRetries, 0);
    const inner = await innerOf(createEmbedder(config).embeddings);
    assert.equal(inner.timeout, 250);
    assert.equal(inner.caller.maxRetries, 0);
  });

  it("names the variable of a bad value", () => {
    for (const [name, value] of [
      ["RECALLGRAPH_EMBEDDING_RETRIES", "-1"],
      ["RECALLGRAPH_EMBEDDING_RETRIES", "11"],
      ["RECALLGRAPH_EMBEDDING_TIMEOUT_MS", "0"],
      ["RECALLGRAPH_EMBEDDING_TIMEOUT_MS", "soon"],
    ] as const) {
      assert.throws(
        () => embedderConfigFromEnv({ ...OPENAI_ENV, [name]: value }),
        (error: unknown) => error instanceof ValidationError && error.message.includes(name),
        `${name}=${value}`,
      );
    }
  });

  it("gives up on a hung server after the timeout and the configured retries", async () => {
    for (const maxRetries of [0, 1]) {
      const before = hung.requests();
      // Long enough that a loaded machine's request reaches the server before the client gives up on it.
      const embedder = createEmbedder({ provider: "openai", model: "m", dimensions: 8, baseURL: hung.url(), timeoutMs: 1000, maxRetries });
      await assert.rejects(embedder.embeddings.embedQuery("who met Alice?"));
      assert.equal(hung.requests() - before, 1 + maxRetries, `requests with maxRetries ${maxRetries}`);
    }
  });
});
