import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { seededRandom } from "../../bench/synthetic.js";
import { ValidationError } from "../../src/core/errors.js";
import { findTimeExpressions, findTimeWindow, resolveRelativeDates, TimeWindowSchema, type TimeContext } from "../../src/time/index.js";

const context = { now: Date.parse("2023-05-10T15:00:00Z"), timeZone: "Europe/Berlin" };

function pseudoRandomText(length: number, seed: number): string {
  const random = seededRandom(seed);
  let text = "";
  for (let position = 0; position < length; position++) text += String.fromCharCode(Math.floor(random() * 0xffff));
  return text;
}

describe("arbitrary user text never throws", () => {
  const texts = [
    "",
    "   ",
    "😀🎉🔥 💯",
    "\u0000\u0001\uD800\uDFFF\uFFFF",
    "ERR_1024 3 kids 42 1e10 0x7E7 99999 2023-13-45 31/02/2023 25:61",
    "last last last week week ago ago 上上上上周 前前前年",
    pseudoRandomText(10_000, 7),
    "I went there yesterday. ".repeat(420),
    "上周五前一周".repeat(1_600),
    "between ".repeat(1_000) + "May 1 and May 10",
  ];
  for (const [position, text] of texts.entries()) {
    it(`text #${position} (${text.length} chars)`, () => {
      const found = findTimeExpressions(text, context);
      for (const window of found) {
        TimeWindowSchema.parse(window);
        assert.equal(text.slice(window.index, window.index + window.length), window.expression);
        if (window.startMs !== undefined && window.endMs !== undefined) assert.ok(window.startMs < window.endMs, window.expression);
      }
      assert.equal(typeof resolveRelativeDates(text, context), "string");
    });
  }

  it("handles a 10k-character text within a second", () => {
    const text = "We met last week, then 上周五 and 3 days ago. ".repeat(230).slice(0, 10_000);
    const started = performance.now();
    const found = findTimeExpressions(text, context);
    assert.ok(found.length > 100);
    assert.ok(performance.now() - started < 5_000);
  });

  it("returns undefined, not an error, for a non-string from untyped callers", () => {
    assert.equal(findTimeWindow(undefined as unknown as string, context), undefined);
    assert.deepEqual(findTimeExpressions(42 as unknown as string, context), []);
  });
});

describe("the context is validated", () => {
  const rejects = (bad: unknown, field: string) =>
    assert.throws(() => findTimeWindow("yesterday", bad as TimeContext), (error: unknown) => error instanceof ValidationError && error.field === field);

  it("names timeZone for an unknown zone", () => rejects({ now: 0, timeZone: "Atlantis/Capital" }, "timeZone"));
  it("names timeZone for an empty zone", () => rejects({ now: 0, timeZone: "" }, "timeZone"));
  it("names now for an invalid date", () => rejects({ now: new Date("not a date") }, "now"));
  it("names now for a non-finite number", () => rejects({ now: Number.NaN }, "now"));
  it("names now when missing", () => rejects({}, "now"));
  it("names now outside the years ISO 8601 writes plainly", () => rejects({ now: 8.64e15 }, "now"));
  it("keeps every window representable at the edges of that range", () => {
    for (const now of [253_402_300_799_999, -62_135_596_800_000]) {
      for (const window of findTimeExpressions("last year, yesterday, next year, 上周, 明年", { now, timeZone: "Asia/Shanghai" })) TimeWindowSchema.parse(window);
    }
  });
  it("accepts epoch ms and Date alike", () => {
    assert.deepEqual(findTimeWindow("yesterday", { now: context.now }), findTimeWindow("yesterday", { now: new Date(context.now) }));
  });
});
