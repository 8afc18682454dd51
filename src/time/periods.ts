/**
 * Relative calendar periods shared by the English and Chinese rules. Every choice of meaning lives here, once:
 * - weeks are ISO weeks, Monday to Sunday; "last week"/上周 is the whole previous one;
 * - "last Friday" is the latest Friday strictly before today; a bare "Friday"/周五 the latest on or before today
 *   (questions about memories look back); "this/next Friday" and 这周五/下周五 are in the current/next ISO week;
 * - a weekend is Saturday and Sunday of an ISO week;
 * - rolling ranges ("the past 7 days", 最近一周) run from the same wall-clock time N units ago to now; hours
 *   ("the past 48 hours", 过去24小时) are real hours, so a DST night keeps its 24.
 */
import {
  addDays,
  addDaysToWall,
  addMonthsToWall,
  compareDates,
  daySpan,
  daysSpan,
  isoWeekday,
  monthSpan,
  seasonOf,
  seasonSpan,
  wallTimeAt,
  weekSpan,
  weekStart,
  yearSpan,
  type CivilDate,
  type Season,
  type WallSpan,
} from "./calendar.js";
import type { Reference } from "./rule-result.js";

export type Unit = "day" | "week" | "month" | "year";

/** The calendar period (day, ISO week, month, year) `count` units away from today (negative = past). */
export function periodAround(today: CivilDate, unit: Unit, count: number): WallSpan {
  switch (unit) {
    case "day":
      return daySpan(addDays(today, count));
    case "week":
      return weekSpan(today, count);
    case "month": {
      const monthIndex = today.year * 12 + today.month - 1 + count;
      return monthSpan(Math.floor(monthIndex / 12), (monthIndex % 12) + 1);
    }
    case "year":
      return yearSpan(today.year + count);
  }
}

const HOUR_MS = 3_600_000;

/**
 * A rolling range up to now: `count` real hours back from the reference instant (a DST night keeps its
 * 24), or from the same wall-clock time `count` days, weeks, months or years before now.
 */
export function rollingSpan(reference: Reference, unit: Unit | "hour", count: number): WallSpan {
  const now = reference.now;
  if (unit === "hour") return { start: wallTimeAt(reference.nowMs - count * HOUR_MS, reference.timeZone), end: now };
  const start =
    unit === "day"
      ? addDaysToWall(now, -count)
      : unit === "week"
        ? addDaysToWall(now, -7 * count)
        : addMonthsToWall(now, -(unit === "year" ? 12 : 1) * count);
  return { start, end: now };
}

/** The given ISO weekday (1 = Monday) of the ISO week `weeks` away from today's. */
export function weekdayInWeek(today: CivilDate, weekday: number, weeks: number): WallSpan {
  return daySpan(addDays(weekStart(today), weeks * 7 + weekday - 1));
}

/** The latest given weekday on or before today (`strictlyBefore`: before today). */
export function latestWeekday(today: CivilDate, weekday: number, strictlyBefore: boolean): WallSpan {
  let back = (isoWeekday(today) - weekday + 7) % 7;
  if (back === 0 && strictlyBefore) back = 7;
  return daySpan(addDays(today, -back));
}

/** Saturday and Sunday of the ISO week `weeks` away from today's. */
export function weekendOfWeek(today: CivilDate, weeks: number): WallSpan {
  return daysSpan(addDays(weekStart(today), weeks * 7 + 5), 2);
}

/** The latest weekend that has begun: this one on Saturday and Sunday, otherwise the previous one. */
export function latestWeekend(today: CivilDate): WallSpan {
  return weekendOfWeek(today, isoWeekday(today) >= 6 ? 0 : -1);
}

export type SeasonChoice = "last" | "this" | "next" | "latest";

/**
 * A season relative to today. "last" = the latest one that ended before the current season began; "this" = the
 * current one if it is that season, else the one of this calendar year; "next" = the first one after the current
 * season; "latest" = the latest one that has begun (bare "in the summer").
 */
export function seasonRelative(today: CivilDate, season: Season, choice: SeasonChoice): WallSpan {
  const current = seasonOf(today);
  const currentStart = seasonSpan(current.season, current.year).start;
  if (choice === "this") return seasonSpan(season, current.season === season ? current.year : today.year);
  const candidates = [today.year + 1, today.year, today.year - 1, today.year - 2].map((year) => seasonSpan(season, year));
  const ordered = (choice === "next" ? [...candidates].reverse() : candidates).find((span) => {
    const order = compareDates(span.start, currentStart);
    if (choice === "last") return order < 0;
    if (choice === "next") return order > 0;
    return compareDates(span.start, today) <= 0;
  });
  return ordered ?? seasonSpan(season, today.year);
}
