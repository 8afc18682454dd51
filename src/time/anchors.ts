/**
 * Periods anchored on another date, as LoCoMo-style questions write them:
 * - "the week of X" (its ISO week), "the weekend of X";
 * - "the week before X" (the 7 days before X), "the week after X" (the 7 days after X);
 * - "the weekend before X" (the latest Saturday-Sunday ending before X), "the Friday before X", and "after";
 * - "the second week of November" (days 8-14), "the last week of August" (its last 7 days),
 *   "the first weekend of August 2023" (the month's first Saturday and the Sunday after it);
 * - "the last two weeks of August 2023" (its last 14 days), "the first three days of June" (its first 3),
 *   "the last three months of 2022" (October to December), "the last month of 2022" (December):
 *   counted days, weeks or months at either end of any period (the whole period when they do not fit in it);
 * - Chinese: X前一周, X后一周, X那周, X那个周末.
 */
import { ENGLISH_COUNT, parseEnglishCount } from "./numbers.js";
import { addDays, addMonthsToWall, compareDates, daysInMonth, ENGLISH_WEEKDAYS, englishWeekdayNumber, daySpan, daysSpan, instantOf, isoWeekday, midnight, wallTimeAt, weekSpan, type CivilDate, type WallSpan } from "./calendar.js";
import type { Found } from "./chrono-results.js";
import { weekendOfWeek } from "./periods.js";
import { textAfter, textBefore, type Reference } from "./rule-result.js";

const ORDINALS: Record<string, number> = { first: 1, "1st": 1, second: 2, "2nd": 2, third: 3, "3rd": 3, fourth: 4, "4th": 4, fifth: 5, "5th": 5, last: -1, final: -1 };
const EN_ANCHOR = new RegExp(
  String.raw`(?:^|[^\p{L}])((?:the\s+)?(?:(first|1st|second|2nd|third|3rd|fourth|4th|fifth|5th|last|final)\s+)?(week|weekend|${ENGLISH_WEEKDAYS.join("|")})\s+(of|before|after|prior\s+to|following)\s+)$`,
  "iu",
);
const EN_COUNTED_END = new RegExp(String.raw`(?:^|[^\p{L}])((?:the\s+)?(first|last|final)\s+(?:(${ENGLISH_COUNT})\s+)?(days?|weeks?|months?)\s+of\s+)$`, "iu");
const ZH_ANCHOR_SHIFT = /^(?:的|之)?(前|后)(?:的)?一个?(?:周|星期|礼拜)/u;
const ZH_ANCHOR_WEEK = /^(?:的|所在的)?那一?个?(周末|周|星期|礼拜)/u;

type Relation = "of" | "before" | "after";

function dateAt(ms: number, reference: Reference): CivilDate {
  const wall = wallTimeAt(ms, reference.timeZone);
  return { year: wall.year, month: wall.month, day: wall.day };
}

/** The first (or, counting back, last) `weekday` on or after `from` (on or before, when `step` is -1). */
function nearestWeekday(from: CivilDate, weekday: number, step: 1 | -1): CivilDate {
  const distance = step === 1 ? (weekday - isoWeekday(from) + 7) % 7 : -((isoWeekday(from) - weekday + 7) % 7);
  return addDays(from, distance);
}

/** "the second week of November" / "the last weekend of August" within the month of `first`. */
function ordinalSpan(first: CivilDate, ordinal: number, unit: string): WallSpan | undefined {
  const monthStart = { year: first.year, month: first.month, day: 1 };
  const length = daysInMonth(first.year, first.month);
  if (unit === "week") {
    const startDay = ordinal === -1 ? length - 6 : 1 + 7 * (ordinal - 1);
    return startDay + 6 <= length || ordinal === -1 ? daysSpan({ ...monthStart, day: startDay }, 7) : undefined;
  }
  if (unit !== "weekend") return undefined;
  const saturday = ordinal === -1 ? nearestWeekday({ ...monthStart, day: length }, 6, -1) : addDays(nearestWeekday(monthStart, 6, 1), 7 * (ordinal - 1));
  return saturday.month === first.month ? daysSpan(saturday, 2) : undefined;
}

/**
 * "the last two weeks of X", "the first three months of 2023": that many days (a week is 7) or calendar
 * months at X's start or end (X from its first to its last day), when X holds them.
 */
function countedEndSpan(first: CivilDate, last: CivilDate, end: "first" | "last", count: number, unit: string): WallSpan | undefined {
  if (count < 1) return undefined;
  const after = addDays(last, 1);
  if (unit.startsWith("month")) {
    // Whole months only: X must start (or, counting back, end) on a month's first day.
    const edge = end === "first" ? first : after;
    if (edge.day !== 1) return undefined;
    const other = addMonthsToWall(midnight(edge), end === "first" ? count : -count);
    const span = end === "first" ? { start: midnight(first), end: other } : { start: other, end: midnight(after) };
    return compareDates(span.start, first) < 0 || compareDates(span.end, after) > 0 ? undefined : span;
  }
  const days = unit.startsWith("week") ? count * 7 : count;
  if (compareDates(addDays(first, days - 1), last) > 0) return undefined;
  return end === "first" ? daysSpan(first, days) : daysSpan(addDays(last, 1 - days), days);
}

function relativeSpan(unit: string, relation: Relation, first: CivilDate, last: CivilDate): WallSpan {
  const weekday = englishWeekdayNumber(unit) ?? 0;
  if (relation === "of") {
    if (unit === "week") return weekSpan(first);
    if (unit === "weekend") return weekendOfWeek(first, 0);
    return daySpan(addDays(weekSpan(first).start, weekday - 1));
  }
  if (relation === "before") {
    if (unit === "week") return daysSpan(addDays(first, -7), 7);
    if (unit === "weekend") return daysSpan(addDays(nearestWeekday(addDays(first, -1), 7, -1), -1), 2);
    return daySpan(nearestWeekday(addDays(first, -1), weekday, -1));
  }
  if (unit === "week") return daysSpan(addDays(last, 1), 7);
  if (unit === "weekend") return daysSpan(nearestWeekday(addDays(last, 1), 6, 1), 2);
  return daySpan(nearestWeekday(addDays(last, 1), weekday, 1));
}

function located(item: Found, extraBefore: number, extraAfter: number, span: WallSpan, granularity: Found["granularity"], reference: Reference): Found {
  return {
    index: item.index - extraBefore,
    length: item.length + extraBefore + extraAfter,
    startMs: instantOf(span.start, reference.timeZone),
    endMs: instantOf(span.end, reference.timeZone),
    granularity,
    anchored: true,
  };
}

function anchor(text: string, item: Found, reference: Reference): Found | undefined {
  if (item.startMs === undefined || item.endMs === undefined) return undefined;
  const first = dateAt(item.startMs, reference);
  const last = dateAt(item.endMs - 1, reference);
  const before = textBefore(text, item.index);
  const counted = EN_COUNTED_END.exec(before);
  if (counted) {
    const [, prefix = "", end = "", countWord, unitWord = ""] = counted;
    // "the last month of 2022" is one; "the first weeks of 2022" gives no number, and is the whole year.
    const count = countWord === undefined ? (unitWord.endsWith("s") ? 0 : 1) : (parseEnglishCount(countWord) ?? 0);
    const span = countedEndSpan(first, last, end.toLowerCase() === "first" ? "first" : "last", count, unitWord.toLowerCase());
    // More than the period holds: the period itself, which still owns the words (they are not counted from now).
    return span ? located(item, prefix.length, 0, span, "range", reference) : { ...item, index: item.index - prefix.length, length: item.length + prefix.length, anchored: true };
  }
  const english = EN_ANCHOR.exec(before);
  if (english) {
    const [, prefix = "", ordinalWord, unitWord = "", relationWord = ""] = english;
    const unit = unitWord.toLowerCase();
    const relationText = relationWord.toLowerCase().replace(/\s+/g, " ");
    const relation: Relation = relationText === "of" ? "of" : relationText === "after" || relationText === "following" ? "after" : "before";
    const ordinal = ordinalWord ? ORDINALS[ordinalWord.toLowerCase()] : undefined;
    if (relation === "of" && ordinal !== undefined && item.granularity === "month") {
      const span = ordinalSpan(first, ordinal, unit);
      return span ? located(item, prefix.length, 0, span, "range", reference) : undefined;
    }
    const granularity = unit === "week" && relation === "of" ? "week" : englishWeekdayNumber(unit) !== undefined ? "day" : "range";
    return located(item, prefix.length, 0, relativeSpan(unit, relation, first, last), granularity, reference);
  }
  const after = textAfter(text, item.index + item.length);
  const shifted = ZH_ANCHOR_SHIFT.exec(after);
  if (shifted) return located(item, 0, shifted[0].length, relativeSpan("week", shifted[1] === "前" ? "before" : "after", first, last), "range", reference);
  const week = ZH_ANCHOR_WEEK.exec(after);
  if (week) {
    const weekend = week[1] === "周末";
    return located(item, 0, week[0].length, relativeSpan(weekend ? "weekend" : "week", "of", first, last), weekend ? "range" : "week", reference);
  }
  return undefined;
}

/** Replaces each anchored date by its anchored period, and drops what overlaps the period's words ("last weekend"). */
export function anchorPeriods(text: string, found: Found[], reference: Reference): Found[] {
  const anchored = found.map((item) => anchor(text, item, reference) ?? item);
  const overlaps = (owner: Found, other: Found): boolean =>
    owner !== other && other.index < owner.index + owner.length && owner.index < other.index + other.length;
  return anchored.filter((item) => !anchored.some((other) => other.anchored && overlaps(other, item)));
}
