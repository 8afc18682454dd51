/** The chat model from the environment: its variables are checked even while no model is set. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { ChatOpenAI } from "@langchain/openai";
import { ValidationError } from "../../src/core/errors.js";
import { loadChatModelFromEnv } from "../../src/llm/load-chat-model.js";

describe("loadChatModelFromEnv", () => {
  it("is no model when RECALLGRAPH_LLM_MODEL is unset", async () => {
    assert.equal(await loadChatModelFromEnv({}), undefined);
  });

  it("retries a failed request RECALLGRAPH_LLM_RETRIES times, and not at all by default", async () => {
    const server = await flakyChatServer(1);
    try {
      const env = { RECALLGRAPH_LLM_MODEL: "local", OPENAI_BASE_URL: server.url, RECALLGRAPH_LLM_TIMEOUT_MS: "10000" };
      const retrying = await loadChatModelFromEnv({ ...env, RECALLGRAPH_LLM_RETRIES: "1" });
      assert.ok(retrying instanceof ChatOpenAI);
      const reply = await retrying.invoke("hello");
      assert.equal(reply.content, "fine");
      assert.equal(server.requests(), 2, "the failed request and its one retry");

      server.failNext(1);
      const once = await loadChatModelFromEnv(env);
      await assert.rejects(once?.invoke("hello") ?? Promise.reject(new Error("no model")));
      assert.equal(server.requests(), 3, "no retry unless asked: the run's own retries and deadline bound the wait");
    } finally {
      await server.close();
    }
  });

  it("refuses a bad retry count or timeout by name, with or without a model", async () => {
    const named = (field: string) => (error: unknown) => error instanceof ValidationError && error.field === field;
    for (const env of [{ RECALLGRAPH_LLM_RETRIES: "-1" }, { RECALLGRAPH_LLM_RETRIES: "many", RECALLGRAPH_LLM_MODEL: "local" }]) {
      await assert.rejects(loadChatModelFromEnv(env), named("RECALLGRAPH_LLM_RETRIES"));
    }
    await assert.rejects(loadChatModelFromEnv({ RECALLGRAPH_LLM_TIMEOUT_MS: "0" }), named("RECALLGRAPH_LLM_TIMEOUT_MS"));
  });
});

/** An OpenAI-compatible chat endpoint on loopback that answers 500 to the next `failures` requests, then a reply. */
async function flakyChatServer(failures: number) {
  let failing = failures;
  let requests = 0;
  const server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      requests += 1;
      if (failing > 0) {
        failing -= 1;
        response.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "overloaded" } }));
        return;
      }
      const reply = { id: "c1", object: "chat.completion", created: 0, model: "local", choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: "fine" } }] };
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(reply));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests: () => requests,
    failNext: (count: number) => void (failing = count),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
