import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { AIMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { Embeddings } from "@langchain/core/embeddings";
import type { Embedder } from "../../src/text/embedder.js";
import { createEmbedder } from "../../src/text/embedders/create-embedder.js";
import { teamMemory } from "../support/graph-fixture.js";
import { json, scriptedModel } from "../support/scripted-model.js";
import { NOW } from "../support/team-memory.js";

const QUESTION = "Who did Alice talk to about product XYZ-100 in Shanghai last week?";
const GOOD_PLAN = json({
  requiredInfo: ["who Alice talked to", "about XYZ-100 in Shanghai"],
  subQueries: ["Alice meeting Shanghai XYZ-100", "Alice talked to about XYZ-100"],
  keywords: ["Alice", "XYZ-100", "Shanghai", "talk"],
  persons: ["Alice"],
  entities: ["XYZ-100"],
  locations: ["Shanghai"],
  timeExpression: "last week",
});
const COMPLETE = json({ complete: true, coveragePercent: 100, missing: [], gapQueries: [] });
const INCOMPLETE = json({ complete: false, coveragePercent: 40, missing: ["who"], gapQueries: ["Alice meeting partner", "Bob Shanghai"] });

describe("retrieval graph with a chat model", () => {
  it("spends two LLM calls when the first round is complete", async () => {
    const { model, calls } = scriptedModel({ plan: GOOD_PLAN, reflect: COMPLETE });
    const memory = await teamMemory({ model });
    const output = await memory.retrieve({ question: QUESTION, namespace: "team", now: NOW });
    assert.equal(output.plan?.planner, "llm");
    assert.deepEqual(output.plan?.subQueries[0], QUESTION, "the question is always the first sub-query");
    assert.equal(output.plan?.subQueries.length, 3);
    assert.deepEqual(output.plan?.timeWindow, { startMs: Date.parse("2026-11-09T00:00:00Z"), endMs: Date.parse("2026-11-16T00:00:00Z") });
    assert.equal(output.rounds, 0);
    assert.deepEqual(calls, { plan: 1, reflect: 1, rerank: 0 });
    assert.equal(output.account.llmCalls, 2);
    assert.equal(output.account.inputTokens, 200);
    assert.equal(output.results[0]?.id, "shanghai-meeting");
    await memory.close();
  });

  it("searches again for gaps and stops at the round cap", async () => {
    const gaps = (round: number) => (round === 1 ? ["Alice meeting partner", "Bob Shanghai"] : ["Carol pricing call"]);
    const { model, calls } = scriptedModel({
      plan: GOOD_PLAN,
      reflect: (call) => json({ complete: false, coveragePercent: 40, missing: ["who"], gapQueries: gaps(call) }),
    });
    const memory = await teamMemory({ model });
    const output = await memory.retrieve({ question: QUESTION, namespace: "team", now: NOW }, { maxReflectionRounds: 2 });
    assert.equal(output.rounds, 2);
    assert.equal(calls.reflect, 2, "no model call at the cap");
    assert.ok(output.results.some((result) => result.provenance.ranks.some((rank) => rank.query === "Bob Shanghai")));
    await memory.close();
  });

  it("does not ask a model's gap query again in a later round", async () => {
    const { model, calls } = scriptedModel({ plan: GOOD_PLAN, reflect: INCOMPLETE });
    const memory = await teamMemory({ model });
    const output = await memory.retrieve({ question: QUESTION, namespace: "team", now: NOW }, { maxReflectionRounds: 2 });
    assert.equal(calls.reflect, 2);
    assert.equal(output.rounds, 1, "the second judgement repeats the first's queries: nothing new to search");
    await memory.close();
  });

    it("falls back to the rules when the model answers garbage, and the cap still holds", async () => {
    const { model, calls } = scriptedModel({ plan: "I think you should search for Alice.", reflect: "not json {" });
    const memory = await teamMemory({ model });
    const output = await memory.retrieve({ question: QUESTION, namespace: "team", now: NOW }, { maxReflectionRounds: 1 });
    assert.equal(output.plan?.planner, "rules");
    assert.equal(calls.plan, 2, "one retry before the rules");
    assert.ok(output.degraded.some((d) => d.step === "plan"));
    assert.ok(output.rounds <= 1);
    assert.equal(output.results[0]?.id, "shanghai-meeting");
    await memory.close();
  });

  it("retries each step as many times as llmRetries says, none when it is 0", async () => {
    const garbage = { plan: "no plan here", reflect: "not json {", rerank: "nor here" };
    const many = scriptedModel(garbage);
    let memory = await teamMemory({ model: many.model });
    const retried = await memory.retrieve({ question: QUESTION, namespace: "team", now: NOW }, { llmRetries: 2, maxReflectionRounds: 1, rerank: true });
    assert.deepEqual(many.calls, { plan: 3, reflect: 3, rerank: 3 });
    assert.equal(retried.plan?.planner, "rules");
    assert.equal(retried.results[0]?.id, "shanghai-meeting");
    await memory.close();

    const none = scriptedModel(garbage);
    memory = await teamMemory({ model: none.model });
    await memory.retrieve({ question: QUESTION, namespace: "team", now: NOW }, { llmRetries: 0, maxReflectionRounds: 1 });
    assert.deepEqual(none.calls, { plan: 1, reflect: 1, rerank: 0 });
    await memory.close();
  });

  it("falls back to the rules when the model throws", async () => {
    const model = fakeModel().alwaysThrow(new Error("connection refused"));
    const memory = await teamMemory({ model });
    const output = await memory.retrieve({ question: QUESTION, namespace: "team", now: NOW });
    assert.equal(output.plan?.planner, "rules");
    assert.match(output.degraded.find((d) => d.step === "plan")?.error ?? "", /connection refused/);
    assert.equal(output.results[0]?.id, "shanghai-meeting");
    await memory.close();
  });

  it("treats a model slower than the timeout as failed", async () => {
    const slow = Object.assign(fakeModel(), {
      invoke: async () => {
        await delay(400);
        return new AIMessage(GOOD_PLAN);
      },
    });
    const memory = await teamMemory({ model: slow });
    const output = await memory.retrieve({ question: QUESTION, namespace: "team", now: NOW }, { llmTimeoutMs: 100, reflection: false });
    assert.equal(output.plan?.planner, "rules");
    assert.match(output.degraded.find((d) => d.step === "plan")?.error ?? "", /did not answer within 100 ms/);
    assert.equal(output.results[0]?.id, "shanghai-meeting");
    await memory.close();
  });

  it("reranks with the model and renumbers, or keeps the fused order when too few scores parse", async () => {
    const reversed = json({ scores: Array.from({ length: 20 }, (_, index) => ({ index, score: index / 2 })) });
    const good = scriptedModel({ plan: GOOD_PLAN, reflect: COMPLETE, rerank: reversed });
    let memory = await teamMemory({ model: good.model });
    const plain = await memory.retrieve({ question: QUESTION, namespace: "team", now: NOW }, { rerank: false });
    const reranked = await memory.retrieve({ question: QUESTION, namespace: "team", now: NOW }, { rerank: true });
    assert.equal(good.calls.rerank, 1);
    assert.ok(plain.results.length >= 2);
    assert.deepEqual(
      reranked.results.map((r) => r.id),
      [...plain.results.map((r) => r.id)].reverse().slice(0, reranked.results.length),
    );
    assert.ok(reranked.results.every((r, i, all) => i === 0 || (all[i - 1]!.rerankScore ?? 0) >= (r.rerankScore ?? 0)));
    await memory.close();

    const sparse = scriptedModel({ plan: GOOD_PLAN, reflect: COMPLETE, rerank: json({ scores: [{ index: 0, score: 1 }] }) });
    memory = await teamMemory({ model: sparse.model });
    const kept = await memory.retrieve({ question: QUESTION, namespace: "team", now: NOW }, { rerank: true });
    assert.deepEqual(kept.results.map((r) => r.id), plain.results.map((r) => r.id));
    assert.ok(kept.degraded.some((d) => d.step === "rerank"));
    await memory.close();
  });
});

describe("retrieval graph when a component fails", () => {
  it("still answers from the lexical and symbolic views when the embedder is down", async () => {
    const healthy = createEmbedder({ provider: "hash", dimension: 256 });
    let down = false;
    class FlakyEmbeddings extends Embeddings {
      constructor() {
        super({});
      }
      async embedDocuments(texts: string[]) {
        if (down) throw new Error("embedding server unreachable");
        return healthy.embeddings.embedDocuments(texts);
      }
      async embedQuery(text: string) {
        if (down) throw new Error("embedding server unreachable");
        return healthy.embeddings.embedQuery(text);
      }
    }
    const flaky: Embedder = { ...healthy, embeddings: new FlakyEmbeddings() };
    const memory = await teamMemory({ embedder: flaky });
    down = true;
    const output = await memory.retrieve({ question: QUESTION, namespace: "team", now: NOW });
    assert.ok(output.degraded.some((d) => d.step === "semantic" && /unreachable/.test(d.error)));
    assert.equal(output.results[0]?.id, "shanghai-meeting");
    assert.ok(output.results.every((r) => !r.provenance.views.includes("semantic")));
    await memory.close();
  });

  it("drops a hit deleted while the run was under way", async () => {
    const memory = await teamMemory({
      wrapStore: (store) =>
        Object.assign(Object.create(store) as typeof store, {
          lexicalSearch: async (...args: Parameters<typeof store.lexicalSearch>) => {
            const hits = await store.lexicalSearch(...args);
            if (args[0] === "team") await store.delete("team", ["shanghai-meeting"]);
            return hits;
          },
        }),
    });
    const output = await memory.retrieve({ question: QUESTION, namespace: "team", now: NOW });
    assert.ok(!output.results.some((r) => r.id === "shanghai-meeting"));
    assert.ok(output.results.length > 0);
    await memory.close();
  });
});
