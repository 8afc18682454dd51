import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { withoutRelativeTime } from "../../src/retrieval/query-words.js";

describe("withoutRelativeTime", () => {
  it("leaves out a relative time expression, in English or Chinese", () => {
    assert.equal(withoutRelativeTime("What did Alice do last week?", "last week"), "What did Alice do ?");
    assert.equal(withoutRelativeTime("Last week, what did Alice buy?", "Last week"), ", what did Alice buy?");
    assert.equal(withoutRelativeTime("上周在上海开会的差旅怎么报销？", "上周"), "在上海开会的差旅怎么报销？");
    assert.equal(withoutRelativeTime("我们上周在上海开会", "上周"), "我们 在上海开会", "the two sides stay apart, as words");
  });

  it("keeps a date or a month, which memories spell the same way", () => {
    for (const [question, expression] of [
      ["What did Nate make on 9 November, 2022?", "on 9 November, 2022"],
      ["Where did Calvin go in August?", "in August"],
      ["What happened in 2023?", "2023"],
    ] as const) {
      assert.equal(withoutRelativeTime(question, expression), question);
    }
  });

  it("returns the question when it has no time expression", () => {
    assert.equal(withoutRelativeTime("What did Alice do?", undefined), "What did Alice do?");
  });
});
