import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ValidationError } from "../../src/core/errors.js";
import {
  assertTimeZone,
  instantOf,
  isoWeekday,
  offsetMinutesAt,
  seasonOf,
  seasonSpan,
  wallTimeAt,
  weekSpan,
} from "../../src/time/calendar.js";

const wall = (year: number, month: number, day: number, hour = 0, minute = 0) => ({ year, month, day, hour, minute, second: 0, millisecond: 0 });
const iso = (ms: number) => new Date(ms).toISOString();

describe("calendar", () => {
  it("reads a zone's wall clock", () => {
    assert.deepEqual(wallTimeAt(Date.parse("2023-05-10T17:00:00Z"), "Asia/Shanghai"), wall(2023, 5, 11, 1));
  });
  it("maps wall times to instants with the zone's offset at that time", () => {
    assert.equal(iso(instantOf(wall(2023, 3, 11, 12), "America/New_York")), "2023-03-11T17:00:00.000Z");
    assert.equal(iso(instantOf(wall(2023, 3, 13, 12), "America/New_York")), "2023-03-13T16:00:00.000Z");
  });
  it("moves a skipped wall time forward by the gap", () => {
    // 02:30 does not exist on 2023-03-12 in New York; it reads as 03:30 EDT.
    assert.equal(iso(instantOf(wall(2023, 3, 12, 2, 30), "America/New_York")), "2023-03-12T07:30:00.000Z");
    // Chile skips midnight itself: 2022-09-11 00:00 does not exist in Santiago, the day starts at 01:00.
    assert.equal(iso(instantOf(wall(2022, 9, 11), "America/Santiago")), "2022-09-11T04:00:00.000Z");
  });
  it("maps a repeated wall time to its earlier instant", () => {
    assert.equal(iso(instantOf(wall(2023, 11, 5, 1, 30), "America/New_York")), "2023-11-05T05:30:00.000Z");
  });
  it("reports offsets in minutes east of UTC", () => {
    assert.equal(offsetMinutesAt(Date.parse("2023-05-10T00:00:00Z"), "Asia/Kolkata"), 330);
    assert.equal(offsetMinutesAt(Date.parse("2023-01-10T00:00:00Z"), "America/New_York"), -300);
  });
  it("uses ISO weeks, Monday to Sunday", () => {
    assert.equal(isoWeekday({ year: 2023, month: 5, day: 14 }), 7);
    assert.deepEqual(weekSpan({ year: 2023, month: 5, day: 14 }).start, wall(2023, 5, 8));
    assert.deepEqual(weekSpan({ year: 2023, month: 1, day: 1 }, -1).start, wall(2022, 12, 19));
  });
  it("uses meteorological seasons, winter starting in December", () => {
    assert.deepEqual(seasonSpan("winter", 2023), { start: wall(2023, 12, 1), end: wall(2024, 3, 1) });
    assert.deepEqual(seasonOf({ year: 2024, month: 2, day: 29 }), { season: "winter", year: 2023 });
    assert.deepEqual(seasonOf({ year: 2024, month: 6, day: 1 }), { season: "summer", year: 2024 });
  });
  it("refuses an unknown zone with a ValidationError naming timeZone", () => {
    assert.throws(() => assertTimeZone("Mars/Olympus_Mons"), (error: unknown) => error instanceof ValidationError && error.field === "timeZone");
    assert.equal(assertTimeZone("Asia/Shanghai"), "Asia/Shanghai");
  });
});
