import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Embeddings } from "@langchain/core/embeddings";
import { fakeModel } from "@langchain/core/testing";
import { z } from "zod";
import { DeadlineError, deadlineFrom, withDeadlineSignal, withinDeadline } from "../../src/graph/deadline.js";
import { callStructured } from "../../src/llm/structured.js";
import type { MemoryStore } from "../../src/stores/port.js";
import type { Embedder } from "../../src/text/embedder.js";
import { createEmbedder } from "../../src/text/embedders/create-embedder.js";
import { teamMemory } from "../support/graph-fixture.js";
import { NOW } from "../support/team-memory.js";

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

  it("answers with the entries found this run when only the store's re-check never answers", async () => {
    const { wrap, hang } = hangingStore(["get"]);
    const memory = await teamMemory({ wrapStore: wrap });
    hang();
    const output = await memory.retrieve({ question: QUESTION, namespace: "team", now: NOW }, { deadlineMs: DEADLINE_MS, reflection: false });
    assert.ok(output.degraded.some((d) => d.step === "finalize" && d.error.startsWith(DEADLINE_REACHED)), JSON.stringify(output.degraded));
    assert.equal(output.results[0]?.id, "shanghai-meeting");
    await memory.close();
  });
});
