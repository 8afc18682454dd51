/** The chat model from the environment: its variables are checked even while no model is set. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ChatOpenAI } from "@langchain/openai";
import { ValidationError } from "../../src/core/errors.js";
import { chatModelFromEnv } from "../../src/llm/chat-model.js";

describe("chatModelFromEnv", () => {
  it("is no model when RECALLGRAPH_LLM_MODEL is unset", () => {
    assert.equal(chatModelFromEnv({}), undefined);
  });

  it("gives the client RECALLGRAPH_LLM_RETRIES retries and RECALLGRAPH_LLM_TIMEOUT_MS per request", () => {
    const model = chatModelFromEnv({ RECALLGRAPH_LLM_MODEL: "local", RECALLGRAPH_LLM_RETRIES: "2", RECALLGRAPH_LLM_TIMEOUT_MS: "1500" });
    assert.ok(model instanceof ChatOpenAI);
    assert.equal(model.caller.maxRetries, 2);
    assert.equal(model.timeout, 1500);
    const fallback = chatModelFromEnv({ RECALLGRAPH_LLM_MODEL: "local" });
    assert.ok(fallback instanceof ChatOpenAI);
    assert.equal(fallback.caller.maxRetries, 0, "no client retries unless asked: the run's own retries and deadline bound the wait");
  });

  it("refuses a bad retry count or timeout by name, with or without a model", () => {
    for (const env of [{ RECALLGRAPH_LLM_RETRIES: "-1" }, { RECALLGRAPH_LLM_RETRIES: "many", RECALLGRAPH_LLM_MODEL: "local" }]) {
      assert.throws(() => chatModelFromEnv(env), (error: unknown) => error instanceof ValidationError && error.field === "RECALLGRAPH_LLM_RETRIES");
    }
    assert.throws(() => chatModelFromEnv({ RECALLGRAPH_LLM_TIMEOUT_MS: "0" }), (error: unknown) => error instanceof ValidationError && error.field === "RECALLGRAPH_LLM_TIMEOUT_MS");
  });
});
