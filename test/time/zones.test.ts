import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { findTimeWindow } from "../../src/time/index.js";
import { assertWindow } from "./expect-window.js";

describe("America/New_York across the March 2023 DST change (clocks jump at 02:00 on Sunday 12 March)", () => {
  // Tuesday 14 March 2023, 11:00 EDT (UTC-4); the week before was on EST (UTC-5).
  const context = { now: new Date("2023-03-14T15:00:00Z"), timeZone: "America/New_York" };
  const NOW = "2023-03-14T15:00:00.000Z";

  it("last week starts at an EST midnight and ends at an EDT midnight", () =>
    assertWindow(context, { text: "last week", start: "2023-03-06T05:00:00.000Z", end: "2023-03-13T04:00:00.000Z", granularity: "week" }));
  it("上周 is the same ISO week", () =>
    assertWindow(context, { text: "上周", start: "2023-03-06T05:00:00.000Z", end: "2023-03-13T04:00:00.000Z", granularity: "week" }));
  it("the DST Sunday is a 23-hour day", () =>
    assertWindow(context, { text: "on Sunday", start: "2023-03-12T05:00:00.000Z", end: "2023-03-13T04:00:00.000Z", granularity: "day" }));
  it("yesterday", () => assertWindow(context, { text: "yesterday", start: "2023-03-13T04:00:00.000Z", end: "2023-03-14T04:00:00.000Z", granularity: "day" }));
  it("昨天", () => assertWindow(context, { text: "昨天", start: "2023-03-13T04:00:00.000Z", end: "2023-03-14T04:00:00.000Z", granularity: "day" }));
  it("the past week keeps the wall-clock time, so it is 167 hours long", () =>
    assertWindow(context, { text: "the past week", start: "2023-03-07T16:00:00.000Z", end: NOW, granularity: "range" }));
  it("the past 72 hours are real hours, across the change", () =>
    assertWindow(context, { text: "the past 72 hours", start: "2023-03-11T15:00:00.000Z", end: NOW, granularity: "range" }));
  it("最近一周 likewise", () => assertWindow(context, { text: "最近一周", start: "2023-03-07T16:00:00.000Z", end: NOW, granularity: "range" }));
  it("last month is all EST", () =>
    assertWindow(context, { text: "last month", start: "2023-02-01T05:00:00.000Z", end: "2023-03-01T05:00:00.000Z", granularity: "month" }));
  it("this month spans the change", () =>
    assertWindow(context, { text: "this month", start: "2023-03-01T05:00:00.000Z", end: "2023-04-01T04:00:00.000Z", granularity: "month" }));
  it("last year", () => assertWindow(context, { text: "last year", start: "2022-01-01T05:00:00.000Z", end: "2023-01-01T05:00:00.000Z", granularity: "year" }));
  it("last summer is all EDT", () =>
    assertWindow(context, { text: "last summer", start: "2022-06-01T04:00:00.000Z", end: "2022-09-01T04:00:00.000Z", granularity: "season" }));
  it("a clock time on the DST day reads the zone's real offset", () =>
    assertWindow(context, { text: "March 12, 2023 at 3pm", start: "2023-03-12T19:00:00.000Z", end: "2023-03-12T20:00:00.000Z", granularity: "instant" }));
});

describe("America/New_York across the November 2023 DST change (clocks fall back on Sunday 5 November)", () => {
  const context = { now: new Date("2023-11-07T15:00:00Z"), timeZone: "America/New_York" };
  it("last week starts at an EDT midnight and ends at an EST midnight", () =>
    assertWindow(context, { text: "last week", start: "2023-10-30T04:00:00.000Z", end: "2023-11-06T05:00:00.000Z", granularity: "week" }));
  it("the DST Sunday is a 25-hour day", () =>
    assertWindow(context, { text: "上周日", start: "2023-11-05T04:00:00.000Z", end: "2023-11-06T05:00:00.000Z", granularity: "day" }));
});

describe("the zone decides which day it is", () => {
  // 2023-05-10T17:00Z is still 10 May in UTC but already 01:00 on 11 May in Shanghai and 13:00 on 10 May in New York.
  const now = Date.parse("2023-05-10T17:00:00Z");
  it("UTC", () => assertWindow({ now, timeZone: "UTC" }, { text: "yesterday", start: "2023-05-09T00:00:00.000Z", end: "2023-05-10T00:00:00.000Z", granularity: "day" }));
  it("Asia/Shanghai", () =>
    assertWindow({ now, timeZone: "Asia/Shanghai" }, { text: "yesterday", start: "2023-05-09T16:00:00.000Z", end: "2023-05-10T16:00:00.000Z", granularity: "day" }));
  it("America/New_York", () =>
    assertWindow({ now, timeZone: "America/New_York" }, { text: "昨天", start: "2023-05-09T04:00:00.000Z", end: "2023-05-10T04:00:00.000Z", granularity: "day" }));
  it("a Sunday night in Shanghai is already next week in its own calendar", () => {
    // Sunday 14 May 2023 17:00 UTC = Monday 15 May 01:00 in Shanghai.
    const sunday = Date.parse("2023-05-14T17:00:00Z");
    assertWindow({ now: sunday, timeZone: "UTC" }, { text: "last week", start: "2023-05-01T00:00:00.000Z", end: "2023-05-08T00:00:00.000Z", granularity: "week" });
    assertWindow({ now: sunday, timeZone: "Asia/Shanghai" }, { text: "上周", start: "2023-05-07T16:00:00.000Z", end: "2023-05-14T16:00:00.000Z", granularity: "week" });
  });
  it("defaults to UTC", () => {
    assert.deepEqual(findTimeWindow("yesterday", { now }), findTimeWindow("yesterday", { now, timeZone: "UTC" }));
  });
});

describe("the reference time is the request's, never the clock", () => {
  it("resolves against a reference far in the past", () =>
    assertWindow({ now: new Date("2001-02-03T04:05:06Z") }, { text: "last year", start: "2000-01-01T00:00:00.000Z", end: "2001-01-01T00:00:00.000Z", granularity: "year" }));
  it("gives the same answer for the same input", () => {
    const context = { now: Date.parse("2023-05-10T15:00:00Z"), timeZone: "Asia/Shanghai" };
    assert.deepEqual(findTimeWindow("上周五和最近一周", context), findTimeWindow("上周五和最近一周", context));
  });
});
