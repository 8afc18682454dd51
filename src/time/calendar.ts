/**
 * Zone-aware calendar arithmetic with nothing but Intl: wall-clock <-> epoch ms in an IANA zone,
 * civil-date steps, and the boundaries of days, ISO weeks, months, meteorological seasons and years.
 * Every boundary is a local midnight in the zone, so a "day" across a DST change is 23 or 25 hours.
 */
import { ValidationError } from "../core/errors.js";

/** A calendar date with no zone: month 1-12, day 1-31. */
export interface CivilDate {
  year: number;
  month: number;
  day: number;
}

/** A wall-clock reading in some zone. */
export interface WallTime extends CivilDate {
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
}

/** A half-open span of wall-clock times: `end` is exclusive. */
export interface WallSpan {
  start: WallTime;
  end: WallTime;
}

export type Season = "spring" | "summer" | "autumn" | "winter";

/** English month names, January first: how restated dates spell months, and what parsers match. */
export const ENGLISH_MONTHS = [
  "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December",
] as const;

/** English weekday names, Monday first (ISO weekday order). */
export const ENGLISH_WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"] as const;

/** The month (1-12) an English month name stands for, in any case; undefined for anything else. */
export function englishMonthNumber(name: string): number | undefined {
  return positionIn(ENGLISH_MONTHS, name);
}

/** The ISO weekday (1 = Monday) an English weekday name stands for, in any case; undefined for anything else. */
export function englishWeekdayNumber(name: string): number | undefined {
  return positionIn(ENGLISH_WEEKDAYS, name);
}

function positionIn(names: readonly string[], name: string): number | undefined {
  const index = names.findIndex((known) => known.toLowerCase() === name.toLowerCase());
  return index < 0 ? undefined : index + 1;
}

const DAY_MS = 86_400_000;

/**
 * One shape of Intl.DateTimeFormat, memoised per time zone: building a formatter costs far more than
 * using one. A cache keyed by zone is memoisation, not state (same input, same output).
 */
export function formatterPerZone(locale: string, options: Omit<Intl.DateTimeFormatOptions, "timeZone">): (timeZone: string) => Intl.DateTimeFormat {
  const byZone = new Map<string, Intl.DateTimeFormat>();
  return (timeZone) => {
    let formatter = byZone.get(timeZone);
    if (!formatter) {
      formatter = new Intl.DateTimeFormat(locale, { ...options, timeZone });
      byZone.set(timeZone, formatter);
    }
    return formatter;
  };
}

const formatterFor = formatterPerZone("en-US", {
  hourCycle: "h23",
  era: "short",
  year: "numeric",
  month: "numeric",
  day: "numeric",
  hour: "numeric",
  minute: "numeric",
  second: "numeric",
});
const resolvedZones = new Map<string, string>();

/** Throws a ValidationError naming `timeZone` unless it is an IANA zone this runtime knows. */
export function assertTimeZone(timeZone: string): string {
  try {
    let resolved = resolvedZones.get(timeZone);
    if (resolved === undefined) {
      resolved = formatterFor(timeZone).resolvedOptions().timeZone;
      resolvedZones.set(timeZone, resolved);
    }
    return resolved;
  } catch {
    throw new ValidationError("timeZone", `unknown IANA time zone "${timeZone}"`, { timeZone });
  }
}

/** The wall clock in `timeZone` at instant `ms`. */
export function wallTimeAt(ms: number, timeZone: string): WallTime {
  // UTC, the default zone, needs no Intl formatting: the same reading, several times faster.
  if (timeZone === "UTC") return wallFromUtcMs(ms);
  const parts = formatterFor(timeZone).formatToParts(new Date(ms));
  const value = (type: Intl.DateTimeFormatPartTypes): number => Number(parts.find((part) => part.type === type)?.value ?? 0);
  const era = parts.find((part) => part.type === "era")?.value ?? "AD";
  const yearOfEra = value("year");
  return {
    year: era === "BC" || era === "B" ? 1 - yearOfEra : yearOfEra,
    month: value("month"),
    day: value("day"),
    hour: value("hour"),
    minute: value("minute"),
    second: value("second"),
    millisecond: ((ms % 1000) + 1000) % 1000,
  };
}

/** The wall time read as if it were UTC: the zone-free number all civil arithmetic works on. */
export function wallAsUtcMs(wall: WallTime): number {
  const date = new Date(Date.UTC(2000, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second, wall.millisecond));
  date.setUTCFullYear(wall.year, wall.month - 1, wall.day); // Date.UTC maps years 0-99 to 1900-1999
  return date.getTime();
}

function wallFromUtcMs(ms: number): WallTime {
  const date = new Date(ms);
  return {
    year: date.getUTCFullYear(),
    month: date.getUTCMonth() + 1,
    day: date.getUTCDate(),
    hour: date.getUTCHours(),
    minute: date.getUTCMinutes(),
    second: date.getUTCSeconds(),
    millisecond: date.getUTCMilliseconds(),
  };
}

function offsetMsAt(ms: number, timeZone: string): number {
  return wallAsUtcMs(wallTimeAt(ms, timeZone)) - ms;
}

/** The zone's UTC offset at `ms`, in minutes (east positive), as chrono's numeric `timezone` expects. */
export function offsetMinutesAt(ms: number, timeZone: string): number {
  return Math.round(offsetMsAt(ms, timeZone) / 60_000);
}

/**
 * The instant at which the zone's clock reads `wall`. A repeated reading (DST fall-back) maps to the earlier
 * instant; a skipped one (spring-forward gap) moves forward by the gap's length, as Temporal's "compatible"
 * does, so a midnight that does not exist (Santiago) starts the day at the first instant after the gap.
 */
export function instantOf(wall: WallTime, timeZone: string): number {
  const asUtc = wallAsUtcMs(wall);
  const offsetBefore = offsetMsAt(asUtc - DAY_MS, timeZone);
  const offsetAfter = offsetMsAt(asUtc + DAY_MS, timeZone);
  const candidates = [asUtc - offsetBefore, asUtc - offsetAfter].filter(
    (candidate) => offsetMsAt(candidate, timeZone) === asUtc - candidate,
  );
  return candidates.length > 0 ? Math.min(...candidates) : asUtc - offsetBefore;
}

export function midnight(date: CivilDate): WallTime {
  return { year: date.year, month: date.month, day: date.day, hour: 0, minute: 0, second: 0, millisecond: 0 };
}

export function addDays(date: CivilDate, days: number): CivilDate {
  const moved = wallFromUtcMs(wallAsUtcMs(midnight(date)) + days * DAY_MS);
  return { year: moved.year, month: moved.month, day: moved.day };
}

/** Same wall-clock time `days` calendar days away (so across DST it is not days * 24 h). */
export function addDaysToWall(wall: WallTime, days: number): WallTime {
  return { ...wall, ...addDays(wall, days) };
}

/** Months away, the day clamped to the target month's length (31 March - 1 month = 28/29 February). */
export function addMonthsToWall(wall: WallTime, months: number): WallTime {
  const monthIndex = wall.year * 12 + (wall.month - 1) + months;
  const year = Math.floor(monthIndex / 12);
  const month = monthIndex - year * 12 + 1;
  return { ...wall, year, month, day: Math.min(wall.day, daysInMonth(year, month)) };
}

export function daysInMonth(year: number, month: number): number {
  const firstOfNext = month === 12 ? { year: year + 1, month: 1, day: 1 } : { year, month: month + 1, day: 1 };
  return addDays(firstOfNext, -1).day;
}

/** ISO weekday: 1 = Monday ... 7 = Sunday. */
export function isoWeekday(date: CivilDate): number {
  const sundayBased = new Date(wallAsUtcMs(midnight(date))).getUTCDay();
  return sundayBased === 0 ? 7 : sundayBased;
}

export function compareDates(a: CivilDate, b: CivilDate): number {
  return a.year - b.year || a.month - b.month || a.day - b.day;
}

/** Monday of the ISO week (Monday to Sunday) that contains `date`. */
export function weekStart(date: CivilDate): CivilDate {
  return addDays(date, 1 - isoWeekday(date));
}

export function daySpan(date: CivilDate): WallSpan {
  return { start: midnight(date), end: midnight(addDays(date, 1)) };
}

/** `days` whole days starting at `first`. */
export function daysSpan(first: CivilDate, days: number): WallSpan {
  return { start: midnight(first), end: midnight(addDays(first, days)) };
}

/** The ISO week (Monday 00:00 to the next Monday 00:00) containing `date`, shifted by `weeks`. */
export function weekSpan(date: CivilDate, weeks = 0): WallSpan {
  return daysSpan(addDays(weekStart(date), weeks * 7), 7);
}

export function monthSpan(year: number, month: number): WallSpan {
  const start = midnight({ year, month, day: 1 });
  return { start, end: addMonthsToWall(start, 1) };
}

export function yearSpan(year: number): WallSpan {
  return { start: midnight({ year, month: 1, day: 1 }), end: midnight({ year: year + 1, month: 1, day: 1 }) };
}

const SEASON_FIRST_MONTH: Record<Season, number> = { spring: 3, summer: 6, autumn: 9, winter: 12 };

/**
 * Meteorological seasons, northern hemisphere: spring March-May, summer June-August, autumn September-November,
 * winter December-February. The winter "of year Y" starts in December of Y and ends with February of Y + 1.
 */
export function seasonSpan(season: Season, year: number): WallSpan {
  const start = midnight({ year, month: SEASON_FIRST_MONTH[season], day: 1 });
  return { start, end: addMonthsToWall(start, 3) };
}

/** The season containing `date`, with its season-year (January and February belong to the previous year's winter). */
export function seasonOf(date: CivilDate): { season: Season; year: number } {
  if (date.month >= 3 && date.month <= 5) return { season: "spring", year: date.year };
  if (date.month >= 6 && date.month <= 8) return { season: "summer", year: date.year };
  if (date.month >= 9 && date.month <= 11) return { season: "autumn", year: date.year };
  return { season: "winter", year: date.month === 12 ? date.year : date.year - 1 };
}

/** Epoch-ms bounds of a wall span in `timeZone`. */
export function spanToMs(span: WallSpan, timeZone: string): { startMs: number; endMs: number } {
  return { startMs: instantOf(span.start, timeZone), endMs: instantOf(span.end, timeZone) };
}
