import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { findTimeExpressions, findTimeWindow } from "../../src/time/index.js";
import { assertWindow, type WindowCase } from "./expect-window.js";

// 2023-05-10T15:00Z is Wednesday 10 May 2023, 23:00 in Shanghai (UTC+8): local midnights are 16:00Z the day before.
const context = { now: Date.parse("2023-05-10T15:00:00Z"), timeZone: "Asia/Shanghai" };
const NOW = "2023-05-10T15:00:00.000Z";

const cases: WindowCase[] = [
  // days
  { text: "2023年5月8日我们做了什么？", start: "2023-05-07T16:00:00.000Z", end: "2023-05-08T16:00:00.000Z", granularity: "day", expression: "2023年5月8日" },
  { text: "我昨天去了哪里？", start: "2023-05-08T16:00:00.000Z", end: "2023-05-09T16:00:00.000Z", granularity: "day", expression: "昨天" },
  { text: "前天", start: "2023-05-07T16:00:00.000Z", end: "2023-05-08T16:00:00.000Z", granularity: "day" },
  { text: "3天前", start: "2023-05-06T16:00:00.000Z", end: "2023-05-07T16:00:00.000Z", granularity: "day" },
  { text: "三天前", start: "2023-05-06T16:00:00.000Z", end: "2023-05-07T16:00:00.000Z", granularity: "day" },
  { text: "去年5月8日", start: "2022-05-07T16:00:00.000Z", end: "2022-05-08T16:00:00.000Z", granularity: "day" },
  // weekdays
  { text: "上周五她画了什么？", start: "2023-05-04T16:00:00.000Z", end: "2023-05-05T16:00:00.000Z", granularity: "day", expression: "上周五" },
  { text: "上个星期天", start: "2023-05-06T16:00:00.000Z", end: "2023-05-07T16:00:00.000Z", granularity: "day" },
  { text: "周一", start: "2023-05-07T16:00:00.000Z", end: "2023-05-08T16:00:00.000Z", granularity: "day" },
  { text: "这周五", start: "2023-05-11T16:00:00.000Z", end: "2023-05-12T16:00:00.000Z", granularity: "day" },
  { text: "下周一", start: "2023-05-14T16:00:00.000Z", end: "2023-05-15T16:00:00.000Z", granularity: "day" },
  // ISO weeks
  { text: "上周我们见面了吗？", start: "2023-04-30T16:00:00.000Z", end: "2023-05-07T16:00:00.000Z", granularity: "week", expression: "上周" },
  { text: "上个星期", start: "2023-04-30T16:00:00.000Z", end: "2023-05-07T16:00:00.000Z", granularity: "week" },
  { text: "上礼拜", start: "2023-04-30T16:00:00.000Z", end: "2023-05-07T16:00:00.000Z", granularity: "week" },
  { text: "本周", start: "2023-05-07T16:00:00.000Z", end: "2023-05-14T16:00:00.000Z", granularity: "week" },
  { text: "这周天气不错", start: "2023-05-07T16:00:00.000Z", end: "2023-05-14T16:00:00.000Z", granularity: "week", expression: "这周" },
  { text: "下周", start: "2023-05-14T16:00:00.000Z", end: "2023-05-21T16:00:00.000Z", granularity: "week" },
  { text: "上上周", start: "2023-04-23T16:00:00.000Z", end: "2023-04-30T16:00:00.000Z", granularity: "week" },
  { text: "两周前", start: "2023-04-23T16:00:00.000Z", end: "2023-04-30T16:00:00.000Z", granularity: "week" },
  { text: "上周末", start: "2023-05-05T16:00:00.000Z", end: "2023-05-07T16:00:00.000Z", granularity: "range" },
  { text: "2023年6月9日前一周", start: "2023-06-01T16:00:00.000Z", end: "2023-06-08T16:00:00.000Z", granularity: "range" },
  { text: "2023年6月9日那周", start: "2023-06-04T16:00:00.000Z", end: "2023-06-11T16:00:00.000Z", granularity: "week" },
  // months
  { text: "上个月", start: "2023-03-31T16:00:00.000Z", end: "2023-04-30T16:00:00.000Z", granularity: "month" },
  { text: "上月", start: "2023-03-31T16:00:00.000Z", end: "2023-04-30T16:00:00.000Z", granularity: "month" },
  { text: "这个月", start: "2023-04-30T16:00:00.000Z", end: "2023-05-31T16:00:00.000Z", granularity: "month" },
  { text: "11月她去了哪里？", start: "2022-10-31T16:00:00.000Z", end: "2022-11-30T16:00:00.000Z", granularity: "month", expression: "11月" },
  { text: "三月", start: "2023-02-28T16:00:00.000Z", end: "2023-03-31T16:00:00.000Z", granularity: "month" },
  { text: "2023年5月", start: "2023-04-30T16:00:00.000Z", end: "2023-05-31T16:00:00.000Z", granularity: "month" },
  { text: "今年5月", start: "2023-04-30T16:00:00.000Z", end: "2023-05-31T16:00:00.000Z", granularity: "month" },
  { text: "去年十二月份", start: "2022-11-30T16:00:00.000Z", end: "2022-12-31T16:00:00.000Z", granularity: "month" },
  { text: "三个月前", start: "2023-01-31T16:00:00.000Z", end: "2023-02-28T16:00:00.000Z", granularity: "month" },
  // seasons
  { text: "去年夏天我们去了海边", start: "2022-05-31T16:00:00.000Z", end: "2022-08-31T16:00:00.000Z", granularity: "season", expression: "去年夏天" },
  { text: "2022年的秋季", start: "2022-08-31T16:00:00.000Z", end: "2022-11-30T16:00:00.000Z", granularity: "season" },
  { text: "去年冬天", start: "2022-11-30T16:00:00.000Z", end: "2023-02-28T16:00:00.000Z", granularity: "season" },
  { text: "今夏", start: "2023-05-31T16:00:00.000Z", end: "2023-08-31T16:00:00.000Z", granularity: "season" },
  { text: "上个冬天", start: "2022-11-30T16:00:00.000Z", end: "2023-02-28T16:00:00.000Z", granularity: "season" },
  // years
  { text: "去年", start: "2021-12-31T16:00:00.000Z", end: "2022-12-31T16:00:00.000Z", granularity: "year" },
  { text: "今年", start: "2022-12-31T16:00:00.000Z", end: "2023-12-31T16:00:00.000Z", granularity: "year" },
  { text: "前年", start: "2020-12-31T16:00:00.000Z", end: "2021-12-31T16:00:00.000Z", granularity: "year" },
  { text: "2021年", start: "2020-12-31T16:00:00.000Z", end: "2021-12-31T16:00:00.000Z", granularity: "year" },
  { text: "两年前", start: "2020-12-31T16:00:00.000Z", end: "2021-12-31T16:00:00.000Z", granularity: "year" },
  // rolling ranges
  { text: "最近一周她读了什么？", start: "2023-05-03T15:00:00.000Z", end: NOW, granularity: "range", expression: "最近一周" },
  { text: "过去三天", start: "2023-05-07T15:00:00.000Z", end: NOW, granularity: "range" },
  // hours: real hours back from now (chrono alone read 24小时内 as an hour a day ahead)
  { text: "过去24小时内发生了什么？", start: "2023-05-09T15:00:00.000Z", end: NOW, granularity: "range", expression: "过去24小时内" },
  { text: "最近48小时", start: "2023-05-08T15:00:00.000Z", end: NOW, granularity: "range" },
  // a Latin name written against the date is not a code around it
  { text: "Alice昨天去了哪里？", start: "2023-05-08T16:00:00.000Z", end: "2023-05-09T16:00:00.000Z", granularity: "day", expression: "昨天" },
  { text: "近一个月", start: "2023-04-10T15:00:00.000Z", end: NOW, granularity: "range" },
  { text: "这几天", start: "2023-05-07T15:00:00.000Z", end: NOW, granularity: "range" },
  // open ranges
  { text: "3月以来", start: "2023-02-28T16:00:00.000Z", end: NOW, granularity: "open" },
  { text: "从三月起", start: "2023-02-28T16:00:00.000Z", end: NOW, granularity: "open" },
  { text: "自去年以来", start: "2021-12-31T16:00:00.000Z", end: NOW, granularity: "open" },
  { text: "2023年以前", start: null, end: "2022-12-31T16:00:00.000Z", granularity: "open" },
  { text: "2023年5月以后", start: "2023-05-31T16:00:00.000Z", end: null, granularity: "open" },
  { text: "直到上个月为止", start: null, end: "2023-04-30T16:00:00.000Z", granularity: "open" },
  // explicit ranges
  { text: "5月1日到5月10日", start: "2023-04-30T16:00:00.000Z", end: "2023-05-10T16:00:00.000Z", granularity: "range" },
  { text: "从2023年5月1日到2023年5月10日", start: "2023-04-30T16:00:00.000Z", end: "2023-05-10T16:00:00.000Z", granularity: "range", expression: "从2023年5月1日到2023年5月10日" },
  { text: "5月1日和5月10日之间", start: "2023-04-30T16:00:00.000Z", end: "2023-05-10T16:00:00.000Z", granularity: "range", expression: "5月1日和5月10日之间" },
  // clock times
  { text: "上周五下午3点", start: "2023-05-05T07:00:00.000Z", end: "2023-05-05T08:00:00.000Z", granularity: "instant" },
];

describe("Chinese time expressions (Asia/Shanghai, now Wednesday 2023-05-10 23:00 local)", () => {
  for (const expected of cases) it(expected.text, () => assertWindow(context, expected));
});

describe("Chinese text with no time expression", () => {
  const none = [
    "卡罗琳什么时候去的支持小组？",
    "梅兰妮有3个孩子。",
    "构建失败，错误码ERR_1024。",
    "我们一周一次去游泳。",
    "每周五开例会。",
    "日本周边的城市",
    "看一下周报",
    "他马上月底要交报告",
    "我三个孩子都很好",
    "这个春节回家吗",
  ];
  for (const text of none) it(JSON.stringify(text), () => assert.equal(findTimeWindow(text, context), undefined));
});

describe("mixed Chinese and English", () => {
  it("finds both languages in one text, in order", () => {
    const found = findTimeExpressions("Last week 我们去了北京，去年夏天也去过。", context);
    assert.deepEqual(
      found.map((window) => [window.expression, window.granularity]),
      [
        ["Last week", "week"],
        ["去年夏天", "season"],
      ],
    );
  });
});
