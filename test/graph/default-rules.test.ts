import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { resolveConfiguration, type RetrievalConfigInput } from "../../src/graph/configuration.js";
import { DEFAULT_RULES, withRuleOff } from "../../src/graph/default-rules.js";
import { widestSettings } from "../../src/graph/run-settings.js";
import { EMBEDDER_PROFILES, type EmbedderKind } from "../../src/text/embedders/profiles.js";

/** The run settings a configuration settles to for an embedder, as a plain object to compare. */
function settled(kind: EmbedderKind, configurable: RetrievalConfigInput): Record<string, unknown> {
  return { ...widestSettings(resolveConfiguration({ configurable }), [], EMBEDDER_PROFILES[kind]) };
}

/** The run settings where the two differ. */
function changedFields(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  return Object.keys(before).filter((field) => JSON.stringify(before[field]) !== JSON.stringify(after[field]));
}

describe("the default's rules, each with the settings that turn it off", () => {
  it("applies to an embedder where its profile has the rule, and turning it off changes what the run settles to", () => {
    const applies = (kind: EmbedderKind) => DEFAULT_RULES.filter((rule) => rule.off(EMBEDDER_PROFILES[kind]) !== undefined).map((rule) => rule.name);
    assert.deepEqual(applies("onnx"), ["context votes", "the symbolic vote", "the dense weight without names", "time answers", "the lexical yield"]);
    assert.deepEqual(
      applies("use-lite"),
      ["context votes", "the symbolic vote", "the dense weight without names", "time answers", "clause sub-queries"],
      "the weak offline embedder has no yield, and alone searches a question's clauses",
    );
    assert.deepEqual(applies("hash"), ["context votes", "the symbolic vote", "time answers"]);

    const expected: Record<string, string[]> = {
      "context votes": ["contextVotes"],
      "the symbolic vote": ["viewWeights"],
      "the dense weight without names": ["semanticWeightWithoutNames"],
      "time answers": ["timeAnswerVote"],
      "the lexical yield": ["lexicalYield"],
      "clause sub-queries": ["maxSubQueries"],
    };
    for (const kind of ["onnx", "use-lite"] as const) {
      const byDefault = settled(kind, {});
      for (const rule of DEFAULT_RULES) {
        const off = rule.off(EMBEDDER_PROFILES[kind]);
        if (!off) continue;
        assert.deepEqual(changedFields(byDefault, settled(kind, off)), expected[rule.name], `${rule.name} off, ${kind}`);
      }
    }
  });

  it("turns the dense weight without names off by giving every question the profile's usual weight", () => {
    const off = DEFAULT_RULES.find((rule) => rule.name === "the dense weight without names")?.off(EMBEDDER_PROFILES.onnx);
    assert.ok(off);
    const run = settled("onnx", off);
    assert.equal(run.semanticWeightWithoutNames, EMBEDDER_PROFILES.onnx.denseWeight);
    assert.deepEqual(run.viewWeights, settled("onnx", {}).viewWeights, "named questions keep their weight");
  });

  it("lays a rule's settings over a run's own, per-view weights merged view by view", () => {
    assert.deepEqual(withRuleOff({ viewWeights: { semantic: 1 }, rrfK: 30 }, { viewWeights: { symbolic: 0 } }), {
      viewWeights: { semantic: 1, symbolic: 0 },
      rrfK: 30,
    });
    assert.deepEqual(withRuleOff({ rrfK: 30 }, { contextVotes: { ranking: 0, wordsReading: 0 } }), {
      rrfK: 30,
      contextVotes: { ranking: 0, wordsReading: 0 },
    });
  });
});
