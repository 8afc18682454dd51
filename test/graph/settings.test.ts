import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { openRecallGraph } from "../../src/library/open-recallgraph.js";
import { openSqliteStore } from "../../src/stores/sqlite/store.js";
import { createEmbedder } from "../../src/text/embedders/create-embedder.js";
import { widestSettings } from "../../src/graph/run-settings.js";
import { resolveConfiguration } from "../../src/graph/configuration.js";

async function emptyMemory() {
  const embedder = createEmbedder({ provider: "hash", dimension: 128 });
  const store = await openSqliteStore({ path: ":memory:", embedding: embedder.spec });
  return openRecallGraph({ store, embedder, model: null });
}

const notes = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, i) => ({ id: `${prefix}-${i}`, text: `Project note ${i} about the garden shed roof repair.` }));

describe("configuration and per-namespace settings", () => {
  it("defaults to the design's numbers, with the fusion settings measured on LoCoMo", () => {
    const config = resolveConfiguration({});
    assert.equal(config.semanticTopK, 25);
    assert.equal(config.lexicalTopK, 25);
    assert.equal(config.symbolicTopK, 5);
    assert.equal(config.maxSubQueries, 4);
    assert.equal(config.maxReflectionRounds, 2);
    assert.equal(config.fusion, "rrf");
    assert.equal(config.rrfK, 20);
    assert.deepEqual(config.viewWeights, { semantic: 0.3, lexical: 1, symbolic: 0.3 });
    assert.equal(config.reflectionRoundWeight, 0.5);
    assert.equal(config.contentCap, 800);
  });

  it("keeps the knowledge-base chain's plain RRF (k = 60, equal weights)", () => {
    const config = resolveConfiguration({ configurable: { preset: "knowledge-base" } });
    assert.equal(config.rrfK, 60);
    assert.deepEqual(config.viewWeights, { semantic: 1, lexical: 1, symbolic: 1 });
  });

  it("applies a preset, then explicit fields over it", () => {
    const config = resolveConfiguration({ configurable: { preset: "knowledge-base", denseMinScore: 0.5 } });
    assert.deepEqual(config.views, ["semantic", "lexical"]);
    assert.equal(config.planning, false);
    assert.equal(config.rerank, true);
    assert.equal(config.denseMinScore, 0.5);
  });

  it("refuses an unknown preset or a bad value with the field named", () => {
    assert.throws(() => resolveConfiguration({ configurable: { preset: "fastest" } }), /configurable\.preset/);
    assert.throws(() => resolveConfiguration({ configurable: { finalK: 0 } }), /configurable\.finalK/);
  });

  it("lets the widest setting win across namespaces and falls back to the configuration", () => {
    const config = resolveConfiguration({});
    const widest = widestSettings(config, [{ finalK: 2, denseMinScore: 0.4 }, { finalK: 5, denseMinScore: 0.2 }, undefined]);
    assert.equal(widest.finalK, 5);
    assert.equal(widest.denseMinScore, 0.2);
    assert.equal(widest.semanticTopK, 25);
  });

  it("uses the namespaces' stored settings in a run over several namespaces", async () => {
    const memory = await emptyMemory();
    await memory.remember("mine", notes("mine", 8));
    await memory.remember("shared", notes("shared", 8));
    await memory.store.setSettings("mine", { finalK: 2 });
    await memory.store.setSettings("shared", { finalK: 3 });
    const question = { question: "garden shed roof", now: "2026-11-18T10:00:00Z" };
    const one = await memory.retrieve({ ...question, namespace: "mine" });
    assert.equal(one.results.length, 2);
    const both = await memory.retrieve({ ...question, namespace: ["mine", "shared"] });
    assert.equal(both.results.length, 3);
    assert.deepEqual(new Set(both.results.map((r) => r.namespace)).size <= 2, true);
    assert.ok(both.results.every((r) => r.namespace === "mine" || r.namespace === "shared"));
    await memory.close();
  });

  it("returns only the newest version of a document's chunks and cuts text to the content cap", async () => {
    const memory = await emptyMemory();
    const long = "The travel policy allows economy class for flights under six hours. ".repeat(30);
    await memory.remember("kb", [
      { id: "policy-v1", text: `Old rule: ${long}`, source: { documentId: "travel.md", version: 1 } },
      { id: "policy-v2", text: `New rule: ${long}`, source: { documentId: "travel.md", version: 2 } },
    ]);
    const output = await memory.retrieve({ question: "travel policy economy class flights", namespace: "kb" }, { contentCap: 120 });
    assert.deepEqual(output.results.map((r) => r.id), ["policy-v2"]);
    assert.equal(output.results[0]?.text.length, 120);
    await memory.close();
  });
});
