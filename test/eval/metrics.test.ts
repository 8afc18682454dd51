import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { evaluableQuestions } from "../../src/eval/locomo-questions.js";
import { binaryJudgements, comparePaired, percentile, scoreRanking, separation, signTestPValue, summarize, type Measure, type QuestionResult } from "../../src/eval/metrics.js";
import { evalJson } from "../../src/eval/report.js";
import type { EvalRun } from "../../src/eval/run.js";
import { parseLocomo } from "../../src/ingest/locomo.js";

describe("paired comparison", () => {
  const result = (conversationId: string, index: number, recall10: number): QuestionResult => ({
    questionId: `${conversationId}:${index}`, category: 1, latencyMs: 1, llmCalls: 0, recall: { 10: recall10 }, hit: { 10: recall10 > 0 ? 1 : 0 }, ndcg: { 10: 0 }, reciprocalRank: { 10: 0 },
  });
  const recall10: Measure = (score) => score.recall[10];

  it("the sign test's p-value matches the binomial tail worked by hand", () => {
    assert.equal(signTestPValue(0, 0), 1, "no disagreements: no evidence either way");
    assert.equal(signTestPValue(5, 5), 1);
    // 9 wins, 1 loss: P(X <= 1 | n = 10, 1/2) = 11/1024, two-sided 22/1024.
    assert.ok(Math.abs(signTestPValue(9, 1) - 22 / 1024) < 1e-12);
    assert.equal(signTestPValue(1, 9), signTestPValue(9, 1), "symmetric");
    assert.ok(signTestPValue(60, 40) > 0.05 && signTestPValue(70, 30) < 0.001, "100 disagreements: 60/40 is not significant, 70/30 is");
    assert.ok(signTestPValue(900, 600) > 0, "a large n does not underflow to zero");
  });

  it("pairs questions by id, whatever the order, and counts wins and losses", () => {
    const first = [result("a", 0, 1), result("a", 1, 0.5), result("b", 0, 0), result("b", 1, 1)];
    const second = [result("b", 1, 1), result("b", 0, 0.5), result("a", 1, 0), result("a", 0, 0.5), result("c", 0, 1)];
    const comparison = comparePaired(first, second, recall10);
    assert.equal(comparison.wins, 2);
    assert.equal(comparison.losses, 1);
    assert.ok(Math.abs(comparison.difference - (0.5 + 0.5 - 0.5 + 0) / 4) < 1e-12, "the unpaired question c:0 is left out");
    assert.equal(comparison.pValue, 1);
  });
});

describe("evidence metrics", () => {
  const evidence = (...ids: string[]) => binaryJudgements(ids);
  it("recall@k is the share of evidence turns among the top k entries' turns", () => {
    const ranked = [["D1:1"], ["D1:5"], ["D2:3"], ["D3:1"]];
    const score = scoreRanking(ranked, evidence("D1:5", "D3:1"), [1, 2, 3, 4]);
    assert.deepEqual(score.recall, { 1: 0, 2: 0.5, 3: 0.5, 4: 1 });
    assert.deepEqual(score.hit, { 1: 0, 2: 1, 3: 1, 4: 1 });
    assert.deepEqual(score.reciprocalRank, { 1: 0, 2: 1 / 2, 3: 1 / 2, 4: 1 / 2 });
  });

  it("one entry carrying several turn ids can find several evidence turns at once", () => {
    const ranked = [["D4:1", "D4:2", "D4:3"], ["D9:9"]];
    const score = scoreRanking(ranked, evidence("D4:2", "D4:3", "D9:9"), [1, 2]);
    assert.equal(score.recall[1], 2 / 3);
    assert.equal(score.recall[2], 1);
    assert.deepEqual(score.reciprocalRank, { 1: 1, 2: 1 });
  });

  it("counts a repeated evidence id once, and a turn returned twice once", () => {
    const score = scoreRanking([["D1:1"], ["D1:1", "D1:2"]], evidence("D1:1", "D1:1", "D7:7"), [2]);
    assert.equal(score.recall[2], 1 / 2);
  });

  it("scores zero when nothing relevant comes back, and k beyond the list is the whole list", () => {
    const score = scoreRanking([["D1:1"], ["D1:2"]], evidence("D5:5"), [5, 10]);
    assert.deepEqual(score.recall, { 5: 0, 10: 0 });
    assert.deepEqual(score.hit, { 5: 0, 10: 0 });
    assert.deepEqual(score.reciprocalRank, { 5: 0, 10: 0 });
    assert.equal(scoreRanking([], evidence("D5:5"), [5]).recall[5], 0);
  });

  it("refuses to score a question without evidence", () => {
    assert.throws(() => scoreRanking([["D1:1"]], evidence(), [5]), RangeError);
  });

  it("averages recall, hit and reciprocal rank", () => {
    const a = scoreRanking([["D1:1"], ["D1:2"]], evidence("D1:2"), [1, 2]);
    const b = scoreRanking([["D1:1"], ["D1:2"]], evidence("D1:1", "D3:3"), [1, 2]);
    const summary = summarize([a, b], [1, 2]);
    assert.equal(summary.n, 2);
    assert.deepEqual(summary.recall, { 1: 0.25, 2: 0.75 });
    assert.deepEqual(summary.hit, { 1: 0.5, 2: 1 });
    assert.deepEqual(summary.mrr, { 1: 0.5, 2: 0.75 });
    assert.deepEqual(summarize([], [1]), { n: 0, recall: { 1: 0 }, hit: { 1: 0 }, ndcg: { 1: 0 }, mrr: { 1: 0 } });
  });

  it("percentiles interpolate between closest ranks", () => {
    assert.equal(percentile([3, 1, 2, 4], 50), 2.5);
    assert.equal(percentile([10], 95), 10);
    assert.equal(percentile([1, 2, 3, 4, 5], 100), 5);
    assert.equal(percentile([], 50), 0);
  });

  it("separation is the chance that a value of the first group exceeds one of the second, ties half", () => {
    assert.equal(separation([0.9, 0.8], [0.1, 0.2]), 1);
    assert.equal(separation([0.1, 0.2], [0.9, 0.8]), 0);
    // 0.5 beats 0.4, ties 0.5 and loses to 0.6; 0.7 beats all three: (1 + 0.5 + 0 + 3) / 6.
    assert.equal(separation([0.5, 0.7], [0.4, 0.5, 0.6]), 0.75);
    assert.equal(separation([0.3], []), undefined);
  });
});

describe("LoCoMo questions", () => {
  const sample = {
    sample_id: "tiny",
    conversation: {
      speaker_a: "Ann",
      speaker_b: "Bob",
      session_1_date_time: "1:56 pm on 8 May, 2023",
      session_1: [
        { speaker: "Ann", dia_id: "D1:1", text: "I adopted a cat named Miso." },
        { speaker: "Bob", dia_id: "D1:2", text: "Lovely! What colour is Miso?" },
        { speaker: "Ann", dia_id: "D1:3", text: "Orange, with white paws." },
      ],
    },
    qa: [
      { question: "What is the cat's name?", evidence: ["D1:1"], category: 4 },
      { question: "What colour is Miso?", evidence: ["D1:3", "D1:3"], category: 4 },
      { question: "No evidence", evidence: [], category: 3 },
      { question: "Two ids in one string", evidence: ["D1:1; D1:3"], category: 1 },
      { question: "Extra colon", evidence: ["D:1:3"], category: 1 },
      { question: "Zero-padded id that names no turn", evidence: ["D1:03"], category: 2 },
      { question: "Partly broken", evidence: ["D1:1", "D"], category: 1 },
    ],
  };

  it("keeps well-formed evidence (de-duplicated) and skips missing or malformed ids with a reason", () => {
    const [conversation] = parseLocomo([sample]);
    assert.ok(conversation);
    const { questions, skipped } = evaluableQuestions(conversation);
    assert.deepEqual(
      questions.map((q) => [q.index, q.evidence]),
      [
        [0, ["D1:1"]],
        [1, ["D1:3"]],
      ],
    );
    assert.deepEqual(
      skipped.map((q) => q.index),
      [2, 3, 4, 5, 6],
    );
    assert.match(skipped[0]?.reason ?? "", /no evidence/);
    assert.match(skipped[1]?.reason ?? "", /malformed/);
    assert.match(skipped[3]?.reason ?? "", /not a turn/);
  });
});

describe("eval JSON", () => {
  it("reports categories 1-4 as the headline and every category apart", () => {
    const result = (category: number, recall10: number): QuestionResult => ({
      questionId: `c:${category}`,
      category,
      latencyMs: 10,
      llmCalls: 0,
      recall: { 10: recall10 },
      hit: { 10: recall10 > 0 ? 1 : 0 },
      ndcg: { 10: recall10 },
      reciprocalRank: { 10: recall10 > 0 ? 1 : 0 },
    });
    const run: EvalRun = {
      dataset: "x.json",
      conversations: ["c"],
      mode: "full",
      ks: [10],
      embedder: "hash-v1 (512-d)",
      store: "sqlite",
      questions: [],
      skipped: [],
      entries: 3,
      turnsPerEntry: 1,
      retrievers: [{ name: "recallgraph full", description: "", primary: true, results: [result(1, 1), result(4, 0), result(5, 1)] }],
      timings: { embedEntriesSeconds: 0, ingestSeconds: 0, embedQuestionsSeconds: 0, askSeconds: {}, totalSeconds: 0, textsEmbedded: 0, modelSeconds: 0, vectorsFromCache: 0 },
    };
    const json = evalJson(run);
    assert.deepEqual(json.recall, { "10": 0.5 });
    assert.deepEqual(Object.keys(json.byCategory), ["1", "4", "5"]);
    assert.deepEqual(json.byCategory["5"], { n: 1, recall: { "10": 1 } });
    assert.equal(json.peers, undefined);

    // With another row: each row's category 5 apart from its headline, and the requested mode against it there.
    const withPeer = evalJson({
      ...run,
      retrievers: [
        ...run.retrievers,
        { name: "recallgraph full without context votes", description: "", primary: false, results: [result(1, 1), result(4, 0), result(5, 0)] },
      ],
    });
    const [primary, other] = withPeer.peers ?? [];
    assert.deepEqual(primary?.reportedApart, { n: 1, recall: { "10": 1 } });
    assert.deepEqual(other?.recall, { "10": 0.5 }, "the headline is the same");
    assert.deepEqual(other?.reportedApart?.recall, { "10": 0 });
    assert.deepEqual(
      { difference: other?.reportedApart?.versusPrimary?.["10"]?.difference, wins: other?.reportedApart?.versusPrimary?.["10"]?.wins },
      { difference: 1, wins: 1 },
    );
    assert.equal(other?.versusPrimary?.["10"]?.wins, 0, "the headline's comparison counts categories 1-4 only");
  });
});
