import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ViewHitList } from "../../src/domain/hits.js";
import { planWithRules } from "../../src/planning/rule-planner.js";
import { fuseRankedLists } from "../../src/retrieval/fusion.js";

const list = (view: ViewHitList["view"], round: number, keys: string[], query = "q"): ViewHitList => ({
  view,
  query,
  namespace: "ns",
  round,
  hits: keys.map((key, i) => ({ key, score: 1 / (i + 1) })),
});

const weights = { semantic: 0.3, lexical: 1, symbolic: 0.3 };

describe("weighted RRF", () => {
  it("scales each view's vote by its weight: one weak vote does not lift a deep hit over the strong view's first", () => {
    const lexical = list("lexical", 0, ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"]);
    const semantic = list("semantic", 0, ["l"]);
    const weighted = fuseRankedLists([lexical, semantic], { method: "rrf", rrfK: 20, weights });
    assert.equal(weighted[0]?.key, "a");
    assert.equal(weighted.find((hit) => hit.key === "l")?.score, 1 / 32 + 0.3 / 21);
    const equal = fuseRankedLists([lexical, semantic], { method: "rrf", rrfK: 20, weights: { semantic: 1, lexical: 1, symbolic: 1 } });
    assert.equal(equal[0]?.key, "l", "with equal weights the semantic vote decides");
  });

  it("counts a reflection round's lists at roundWeight per round, so gap hits join without displacing round 0", () => {
    const lists = [list("lexical", 0, ["a", "b"]), list("lexical", 1, ["g", "h"], "gap")];
    const discounted = fuseRankedLists(lists, { method: "rrf", rrfK: 20, weights, roundWeight: 0.5 });
    assert.deepEqual(
      discounted.map((hit) => hit.key),
      ["a", "b", "g", "h"],
    );
    assert.equal(discounted[2]?.score, 0.5 / 21);
    const flat = fuseRankedLists(lists, { method: "rrf", rrfK: 20, weights });
    assert.deepEqual(
      flat.map((hit) => hit.key),
      ["a", "g", "b", "h"],
      "without the discount the gap query's first hit ties the question's",
    );
  });

  it("adds a view's votes across rounds but takes its best within a round", () => {
    // b is found by the question (rank 2) and again by a gap query (rank 1): the gap round agrees, so b gains.
    const rounds = [list("lexical", 0, ["a", "b"]), list("lexical", 1, ["b"], "gap")];
    const fused = fuseRankedLists(rounds, { method: "rrf", rrfK: 20, weights, roundWeight: 0.5 });
    assert.deepEqual(fused.map((hit) => hit.key), ["b", "a"]);
    assert.equal(fused[0]?.score, 1 / 22 + 0.5 / 21);
    // Two sub-queries of one round finding b: one vote, the better one.
    const subQueries = [list("lexical", 0, ["a", "b"], "q1"), list("lexical", 0, ["b"], "q2")];
    const once = fuseRankedLists(subQueries, { method: "rrf", rrfK: 20, weights, roundWeight: 0.5 });
    assert.equal(once.find((hit) => hit.key === "b")?.score, 1 / 21);
  });
});

describe("rule planner entities", () => {
  const vocabulary = { persons: ["Melanie", "Caroline"], entities: ["Woohoo Melanie", "Acme Corp", "LGBTQ"], locations: [] };
  const plan = (question: string) => planWithRules(question, { vocabulary, now: new Date("2023-08-01T00:00:00Z"), timeZone: "UTC", maxSubQueries: 4 });

  it("does not take an entity found only through a person's name for a condition", () => {
    assert.deepEqual(plan("When did Melanie paint a sunrise?").entities, []);
    assert.deepEqual(plan("When did Melanie paint a sunrise?").persons, ["Melanie"]);
  });

  it("still finds entities named whole or by a part that is not a person's name", () => {
    assert.deepEqual(plan("Did Caroline join the LGBTQ group?").entities, ["LGBTQ"]);
    assert.deepEqual(plan("Where is Acme based?").entities, ["Acme Corp"]);
    assert.deepEqual(plan("Who said Woohoo Melanie?").entities, ["Woohoo Melanie"]);
  });
});
