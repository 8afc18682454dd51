/**
 * A model or embedding endpoint that answers 200 and then sends without end: the clients read a whole
 * response before parsing it, so without a cap the process buffered gigabytes before its time limit.
 * Each call now fails once MAX_RESPONSE_BYTES have arrived, naming the limit, and the connection is
 * closed: the server gets to send little more than the limit (what socket buffers hold besides).
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { MAX_RESPONSE_BYTES } from "../../src/core/bounded-fetch.js";
import { createChatModel } from "../../src/llm/chat-model.js";
import { createEmbedder } from "../../src/text/embedders/create-embedder.js";

const CHUNK = Buffer.alloc(64 * 1024, "a");

describe("an endpoint whose response never ends", () => {
  let server: Server;
  let url = "";
  /** Bytes written per response so far, by the order requests came in. */
  const sent: number[] = [];
  const closed: boolean[] = [];

  before(async () => {
    server = createServer((request, response) => {
      request.resume();
      const index = sent.push(0) - 1;
      closed.push(false);
      response.writeHead(200, { "content-type": "application/json" });
      response.write('{"data": "');
      // Stops writing as soon as the client goes away; bounded anyway, so the test cannot run forever.
      const pump = () => {
        while (!response.destroyed && (sent[index] ?? 0) < 256 * 1024 * 1024) {
          sent[index] = (sent[index] ?? 0) + CHUNK.length;
          if (!response.write(CHUNK)) return void response.once("drain", pump);
        }
        response.end();
      };
      response.on("close", () => (closed[index] = true));
      pump();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });

  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("makes a chat call fail at the cap, naming it, and closes the connection", async () => {
    const model = createChatModel({ model: "local", baseURL: url, timeoutMs: 60_000, maxRetries: 0 });
    const before = sent.length;
    await assert.rejects(model.invoke("hello"), (error: unknown) => {
      const text = `${String(error)} ${String((error as { cause?: unknown }).cause ?? "")}`;
      assert.match(text, new RegExp(`larger than ${MAX_RESPONSE_BYTES} bytes`));
      return true;
    });
    assert.equal(sent.length, before + 1, "one request, no retry");
    await waitFor(() => closed[before] === true);
    assert.ok((sent[before] ?? 0) < 2 * MAX_RESPONSE_BYTES, `the server sent ${sent[before]} bytes`);
  });

  it("makes an embedding call fail at the cap, naming it", async () => {
    const embedder = createEmbedder({ provider: "openai", model: "local", dimensions: 8, baseURL: url, maxRetries: 0, timeoutMs: 60_000 });
    const before = sent.length;
    await assert.rejects(embedder.embeddings.embedQuery("hello"), (error: unknown) => {
      const text = `${String(error)} ${String((error as { cause?: unknown }).cause ?? "")}`;
      assert.match(text, new RegExp(`larger than ${MAX_RESPONSE_BYTES} bytes`));
      return true;
    });
    await waitFor(() => closed[before] === true);
    assert.ok((sent[before] ?? 0) < 2 * MAX_RESPONSE_BYTES, `the server sent ${sent[before]} bytes`);
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let tries = 0; !condition(); tries++) {
    assert.ok(tries < 100, "in time");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
