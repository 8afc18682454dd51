/**
 * Values that used to get a wrong or raw error: a question too long and a text that is not a string
 * were both "required"; `now: NaN` threw a RangeError from inside Date; `batchSize: NaN` blamed a
 * record's vector; a graph input that is not an object came back as zod's multi-line issue dump. Each
 * is now one ValidationError that names the field and what is wrong with it, and writes nothing.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ValidationError } from "../../src/core/errors.js";
import { openRecallGraph } from "../../src/library/open-recallgraph.js";
import { retrieve, type RetrieveRequest } from "../../src/library/retrieve.js";

for (const name of Object.keys(process.env)) if (/^(RECALLGRAPH_|OPENAI_|QDRANT_)/.test(name)) delete process.env[name];
Object.assign(process.env, { RECALLGRAPH_EMBEDDER: "hash", RECALLGRAPH_DB: ":memory:" });

/** Asserts `work` fails with one ValidationError whose message is exactly `message` (one line). */
async function refused(work: () => Promise<unknown>, message: string): Promise<void> {
  await assert.rejects(work, (error) => {
    assert.ok(error instanceof ValidationError, `a ValidationError, not ${String(error)}`);
    assert.equal(error.message, message);
    return true;
  });
}

describe("values the library refuses by name", () => {
  it("says what is wrong with a question, a text and a namespace, not that they are missing", async () => {
    const memory = await openRecallGraph({ store: { kind: "sqlite", path: ":memory:" }, embedder: { provider: "hash", dimension: 64 }, model: null });
    await refused(() => memory.retrieve({ question: "x".repeat(4001), namespace: "a" }), "request.question: question must be at most 4000 characters");
    await refused(() => memory.retrieve({ question: 5 as unknown as string, namespace: "a" }), "request.question: question must be a string, got a number");
    await refused(() => memory.remember("a", [{ text: 5 }]), "entries.0.text: text must be a string, got a number");
    await refused(() => memory.remember("a", [{}]), "entries.0.text: text is required");
    await refused(() => memory.remember(5 as unknown as string, [{ text: "hi" }]), "namespace: namespace must be a string, got a number");
    assert.deepEqual((await memory.store.stats()).namespaces, {}, "nothing written");
    await memory.close();
  });

  it("refuses a clock or a batch size that is not a usable number, before embedding anything", async () => {
    const memory = await openRecallGraph({ store: { kind: "sqlite", path: ":memory:" }, embedder: { provider: "hash", dimension: 64 }, model: null });
    await refused(() => memory.remember("a", [{ text: "hi" }], { now: Number.NaN }), "now: now must be a finite number of epoch milliseconds");
    await refused(() => memory.remember("a", [{ text: "hi" }], { now: 1.5 }), "now: now must be a whole number of epoch milliseconds");
    await refused(() => memory.remember("a", [{ text: "hi" }], { batchSize: Number.NaN }), "batchSize: batchSize must be a whole number of 1 or more");
    await refused(() => memory.remember("a", [{ text: "hi" }], { batchSize: 0 }), "batchSize: batchSize must be at least 1");
    await refused(() => memory.reembed({ batchSize: Number.NaN }), "batchSize: batchSize must be a whole number of 1 or more");
    assert.deepEqual((await memory.store.stats()).namespaces, {}, "nothing written");
    await memory.close();
  });

  it("answers a graph input that is not an object in one line, on the library's graphs and the served ones", async () => {
    const memory = await openRecallGraph({ store: { kind: "sqlite", path: ":memory:" }, embedder: { provider: "hash", dimension: 64 }, model: null });
    const { graph: served, remember } = await import("../../src/server/graphs.js");
    const graphs = { library: memory.graph, served, remember } as Record<string, { invoke(input: unknown): Promise<unknown> }>;
    for (const [name, graph] of Object.entries(graphs)) {
      for (const [input, kind] of [
        [["x"], "an array"],
        ["x", "a string"],
        [5, "a number"],
      ] as const) {
        await refused(() => graph.invoke(input), `input: input must be an object of the graph's input fields, got ${kind}`).catch((error: unknown) => {
          throw new Error(`${name} ${JSON.stringify(input)}: ${String(error)}`);
        });
      }
    }
    await memory.close();
  });

  it("checks a library request once, in the graph, and names a refused field as the caller wrote it", async () => {
    const memory = await openRecallGraph({ store: { kind: "sqlite", path: ":memory:" }, embedder: { provider: "hash", dimension: 64 }, model: null });
    const passed: unknown[] = [];
    const recording = {
      invoke: async (input: unknown, config: unknown) => {
        passed.push(input);
        return memory.graph.invoke(input as never, config as never);
      },
    } as unknown as typeof memory.graph;
    const when = new Date("2026-01-02T03:04:05Z");
    await retrieve(recording, { question: "  the party  ", namespace: "a", now: when, filter: { persons: ["Ann"] } });
    assert.deepEqual(passed, [{ question: "  the party  ", namespaces: ["a"], now: when.toISOString(), asOf: undefined, filter: { persons: ["Ann"] } }], "passed on as given, in the graph's shape");

    await refused(() => memory.retrieve({ question: "x", namespace: " a" }), "request.namespace: namespace must not begin or end with whitespace");
    await refused(() => memory.retrieve({ question: "x", namespace: ["a", "a "] }), "request.namespace.1: namespace must not begin or end with whitespace");
    await refused(() => memory.retrieve({ question: "x", namespace: "a", asOf: new Date(Number.NaN) }), "request.asOf: asOf must be an ISO 8601 date-time with an offset or Z, such as 2026-01-02T03:04:05Z");
    await refused(() => memory.retrieve(null as unknown as RetrieveRequest), "request: request must be an object with a question and a namespace, got null");
    // The graph's own callers (the server, a direct invoke) meet the same bounds on a time's offset.
    await refused(() => memory.graph.invoke({ question: "x", namespaces: ["a"], now: "2026-01-01T10:00:00+15:00" }), "input.now: now must be a date-time that exists, with an offset of at most ±14:00");
    await memory.close();
  });
});
