import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ViewHitList } from "../../src/domain/hits.js";
import { planWithRules } from "../../src/planning/rule-planner.js";
import { fuseRankedLists, ranksByScore } from "../../src/retrieval/fusion.js";
import { SEPARATION_DEPTH } from "../../src/retrieval/list-evidence.js";

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

  it("takes no vote from a list's hits under its voteMinScore, and keeps them after every hit some list voted for", () => {
    // BM25 found "answer" by a rare word and the rest by a word every memory holds; the dense view's first is "night".
    const found = ["answer", "night", "allergy"];
    const semantic = list("semantic", 0, ["night", "other", "answer"]);
    const equal = { semantic: 1, lexical: 1, symbolic: 1 };
    const fused = fuseRankedLists([{ ...list("lexical", 0, found), voteMinScore: 0.9 }, semantic], { method: "rrf", rrfK: 20, weights: equal });
    assert.deepEqual(
      fused.map((hit) => hit.key),
      ["answer", "night", "other", "allergy"],
    );
    assert.equal(fused[1]?.score, 1 / 21, "night has the dense view's vote alone");
    assert.equal(fused[3]?.score, 0, "allergy is a candidate without a vote");
    assert.ok(fused[3]?.provenance.ranks.some((rank) => rank.view === "lexical" && rank.rank === 3), "its provenance keeps where BM25 found it");
    const everyHitVotes = fuseRankedLists([list("lexical", 0, found), semantic], { method: "rrf", rrfK: 20, weights: equal });
    assert.equal(everyHitVotes[0]?.key, "night", "with every hit voting, BM25's second rank and the dense first pass the answer");
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

describe("votes by score", () => {
  const scored = (view: ViewHitList["view"], scores: number[]): ViewHitList => ({
    view,
    query: "q",
    namespace: "ns",
    round: 0,
    hits: scores.map((score, i) => ({ key: String.fromCharCode(97 + i), score })),
  });

  it("places each hit between the first score and the one at the depth, and the hits after the depth at their positions", () => {
    // First 100, second 99, then 2 less per position: the hit at the depth scores 100 - 2 x (depth - 1).
    const scores = Array.from({ length: SEPARATION_DEPTH + 2 }, (_, i) => (i === 1 ? 99 : 100 - 2 * i));
    const ranks = ranksByScore(scores);
    assert.equal(ranks[0], 1);
    assert.equal(ranks[1], 1.5, "a near tie with the first is nearly rank 1");
    assert.equal(ranks[SEPARATION_DEPTH - 1], SEPARATION_DEPTH);
    assert.deepEqual(ranks.slice(SEPARATION_DEPTH), [SEPARATION_DEPTH + 1, SEPARATION_DEPTH + 2]);
    assert.deepEqual(ranksByScore([3, 3, 3]), [1, 2, 3], "no spread: the positions");
    assert.deepEqual(ranksByScore([3]), [1]);
  });

  it("lets another view break what a list scores as a near tie, where by positions the list's order would stand", () => {
    // The twelfth hit scores 9.89 against the first's 10, the list's 25th 1.
    const closeCall = scored("lexical", [10, ...Array.from({ length: 23 }, (_, i) => 9.99 - i * (i < 11 ? 0.01 : 0.3)), 1]);
    const twelfth = closeCall.hits[11]?.key ?? "";
    const semantic = list("semantic", 0, [twelfth]);
    const byPosition = fuseRankedLists([closeCall, semantic], { method: "rrf", rrfK: 20, weights });
    assert.equal(byPosition[0]?.key, "a", "by positions the first stays first");
    const byScore = fuseRankedLists([closeCall, semantic], { method: "rrf", rrfK: 20, weights, votesByScore: (l) => l.view === "lexical" });
    assert.equal(byScore[0]?.key, twelfth, "scored alike, the semantic vote decides");
    const farAhead = scored("lexical", [10, ...Array.from({ length: 24 }, (_, i) => 2 - i * 0.01)]);
    const clear = fuseRankedLists([farAhead, list("semantic", 0, ["b"])], { method: "rrf", rrfK: 20, weights, votesByScore: () => true });
    assert.equal(clear[0]?.key, "a", "a first hit far ahead keeps its lead");
  });
});

describe("rule planner entities", () => {
  const vocabulary = { persons: ["Melanie", "Caroline"], entities: ["Woohoo Melanie", "Acme Corp", "LGBTQ"], locations: [] };
  const plan = (question: string) => planWithRules(question, { vocabulary, now: new Date("2023-08-01T00:00:00Z"), timeZone: "UTC", maxSubQueries: 4, clauseQueries: false });

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
