import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { openRecallGraph } from "../../src/library/open-recallgraph.js";
import { openSqliteStore } from "../../src/stores/sqlite/store.js";
import { createEmbedder } from "../../src/text/embedders/create-embedder.js";
import { widestSettings } from "../../src/graph/run-settings.js";
import { resolveConfiguration } from "../../src/graph/configuration.js";
import { dependencyAccessor } from "../../src/runtime/dependencies.js";
import type { RetrievalStateValue } from "../../src/graph/state.js";
import { planNode } from "../../src/nodes/plan.js";
import type { EmbeddingSpec } from "../../src/text/embedder.js";
import { USE_LITE_SPEC } from "../../src/text/embedders/create-embedder.js";
import { openAIEmbeddingSpec } from "../../src/text/embedders/openai.js";
import { EMBEDDER_PROFILES } from "../../src/text/embedders/profiles.js";

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
    assert.deepEqual(config.viewWeights, { lexical: 1, symbolic: 0.3 }, "the semantic weight is the embedder's profile's");
    assert.deepEqual(config.denseSeparation, { from: 0, to: 0 }, "a dense list keeps its weight by default");
    assert.equal(config.lexicalYield, "embedder", "a flat BM25 list yields what the embedder's profile says");
    assert.equal(config.reflectionRoundWeight, 0.5);
    assert.equal(config.contentCap, 800);
  });

  it("keeps the knowledge-base chain's plain RRF (k = 60, BM25 and filters at 1, dense by the embedder)", () => {
    const config = resolveConfiguration({ configurable: { preset: "knowledge-base" } });
    assert.equal(config.rrfK, 60);
    assert.deepEqual(config.viewWeights, { lexical: 1, symbolic: 1 });
    assert.equal(config.denseSeparation, "embedder");
  });

  it("lifts the memories that state a time for the default's conversations only: not for a view alone, the union or documents", () => {
    assert.equal(resolveConfiguration({}).timeAnswerVote, 0.5);
    for (const preset of ["no-plan", "no-reflect"] as const) assert.equal(resolveConfiguration({ configurable: { preset } }).timeAnswerVote, 0.5, preset);
    for (const preset of ["dense", "lexical", "symbolic", "union", "knowledge-base"] as const)
      assert.equal(resolveConfiguration({ configurable: { preset } }).timeAnswerVote, 0, preset);
    assert.equal(resolveConfiguration({ configurable: { preset: "knowledge-base", timeAnswerVote: 0.3 } }).timeAnswerVote, 0.3, "a configured vote wins");
  });

  it("gives the knowledge-base preset's dense lists the separation ramp of the embedder's profile, and none elsewhere", () => {
    const kb = resolveConfiguration({ configurable: { preset: "knowledge-base" } });
    const full = resolveConfiguration({});
    const noRamp = { from: 0, to: 0 };
    assert.deepEqual(widestSettings(kb, [], EMBEDDER_PROFILES["use-lite"]).denseSeparation, { from: 5, to: 7 }, "the weak offline embedder's first neighbour must stand out");
    assert.deepEqual(widestSettings(kb, [], EMBEDDER_PROFILES.onnx).denseSeparation, noRamp, "a retrieval-trained model keeps its vote");
    assert.deepEqual(widestSettings(kb, [], EMBEDDER_PROFILES.openai).denseSeparation, noRamp);
    assert.deepEqual(widestSettings(full, [], EMBEDDER_PROFILES["use-lite"]).denseSeparation, noRamp, "conversations: no ramp, whatever the embedder");
    const configured = resolveConfiguration({ configurable: { preset: "knowledge-base", denseSeparation: { from: 1, to: 2 } } });
    assert.deepEqual(widestSettings(configured, [], EMBEDDER_PROFILES["use-lite"]).denseSeparation, { from: 1, to: 2 }, "a configured ramp wins");
  });

  for (const preset of ["full", "knowledge-base"] as const) {
    it(`takes the ${preset} preset's dense weight from the embedder's profile unless it is configured`, async () => {
      const weightWith = async (spec: EmbeddingSpec, configurable: Record<string, unknown> = {}) => {
        const embedder = { ...createEmbedder({ provider: "hash", dimension: spec.dimension }), spec };
        const store = await openSqliteStore({ path: ":memory:", embedding: spec });
        try {
          const plan = planNode(dependencyAccessor({ store, embedder }));
          const update = await plan({ question: "garden shed", namespaces: ["ns"] } as RetrievalStateValue, { configurable: { preset, ...configurable } });
          return update.settings.viewWeights.semantic;
        } finally {
          await store.close();
        }
      };
      assert.equal(await weightWith(USE_LITE_SPEC), EMBEDDER_PROFILES["use-lite"].denseWeight);
      assert.equal(await weightWith(openAIEmbeddingSpec("text-embedding-3-small", 64)), EMBEDDER_PROFILES.openai.denseWeight);
      assert.equal(await weightWith({ model: "hash-v1", dimension: 64 }), EMBEDDER_PROFILES.hash.denseWeight);
      assert.equal(await weightWith({ model: "someone-elses", dimension: 64 }), EMBEDDER_PROFILES.unknown.denseWeight);
      assert.equal(await weightWith(USE_LITE_SPEC, { viewWeights: { semantic: 0.7 } }), 0.7, "a configured weight wins");
    });
  }

  it("takes the longest text the embedder represents from its profile (USE-lite's only)", () => {
    const config = resolveConfiguration({ configurable: {} });
    assert.equal(widestSettings(config, [], EMBEDDER_PROFILES["use-lite"]).longTextWords, EMBEDDER_PROFILES["use-lite"].representsWords);
    assert.equal(widestSettings(config, [], EMBEDDER_PROFILES.openai).longTextWords, undefined);
    assert.equal(widestSettings(config, [], EMBEDDER_PROFILES.unknown).longTextWords, undefined);
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
    const widest = widestSettings(config, [{ finalK: 2, denseMinScore: 0.4 }, { finalK: 5, denseMinScore: 0.2 }, undefined], EMBEDDER_PROFILES.unknown);
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
