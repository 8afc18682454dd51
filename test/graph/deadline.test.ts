import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Embeddings } from "@langchain/core/embeddings";
import { fakeModel } from "@langchain/core/testing";
import { z } from "zod";
import { DeadlineError, deadlineFrom, withDeadlineSignal, withinDeadline } from "../../src/runtime/deadline.js";
import { callStructured } from "../../src/llm/structured.js";
import type { MemoryStore } from "../../src/stores/port.js";
import type { Embedder } from "../../src/text/embedder.js";
import { createEmbedder } from "../../src/text/embedders/create-embedder.js";
import { teamMemory } from "../support/graph-fixture.js";
import { NOW } from "../support/team-memory.js";
import { json, scriptedModel } from "../support/scripted-model.js";
import { RERANK_SYSTEM } from "../../src/llm/prompts/rerank.js";
import { FINAL_CHECK_GRACE_MS } from "../../src/nodes/finalize.js";
import { setTimeout as delay } from "node:timers/promises";

const QUESTION = "Who did Alice talk to about product XYZ-100 in Shanghai last week?";
/** Long enough for an in-memory store to answer, short enough for a test. */
// Long enough that a healthy view answers well within it on a loaded 2-core CI machine; the hung
// ones are what it cuts off.
const DEADLINE_MS = 1500;
const DEADLINE_REACHED = `deadline of ${DEADLINE_MS} ms reached`;

function never<T>(): Promise<T> {
  return new Promise<T>(() => {});
}

/** The hashing embedder until `hang()`, then calls that never settle (a hung embedding server). */
function hangingEmbedder(): { embedder: Embedder; hang: () => void } {
  const healthy = createEmbedder({ provider: "hash", dimension: 256 });
  let hung = false;
  class HangingEmbeddings extends Embeddings {
    constructor() {
      super({});
    }
    embedDocuments(texts: string[]) {
      return hung ? never<number[][]>() : healthy.embeddings.embedDocuments(texts);
    }
    embedQuery(text: string) {
      return hung ? never<number[]>() : healthy.embeddings.embedQuery(text);
    }
  }
  return { embedder: { ...healthy, embeddings: new HangingEmbeddings() }, hang: () => (hung = true) };
}

/** The store, with the named reads never answering once `hang()` is called (writes still work, for the fixture). */
function hangingStore(reads: readonly (keyof MemoryStore)[]) {
  let hung = false;
  const wrap = (store: MemoryStore): MemoryStore => {
    const wrapped = Object.create(store) as MemoryStore;
    for (const read of reads) {
      const original = store[read] as (...args: unknown[]) => unknown;
      Object.assign(wrapped, { [read]: (...args: unknown[]) => (hung ? never() : original.apply(store, args)) });
    }
    return wrapped;
  };
  return { wrap, hang: () => (hung = true) };
}

/** A chat model whose calls never answer and ignore their signal. */
function silentModel() {
  return Object.assign(fakeModel(), { invoke: () => never() });
}

describe("the run's deadline, alone", () => {
  it("leaves a callee that never settles behind, and starts none past the deadline", async () => {
    await assert.rejects(withinDeadline(deadlineFrom(50), () => never()), DeadlineError);
    assert.equal(await withinDeadline(deadlineFrom(1000), async () => "answered"), "answered");
    let started = false;
    await assert.rejects(
      withinDeadline(deadlineFrom(-1), async () => (started = true)),
      (error: unknown) => error instanceof DeadlineError && error.message === "deadline of -1 ms reached",
    );
    assert.equal(started, false);
  });

  it("aborts the signal it hands out at the deadline", async () => {
    const reason = await withDeadlineSignal(deadlineFrom(50), (signal) => new Promise((resolve) => signal.addEventListener("abort", () => resolve(signal.reason))));
    assert.ok(reason instanceof DeadlineError);
  });

  it("makes a structured call fail, not wait, when its signal aborts", async () => {
    const controller = new AbortController();
    const pending = callStructured(silentModel(), z.object({}), { system: "s", user: "u" }, { step: "plan", retries: 3, timeoutMs: 60_000, signal: controller.signal });
    controller.abort(new DeadlineError(75));
    const reply = await pending;
    assert.equal(reply.ok, false);
    assert.equal(reply.record.calls, 1, "no retry after the abort");
    assert.match(reply.record.error ?? "", /deadline of 75 ms reached/);
  });
});

describe("retrieval graph under a deadline", () => {
  it("answers from the lexical and symbolic views when the embedder never answers", async () => {
    const { embedder, hang } = hangingEmbedder();
    const memory = await teamMemory({ embedder });
    hang();
    const output = await memory.retrieve({ question: QUESTION, namespace: "team", now: NOW }, { deadlineMs: DEADLINE_MS });
    assert.ok(output.degraded.some((d) => d.step === "semantic" && d.error === DEADLINE_REACHED), JSON.stringify(output.degraded));
    assert.ok(output.results.length > 0);
    assert.ok(output.results.every((r) => !r.provenance.views.includes("semantic")));
    const views = new Set(output.results.flatMap((r) => r.provenance.views));
    assert.ok(views.has("lexical") && views.has("symbolic"), [...views].join());
    assert.equal(output.results[0]?.id, "shanghai-meeting");
    await memory.close();
  });

  it("plans by the rules within llmTimeoutMs when the model never answers", async () => {
    const memory = await teamMemory({ model: silentModel() });
    const output = await memory.retrieve({ question: QUESTION, namespace: "team", now: NOW }, { llmTimeoutMs: 100 });
    assert.equal(output.plan?.planner, "rules");
    assert.match(output.degraded.find((d) => d.step === "plan")?.error ?? "", /did not answer within 100 ms/);
    assert.equal(output.results[0]?.id, "shanghai-meeting");
    await memory.close();
  });

  it("cuts off a model slower than the deadline and still searches", async () => {
    const memory = await teamMemory({ model: silentModel() });
    const output = await memory.retrieve({ question: QUESTION, namespace: "team", now: NOW }, { llmTimeoutMs: 600_000, deadlineMs: DEADLINE_MS * 2 });
    assert.equal(output.plan?.planner, "rules");
    assert.match(output.degraded.find((d) => d.step === "plan")?.error ?? "", new RegExp(`deadline of ${DEADLINE_MS * 2} ms reached`));
    assert.equal(output.results[0]?.id, "shanghai-meeting", "the plan took half the time, the views had the rest");
    await memory.close();
  });

  it("answers with what the other views found when one view's store search never answers", async () => {
    const { wrap, hang } = hangingStore(["lexicalSearch"]);
    const memory = await teamMemory({ wrapStore: wrap });
    hang();
    const output = await memory.retrieve({ question: QUESTION, namespace: "team", now: NOW }, { deadlineMs: DEADLINE_MS });
    assert.ok(output.degraded.some((d) => d.step === "lexical" && d.error === DEADLINE_REACHED), JSON.stringify(output.degraded));
    assert.ok(output.results.length > 0);
    assert.ok(output.results.every((r) => r.provenance.views.includes("semantic")));
    await memory.close();
  });

  it("answers, empty, when every store read never answers", async () => {
    const { wrap, hang } = hangingStore(["getSettings", "vocabulary", "denseSearch", "lexicalSearch", "filteredSearch", "get", "documentVersions"]);
    const memory = await teamMemory({ wrapStore: wrap });
    hang();
    const output = await memory.retrieve({ question: QUESTION, namespace: "team", now: NOW }, { deadlineMs: DEADLINE_MS });
    assert.deepEqual(output.results, []);
    for (const step of ["plan", "semantic", "lexical"]) {
      assert.ok(output.degraded.some((d) => d.step === step && d.error.startsWith(DEADLINE_REACHED)), `${step}: ${JSON.stringify(output.degraded)}`);
    }
    await memory.close();
  });

  it("returns none of what it could not confirm when the store's final check never answers", async () => {
    const { wrap, hang } = hangingStore(["get"]);
    const memory = await teamMemory({ wrapStore: wrap });
    hang();
    const started = Date.now();
    const output = await memory.retrieve({ question: QUESTION, namespace: "team", now: NOW }, { deadlineMs: DEADLINE_MS, reflection: false });
    assert.deepEqual(output.results, [], "an entry the store could not confirm may have been forgotten");
    const finalize = output.degraded.find((d) => d.step === "finalize");
    assert.ok(finalize?.error.startsWith(DEADLINE_REACHED), JSON.stringify(output.degraded));
    assert.match(finalize?.error ?? "", new RegExp(`within ${FINAL_CHECK_GRACE_MS} ms more`));
    assert.ok(Date.now() - started < DEADLINE_MS + FINAL_CHECK_GRACE_MS + 5_000, "bounded: the deadline and the grace");
    await memory.close();
  });
});

describe("the final check, past a slow model", () => {
  /** A model whose rerank call first runs `meanwhile` (and records the prompt it was given), then answers with scores for every candidate. */
  function slowReranker(meanwhile: () => Promise<void>) {
    const scores = json({ scores: Array.from({ length: 40 }, (_, index) => ({ index, score: 10 - (index % 10) })) });
    const { model } = scriptedModel({ rerank: scores });
    const prompts: string[] = [];
    const invoke = model.invoke.bind(model);
    model.invoke = (async (input: Parameters<typeof model.invoke>[0], options?: Parameters<typeof model.invoke>[1]) => {
      const messages = Array.isArray(input) ? input : [];
      const system = String((messages[0] as { content?: unknown } | undefined)?.content ?? "");
      if (system.startsWith(RERANK_SYSTEM)) {
        prompts.push(String((messages[1] as { content?: unknown } | undefined)?.content ?? ""));
        await meanwhile();
      }
      return invoke(input, options);
    }) as typeof model.invoke;
    return { model, prompts };
  }

  // The model answers once the memory has expired, or (the second case) the deadline cuts it off after that.
  for (const { deadlineMs, modelMs } of [
    { deadlineMs: 60_000, modelMs: 50 },
    { deadlineMs: 3_000, modelMs: 10_000 },
  ]) {
    it(`returns nothing forgotten or expired while the model reranked (deadline ${deadlineMs} ms)`, async () => {
      let memory: Awaited<ReturnType<typeof teamMemory>> | undefined;
      let expiresAt = "";
      const { model, prompts } = slowReranker(async () => {
        assert.ok(memory);
        assert.equal(await memory.forget("team", ["shanghai-meeting"]), 1);
        await delay(Math.max(0, Date.parse(expiresAt) - Date.now()) + modelMs, undefined, { ref: false });
      });
      memory = await teamMemory({ model });
      // Set once the store is built, so a slow machine's setup does not eat into it.
      expiresAt = new Date(Date.now() + 1_500).toISOString();
      await memory.remember("team", [
        { id: "shanghai-dinner", text: "Alice had dinner with Bob in Shanghai on 11 November 2026 after the XYZ-100 meeting.", persons: ["Alice", "Bob"], entities: ["XYZ-100"], location: "Shanghai", timestamp: "2026-11-11T19:00:00Z", expiresAt },
      ]);
      const output = await memory.retrieve({ question: QUESTION, namespace: "team", now: NOW }, { rerank: true, reflection: false, deadlineMs, llmTimeoutMs: 60_000 });
      assert.equal(prompts.length, 1, "the model was asked to rerank");
      assert.ok(prompts[0]?.includes("Alice met Bob in Shanghai") && prompts[0]?.includes("Alice had dinner with Bob"), "both were candidates");
      const ids = output.results.map((result) => result.id);
      assert.ok(!ids.includes("shanghai-meeting"), `forgotten during the rerank: ${ids.join()}`);
      assert.ok(!ids.includes("shanghai-dinner"), `expired during the rerank: ${ids.join()}`);
      assert.ok(ids.length > 0, "the rest is answered");
      await memory.close();
    });
  }
});
