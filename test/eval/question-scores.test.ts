import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ValidationError } from "../../src/core/errors.js";
import type { QuestionResult } from "../../src/eval/metrics.js";
import { compareQuestionScores, questionScoreLines, readQuestionScores } from "../../src/eval/question-scores.js";

const result = (questionId: string, recall10: number, category?: number): QuestionResult => ({
  questionId,
  ...(category !== undefined ? { category } : {}),
  latencyMs: 3,
  llmCalls: 0,
  recall: { 5: recall10 / 2, 10: recall10 },
  hit: { 5: 0, 10: recall10 > 0 ? 1 : 0 },
  ndcg: { 5: 0, 10: recall10 },
  reciprocalRank: { 5: 0, 10: recall10 > 0 ? 0.5 : 0 },
});

describe("question scores: written, read back, compared", () => {
  it("a file round-trips every measure and cut-off, and leaves out time and model calls", () => {
    const results = [result("conv-26:0", 1, 4), result("conv-26:1", 0.5, 5)];
    const text = questionScoreLines(results);
    assert.equal(text.trim().split("\n").length, 2);
    assert.doesNotMatch(text, /latencyMs|llmCalls/);
    const [first, second] = readQuestionScores(text, "a.jsonl");
    assert.deepEqual(first, { id: "conv-26:0", category: 4, recall: { 5: 0.5, 10: 1 }, hit: { 5: 0, 10: 1 }, ndcg: { 5: 0, 10: 1 }, reciprocalRank: { 5: 0, 10: 0.5 } });
    assert.equal(second?.category, 5);
  });

  it("pairs by id and counts, per measure, the questions each side wins, with the sign test", () => {
    const first = readQuestionScores(questionScoreLines([result("q1", 1), result("q2", 1), result("q3", 0), result("q4", 1), result("only-first", 1)]), "a");
    const second = readQuestionScores(questionScoreLines([result("q4", 1), result("q3", 1), result("q2", 0), result("q1", 0), result("only-second", 0)]), "b");
    const comparison = compareQuestionScores(first, second);
    assert.equal(comparison.paired, 4);
    assert.equal(comparison.onlyFirst, 1);
    assert.equal(comparison.onlySecond, 1);
    assert.deepEqual(
      comparison.measures.map((measure) => measure.measure),
      ["recall@5", "recall@10", "hit@5", "hit@10", "nDCG@5", "nDCG@10", "RR@5", "RR@10"],
    );
    const recall10 = comparison.measures.find((measure) => measure.measure === "recall@10");
    assert.deepEqual(recall10, { measure: "recall@10", first: 0.75, second: 0.5, difference: 0.25, better: 2, worse: 1, pValue: 1 });
    const hit5 = comparison.measures.find((measure) => measure.measure === "hit@5");
    assert.equal(hit5?.better, 0, "no question differs");
    assert.equal(hit5?.pValue, 1);
  });

  it("keeps only the questions of the categories asked for", () => {
    const first = readQuestionScores(questionScoreLines([result("a", 1, 1), result("b", 1, 5)]), "a");
    const second = readQuestionScores(questionScoreLines([result("a", 0, 1), result("b", 0, 5)]), "b");
    const headline = compareQuestionScores(first, second, [1, 2, 3, 4]);
    assert.equal(headline.paired, 1);
    assert.equal(headline.measures.find((measure) => measure.measure === "recall@10")?.better, 1);
  });

  it("compares only the cut-offs every question scores", () => {
    const first = readQuestionScores('{"id":"a","recall":{"10":1,"25":1},"hit":{},"ndcg":{},"reciprocalRank":{}}\n', "a");
    const second = readQuestionScores('{"id":"a","recall":{"10":0},"hit":{},"ndcg":{},"reciprocalRank":{}}\n', "b");
    assert.deepEqual(compareQuestionScores(first, second).measures.map((measure) => measure.measure), ["recall@10"]);
  });

  it("a bad file is an error naming the file, the line and the field", () => {
    const good = '{"id":"a","recall":{"10":1},"hit":{},"ndcg":{},"reciprocalRank":{}}';
    assert.throws(() => readQuestionScores(`${good}\nnot json\n`, "x.jsonl"), (error: unknown) => error instanceof ValidationError && error.field === "x.jsonl line 2");
    assert.throws(
      () => readQuestionScores('{"id":"a","recall":{"10":1.5},"hit":{},"ndcg":{},"reciprocalRank":{}}', "x.jsonl"),
      (error: unknown) => error instanceof ValidationError && error.field === "x.jsonl line 1: recall: 10",
    );
    assert.throws(() => readQuestionScores(`${good}\n${good}\n`, "x.jsonl"), (error: unknown) => error instanceof ValidationError && /scored twice/.test(error.message));
    assert.throws(() => readQuestionScores("\n", "empty.jsonl"), (error: unknown) => error instanceof ValidationError && error.field === "empty.jsonl");
  });

  it("two files of different data share no question: an error, not an empty comparison", () => {
    const first = readQuestionScores(questionScoreLines([result("a", 1)]), "a");
    const second = readQuestionScores(questionScoreLines([result("b", 1)]), "b");
    assert.throws(() => compareQuestionScores(first, second), (error: unknown) => error instanceof ValidationError && /share no scored question/.test(error.message));
  });
});
