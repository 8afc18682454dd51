import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { documentTexts } from "../../src/eval/beir-data.js";
import { beirRanking } from "../../src/eval/beir-run.js";
import type { EvalCase } from "../../src/eval/harness.js";
import { scoreRanking, summarize } from "../../src/eval/metrics.js";
import { MAX_TEXT_CHARS } from "../../src/memory/entry.js";

/** One document per returned entry, as BEIR rankings are. */
const ranking = (...ids: string[]) => ids.map((id) => [id]);
const grades = (entries: Record<string, number>) => new Map(Object.entries(entries));
const close = (actual: number | undefined, expected: number, what: string) =>
  assert.ok(actual !== undefined && Math.abs(actual - expected) < 1e-12, `${what}: ${actual} != ${expected}`);

describe("BEIR measures, worked by hand (trec_eval's ndcg_cut and recall, BEIR's MRR@k)", () => {
  it("graded nDCG: linear gains, log2(rank + 1) discounts, the ideal from every judged grade", () => {
    // a is highly relevant (2), b and c relevant (1); x and y are not judged.
    const score = scoreRanking(ranking("x", "a", "c", "y", "b"), grades({ a: 2, b: 1, c: 1 }), [3, 5, 10]);
    const dcg3 = 0 + 2 / Math.log2(3) + 1 / Math.log2(4); // ranks 1, 2, 3
    const idcg3 = 2 / Math.log2(2) + 1 / Math.log2(3) + 1 / Math.log2(4); // a, then b and c
    close(score.ndcg[3], dcg3 / idcg3, "nDCG@3");
    assert.ok(Math.abs((score.ndcg[3] ?? 0) - 0.56273) < 1e-5, "1.76186 / 3.13093");
    const dcg5 = dcg3 + 1 / Math.log2(6); // b at rank 5
    close(score.ndcg[5], dcg5 / idcg3, "nDCG@5 (three relevant: the ideal stops growing at 3)");
    close(score.ndcg[10], dcg5 / idcg3, "nDCG@10 beyond the list is nDCG of the whole list");
    assert.deepEqual(score.recall, { 3: 2 / 3, 5: 1, 10: 1 });
    assert.deepEqual(score.reciprocalRank, { 3: 1 / 2, 5: 1 / 2, 10: 1 / 2 });
    assert.deepEqual(score.hit, { 3: 1, 5: 1, 10: 1 });
  });

  it("the gain is the grade, not 2^grade - 1: swapping a 2 and a 1 costs what linear gains say", () => {
    const judged = grades({ a: 2, b: 1 });
    const ideal = 2 + 1 / Math.log2(3);
    close(scoreRanking(ranking("a", "b"), judged, [2]).ndcg[2], 1, "best order");
    close(scoreRanking(ranking("b", "a"), judged, [2]).ndcg[2], (1 + 2 / Math.log2(3)) / ideal, "swapped");
  });

  it("ties: relevant documents of one grade score the same in either order, and a tied score is taken in the order returned", () => {
    const judged = grades({ a: 1, b: 1 });
    assert.equal(scoreRanking(ranking("a", "b"), judged, [10]).ndcg[10], 1);
    assert.equal(scoreRanking(ranking("b", "a"), judged, [10]).ndcg[10], 1);
    // Two results a retriever scored alike are ranked as it returned them: the first one is rank 1.
    const returned = scoreRanking(ranking("x", "a"), judged, [1, 2]);
    assert.deepEqual(returned.reciprocalRank, { 1: 0, 2: 1 / 2 });
    close(returned.ndcg[2], 1 / Math.log2(3) / (1 + 1 / Math.log2(3)), "nDCG@2 with the relevant one second");
  });

  it("a query with no relevant document retrieved scores zero everywhere; a grade-0 judgement is not relevant", () => {
    const score = scoreRanking(ranking("x", "n", "y"), grades({ a: 1, n: 0 }), [10, 100]);
    assert.deepEqual(score, { recall: { 10: 0, 100: 0 }, hit: { 10: 0, 100: 0 }, ndcg: { 10: 0, 100: 0 }, reciprocalRank: { 10: 0, 100: 0 } });
    assert.equal(scoreRanking([], grades({ a: 1 }), [10]).ndcg[10], 0, "an empty answer");
  });

  it("relevant documents never retrieved still count in the ideal and in recall's denominator", () => {
    const score = scoreRanking(ranking("a"), grades({ a: 1, b: 1, c: 1 }), [10]);
    close(score.ndcg[10], 1 / (1 + 1 / Math.log2(3) + 1 / Math.log2(4)), "nDCG@10");
    close(score.recall[10], 1 / 3, "recall@10");
  });

  it("the cut-off is a cut-off: a relevant document at rank 11 counts for @100 and not for @10", () => {
    const ids = [...Array.from({ length: 10 }, (_, i) => `x${i}`), "a"];
    const score = scoreRanking(ranking(...ids), grades({ a: 1 }), [10, 100]);
    assert.deepEqual(score.recall, { 10: 0, 100: 1 });
    assert.deepEqual(score.reciprocalRank, { 10: 0, 100: 1 / 11 });
    assert.equal(score.ndcg[10], 0);
    close(score.ndcg[100], 1 / Math.log2(12), "nDCG@100");
  });

  it("a relevant document returned twice gains once (trec_eval would refuse the run)", () => {
    const score = scoreRanking(ranking("a", "a", "b"), grades({ a: 1, b: 1 }), [3]);
    close(score.ndcg[3], (1 + 1 / Math.log2(4)) / (1 + 1 / Math.log2(3)), "nDCG@3");
    assert.equal(score.recall[3], 1);
  });

  it("negative grades are judged not relevant; a query with nothing relevant cannot be scored", () => {
    assert.throws(() => scoreRanking(ranking("a"), grades({ a: 0, b: -1 }), [10]), RangeError);
    assert.equal(scoreRanking(ranking("b", "a"), grades({ a: 1, b: -1 }), [10]).reciprocalRank[10], 1 / 2);
  });

  it("means over queries: MRR@10, nDCG@10 and recall by k", () => {
    const first = scoreRanking(ranking("a"), grades({ a: 1 }), [10, 100]);
    const second = scoreRanking(ranking("x", "y", "b"), grades({ b: 1, c: 1 }), [10, 100]);
    const summary = summarize([first, second], [10, 100]);
    assert.equal(summary.n, 2);
    close(summary.mrr[10], (1 + 1 / 3) / 2, "MRR@10");
    close(summary.ndcg[10], (1 + 1 / Math.log2(4) / (1 + 1 / Math.log2(3))) / 2, "nDCG@10");
    assert.deepEqual(summary.recall, { 10: 0.75, 100: 0.75 });
  });
});

describe("the document ranking BEIR scores", () => {
  const question: EvalCase = { id: "q1", namespace: "beir", question: "?", now: "2026-01-01T00:00:00.000Z", judgements: new Map() };

  it("keeps a document once, where its best part ranks, and drops the query's own id (ignore_identical_ids)", () => {
    assert.deepEqual(beirRanking([["d1"], ["d2"], ["d1"], ["q1"], ["d3"]], question), [["d1"], ["d2"], ["d3"]]);
  });

  it("so a document split in parts does not take two of the ten places", () => {
    const ranked = beirRanking([["long"], ["long"], ["d2"]], question);
    assert.deepEqual(scoreRanking(ranked, grades({ d2: 1 }), [2]).recall, { 2: 1 });
  });
});

describe("a document as memory texts", () => {
  it("is its title and text as one memory when it fits", () => {
    assert.deepEqual(documentTexts("Brask", "A barley drink."), ["Brask\nA barley drink."]);
    assert.deepEqual(documentTexts("", "Only text."), ["Only text."]);
    assert.deepEqual(documentTexts("  ", " "), []);
  });

  it("is split at sentence ends when longer than a memory may be, the title leading every part, no word lost", () => {
    const sentences = Array.from({ length: 900 }, (_, i) => `Sentence number ${i} talks about the quellium forge.`);
    const text = sentences.join(" ");
    assert.ok(text.length > 2 * MAX_TEXT_CHARS);
    const parts = documentTexts("Quellium forge", text);
    assert.ok(parts.length >= 3, `${parts.length} parts`);
    for (const part of parts) {
      assert.ok(part.length <= MAX_TEXT_CHARS, `a part of ${part.length} characters`);
      assert.ok(part.startsWith("Quellium forge\n"));
      assert.match(part, /\.$/, "cut after a sentence");
    }
    const words = (value: string) => value.split(/\s+/).filter(Boolean);
    const rejoined = parts.map((part) => part.slice("Quellium forge\n".length)).join(" ");
    assert.deepEqual(words(rejoined), words(text));
  });
});
