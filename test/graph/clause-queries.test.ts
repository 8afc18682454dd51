import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DEFAULT_RULES } from "../../src/graph/default-rules.js";
import { openRecallGraph, type RecallGraph } from "../../src/library/open-recallgraph.js";
import { planWithRules } from "../../src/planning/rule-planner.js";
import { EMBEDDER_PROFILES } from "../../src/text/embedders/profiles.js";

const NOW = "2026-11-18T10:00:00Z";
const TWO_QUESTIONS = "What did Alice buy in Berlin and where did Bob go after the launch?";
const CLAUSES = [TWO_QUESTIONS, "What did Alice buy in Berlin", "where did Bob go after the launch"];
const NO_NAMES = { persons: [], entities: [], locations: [] };

describe("a question's clauses as sub-queries", () => {
  const plan = (clauseQueries: boolean) => planWithRules(TWO_QUESTIONS, { vocabulary: NO_NAMES, now: new Date(NOW), timeZone: "UTC", maxSubQueries: 4, clauseQueries });

  it("the rules search each question of several asked at once only where asked to, the whole question first", () => {
    assert.deepEqual(plan(true).subQueries, CLAUSES);
    assert.deepEqual(plan(false).subQueries, [TWO_QUESTIONS]);
  });

  it("only the offline USE-lite's profile asks for them; turning the rule off leaves the question alone", () => {
    const asking = Object.entries(EMBEDDER_PROFILES).filter(([, profile]) => profile.clauseQueries === true).map(([kind]) => kind);
    assert.deepEqual(asking, ["use-lite"]);
    const rule = DEFAULT_RULES.find((candidate) => candidate.name === "clause sub-queries");
    assert.deepEqual(rule?.off(EMBEDDER_PROFILES["use-lite"]), { maxSubQueries: 1 });
    assert.equal(rule?.off(EMBEDDER_PROFILES.onnx), undefined, "nothing to turn off where the profile leaves the rule out");
  });

  describe("through the graph, by the embedder that built the store", { timeout: 120_000 }, () => {
    const subQueriesWith = async (memory: RecallGraph, configurable: Record<string, unknown> = {}) => {
      const output = await memory.retrieve({ question: TWO_QUESTIONS, namespace: "team", now: NOW }, { configurable });
      return output.plan?.subQueries;
    };

    it("USE-lite: the question and its two clauses; with the rule off, the question alone", async () => {
      const memory = await openRecallGraph({ store: { kind: "sqlite", path: ":memory:" }, embedder: { provider: "use-lite" }, model: null });
      try {
        await memory.remember("team", [{ text: "Alice bought a camera in Berlin.", timestamp: "2026-11-10T09:00:00Z" }]);
        assert.deepEqual(await subQueriesWith(memory), CLAUSES);
        assert.deepEqual(await subQueriesWith(memory, { maxSubQueries: 1 }), [TWO_QUESTIONS]);
      } finally {
        await memory.close();
      }
    });

    it("an embedder whose profile leaves clauses out: the question alone", async () => {
      const memory = await openRecallGraph({ store: { kind: "sqlite", path: ":memory:" }, embedder: { provider: "hash", dimension: 64 }, model: null });
      try {
        await memory.remember("team", [{ text: "Alice bought a camera in Berlin.", timestamp: "2026-11-10T09:00:00Z" }]);
        assert.deepEqual(await subQueriesWith(memory), [TWO_QUESTIONS]);
      } finally {
        await memory.close();
      }
    });
  });
});
