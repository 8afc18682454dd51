import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ValidationError } from "../../src/core/errors.js";
import { resolveRelativeDates } from "../../src/time/index.js";

// Monday 8 May 2023, 13:56 UTC (a LoCoMo session time).
const context = { now: new Date("2023-05-08T13:56:00Z"), timeZone: "UTC" };

describe("resolveRelativeDates, English", () => {
  const cases: Array<[string, string]> = [
    ["I went there yesterday", "I went there on 7 May 2023"],
    ["Yesterday I went there.", "On 7 May 2023 I went there."],
    ["We moved last week.", "We moved in the week of 1–7 May 2023."],
    ["I painted it last year", "I painted it in 2022"],
    ["She started 3 days ago", "She started on 5 May 2023"],
    ["We met last Friday.", "We met on Friday, 5 May 2023."],
    ["I have been sick since yesterday", "I have been sick since 7 May 2023"],
    ["We went camping last summer", "We went camping in the summer of 2022"],
    ["Last month I ran a marathon.", "In April 2023 I ran a marathon."],
    ["I read two books in the past week", "I read two books in the period from 1 May to 8 May 2023"],
    ["See you next week!", "See you in the week of 15–21 May 2023!"],
    ["It rained 2 weeks ago", "It rained in the week of 24–30 April 2023"],
    ["We hiked last weekend", "We hiked on the weekend of 6–7 May 2023"],
    ["I got back this morning", "I got back on 8 May 2023"],
  ];
  for (const [input, output] of cases) it(input, () => assert.equal(resolveRelativeDates(input, context), output));

  it("leaves absolute dates, bare months and bare weekdays alone", () => {
    for (const text of ["We met on 8 May 2023.", "I'm going to Paris in May.", "Let's talk on Friday.", "In 2022 I moved.", "When did Caroline go to the LGBTQ support group?"]) {
      assert.equal(resolveRelativeDates(text, context), text);
    }
  });
});

describe("resolveRelativeDates, Chinese", () => {
  const cases: Array<[string, string]> = [
    ["我昨天去了那里", "我2023年5月7日去了那里"],
    ["我上周去了北京", "我2023年5月1日至7日那周去了北京"],
    ["去年夏天我们去了海边", "2022年夏天我们去了海边"],
    ["上周五很开心", "2023年5月5日（星期五）很开心"],
    ["她三天前开始学画画", "她2023年5月5日开始学画画"],
    ["上个月我换了工作", "2023年4月我换了工作"],
    ["最近一周很忙", "2023年5月1日至8日期间很忙"],
    ["我们前年认识的", "我们2021年认识的"],
    ["这周末去爬山", "2023年5月13日至14日那个周末去爬山"],
  ];
  for (const [input, output] of cases) it(input, () => assert.equal(resolveRelativeDates(input, context), output));

  it("leaves absolute dates alone", () => {
    assert.equal(resolveRelativeDates("2023年5月8日我们见面了", context), "2023年5月8日我们见面了");
  });
});

describe("resolveRelativeDates, options", () => {
  it("follows the time zone", () => {
    // 2023-05-08T20:00Z is already 04:00 on 9 May in Shanghai.
    assert.equal(resolveRelativeDates("I went there yesterday", { now: Date.parse("2023-05-08T20:00:00Z"), timeZone: "Asia/Shanghai" }), "I went there on 8 May 2023");
  });
  it("writes replacements in a forced locale", () => {
    assert.equal(resolveRelativeDates("I went there yesterday", context, "zh"), "I went there 2023年5月7日");
    assert.equal(resolveRelativeDates("我昨天去了", context, "en"), "我on 7 May 2023去了");
  });
  it("rewrites several expressions in one sentence", () => {
    assert.equal(resolveRelativeDates("Yesterday I ran, and last week I swam.", context), "On 7 May 2023 I ran, and in the week of 1–7 May 2023 I swam.");
  });
  it("keeps a noun a noun, a hedge a hedge, and a vague count vague", () => {
    assert.equal(resolveRelativeDates("Last Sunday was awesome", context), "Sunday, 7 May 2023 was awesome");
    assert.equal(resolveRelativeDates("Tomorrow's opening will be fun", context), "9 May 2023's opening will be fun");
    assert.equal(resolveRelativeDates("I first watched it around 3 years ago", context), "I first watched it around 2020");
    assert.equal(resolveRelativeDates("A few weeks ago I had a dream", context), "A few weeks before 8 May 2023 I had a dream");
    assert.equal(resolveRelativeDates("几天前我去了", context), "2023年5月8日的几天前我去了");
  });
  it("refuses an unknown locale or zone with a ValidationError", () => {
    assert.throws(() => resolveRelativeDates("yesterday", context, "fr" as "en"), (error: unknown) => error instanceof ValidationError && error.field === "locale");
    assert.throws(() => resolveRelativeDates("yesterday", { now: 0, timeZone: "Nowhere/City" }), (error: unknown) => error instanceof ValidationError && error.field === "timeZone");
  });
});
