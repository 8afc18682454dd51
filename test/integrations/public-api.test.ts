import assert from "node:assert/strict";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, it } from "node:test";
import { AbortedError, entryInput, isRecallGraphError, openRecallGraph, ReadOnlyStoreError, retrieve, ValidationError } from "../../src/index.js";
import { assertBuildIsCurrent, ROOT, temporaryFolder } from "../cli/helpers.js";

describe("the public API as the README shows it", () => {
  it("remembers, retrieves with a relative time, and refuses bad input without writing", async () => {
    const memory = await openRecallGraph({
      store: { kind: "sqlite", path: ":memory:" },
      embedder: { provider: "hash", dimension: 128 },
      model: null,
    });
    await memory.remember("alice", [
      {
        text: "Alice met Bob in Shanghai on 10 November 2026 to discuss product XYZ-100.",
        persons: ["Alice", "Bob"],
        entities: ["XYZ-100"],
        location: "Shanghai",
        timestamp: "2026-11-10T09:00:00Z",
      },
      { text: "Alice bought a new bicycle in Berlin.", persons: ["Alice"], location: "Berlin", timestamp: "2026-10-02T09:00:00Z" },
    ]);
    const { results, plan, account } = await memory.retrieve(
      { question: "Who did Alice meet in Shanghai last week?", namespace: "alice", now: "2026-11-18T10:00:00Z" },
      { finalK: 5 },
    );
    assert.match(results[0]?.text ?? "", /met Bob in Shanghai/);
    assert.equal(plan?.timeExpression, "last week");
    assert.equal(account.llmCalls, 0);

    await assert.rejects(memory.remember("alice", [{ text: "fine" }, { text: "" }]), (error: unknown) => {
      assert.ok(error instanceof ValidationError);
      assert.equal(error.field, "entries.1.text");
      return true;
    });
    assert.deepEqual((await memory.store.stats()).namespaces, { alice: 2 });
    await memory.close();
  });

  it("hands the caller's run config to the graph: callbacks see the run, an aborted signal stops it", async () => {
    const memory = await openRecallGraph({ store: { kind: "sqlite", path: ":memory:" }, embedder: { provider: "hash", dimension: 64 }, model: null });
    try {
      await memory.remember("alice", [{ text: "Alice keeps bees in Lyon." }]);
      const request = { question: "Where does Alice keep bees?", namespace: "alice" };
      const runs: string[] = [];
      await memory.retrieve(request, {}, { runName: "bees", callbacks: [{ handleChainStart: (_chain, _inputs, _runId, _parent, _tags, _metadata, _type, name) => void runs.push(name ?? "") }] });
      assert.ok(runs.includes("bees"), `the caller's run name and callbacks reached the graph (saw ${runs.join(", ")})`);
      const aborted = new AbortController();
      aborted.abort();
      await assert.rejects(memory.retrieve(request, {}, { signal: aborted.signal }), /abort/i);
    } finally {
      await memory.close();
    }
  });

  it("takes one RunnableConfig as LangGraph runnables do: configuration, callbacks and run name, and a signal that stops the run with AbortedError", async () => {
    const memory = await openRecallGraph({ store: { kind: "sqlite", path: ":memory:" }, embedder: { provider: "hash", dimension: 64 }, model: null });
    try {
      await memory.remember("alice", [{ text: "Alice keeps bees in Lyon." }, { text: "Alice keeps a hive of bees on her roof." }, { text: "Bob keeps bees too." }]);
      const request = { question: "Where does Alice keep bees?", namespace: "alice" };
      const runs: string[] = [];
      const callbacks = [{ handleChainStart: (_chain: unknown, _inputs: unknown, _runId: string, _parent?: string, _tags?: string[], _metadata?: unknown, _type?: string, name?: string) => void runs.push(name ?? "") }];
      const output = await memory.retrieve(request, { configurable: { finalK: 1 }, runName: "bees", callbacks, tags: ["caller"] });
      assert.equal(output.results.length, 1, "finalK under configurable took effect");
      assert.ok(runs.includes("bees"), `the caller's run name and callbacks reached the graph (saw ${runs.join(", ")})`);
      assert.equal((await memory.retrieve(request, { finalK: 1 })).results.length, 1, "the configuration alone, positionally, still works");

      const aborted = new AbortController();
      aborted.abort();
      await assert.rejects(memory.retrieve(request, { signal: aborted.signal }), (error: unknown) => {
        assert.ok(error instanceof AbortedError, String(error));
        assert.equal(error.code, "aborted");
        assert.equal(error.cause, aborted.signal.reason, "the signal's reason is the cause");
        return true;
      });
      await assert.rejects(retrieve(memory.graph, request, { signal: aborted.signal, configurable: { finalK: 2 } }), AbortedError);
      await assert.rejects(memory.retrieve(request, { signal: aborted.signal, finalK: 2 } as never), (error: unknown) => {
        assert.ok(error instanceof ValidationError);
        assert.equal(error.field, "config.finalK", "a configuration field beside the run options is refused, not dropped");
        return true;
      });
    } finally {
      await memory.close();
    }
  });

  it("lets callers recognise its errors by code, also from another copy of the package", async () => {
    const folder = await temporaryFolder();
    const open = (readOnly: boolean) =>
      openRecallGraph({ store: { kind: "sqlite", path: path.join(folder.path, "memory.db"), readOnly }, embedder: { provider: "hash", dimension: 64 }, model: null });
    try {
      await (await open(false)).close();
      const reader = await open(true);
      await assert.rejects(reader.remember("alice", [{ text: "x" }]), (error: unknown) => error instanceof ReadOnlyStoreError && error.code === "read_only");
      await reader.close();
    } finally {
      await folder.remove();
    }
    // The built package is a second copy of every class: instanceof fails across copies, the guard does not.
    assertBuildIsCurrent();
    const built: unknown = await import(pathToFileURL(path.join(ROOT, "dist/index.js")).href);
    const copy = built as Pick<typeof import("../../src/index.js"), "ValidationError" | "isRecallGraphError">;
    const fromCopy = new copy.ValidationError("entries.0.text", "must not be empty");
    assert.equal(fromCopy instanceof ValidationError, false, "two copies, two classes");
    assert.equal(isRecallGraphError(fromCopy), true);
    assert.equal(copy.isRecallGraphError(new ValidationError("x", "y")), true);
    assert.equal(isRecallGraphError(new Error("someone else's")), false);
    assert.equal(isRecallGraphError({ code: "invalid_input", message: "a look-alike" }), false);
  });

  it("moves memories to a store with another embedder: each listed entry written again as it was", async () => {
    const from = await openRecallGraph({ store: { kind: "sqlite", path: ":memory:" }, embedder: { provider: "hash", dimension: 64 }, model: null });
    const to = await openRecallGraph({ store: { kind: "sqlite", path: ":memory:" }, embedder: { provider: "hash", dimension: 256 }, model: null });
    await from.remember("alice", [
      { id: "trip", text: "Alice met Bob in Shanghai.", speaker: "Alice", location: "Shanghai", timestamp: "2026-11-10T09:00:00Z" },
      { id: "bike", text: "Alice bought a bicycle.", persons: ["Alice"], topic: "shopping", timestamp: "2026-10-02T09:00:00Z" },
    ]);
    const { entries } = await from.list("alice");
    await to.remember("alice", entries.map(entryInput));
    const moved = await to.list("alice");
    const comparable = (list: typeof entries) => list.map(({ createdAt: _c, updatedAt: _u, ...entry }) => entry);
    assert.deepEqual(comparable(moved.entries), comparable(entries));
    assert.equal(to.store.embedding.dimension, 256);
    await from.close();
    await to.close();
  });
});
