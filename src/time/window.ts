/**
 * The entry of the time module: find the time expressions of a question or sentence and resolve each into a
 * calendar-exact window in the request's zone, relative to the request's reference time (never the clock).
 */
import { parseOrThrow } from "../core/errors.js";
import { assertTimeZone, wallTimeAt } from "./calendar.js";
import { findBaseWindows } from "./chrono-results.js";
import { assembleWindows } from "./combine.js";
import type { Reference } from "./rule-result.js";
import { MAX_MS, MIN_MS, TimeContextSchema, type LocatedTimeWindow, type TimeContext, type TimeWindow } from "./types.js";

/** Validates the context (ValidationError naming `now` or `timeZone`) and reads the reference wall clock. */
export function referenceOf(context: TimeContext): Reference {
  const parsed = parseOrThrow(TimeContextSchema, context, "");
  const timeZone = assertTimeZone(parsed.timeZone ?? "UTC");
  const nowMs = parsed.now instanceof Date ? parsed.now.getTime() : parsed.now;
  const now = wallTimeAt(nowMs, timeZone);
  return { nowMs, timeZone, now, today: { year: now.year, month: now.month, day: now.day } };
}

function isoOf(ms: number | undefined): string | undefined {
  if (ms === undefined) return undefined;
  const date = new Date(ms);
  return Number.isFinite(date.getTime()) ? date.toISOString() : undefined;
}

/** Located windows for a validated reference; the rewrite uses this too. */
export function windowsFor(text: string, reference: Reference): LocatedTimeWindow[] {
  if (typeof text !== "string" || text.trim() === "") return [];
  let found;
  try {
    found = assembleWindows(text, findBaseWindows(text, reference), reference);
  } catch {
    // chrono on hostile input must degrade to "no time expression", never to an error in a request.
    return [];
  }
  const representable = (ms: number | undefined): boolean => ms === undefined || (ms >= MIN_MS && ms <= MAX_MS + 1);
  return found.filter((item) => representable(item.startMs) && representable(item.endMs)).map((item) => {
    const window: LocatedTimeWindow = {
      expression: text.slice(item.index, item.index + item.length),
      granularity: item.granularity,
      index: item.index,
      length: item.length,
    };
    if (item.startMs !== undefined) {
      window.startMs = item.startMs;
      window.start = isoOf(item.startMs);
    }
    if (item.endMs !== undefined) {
      window.endMs = item.endMs;
      window.end = isoOf(item.endMs);
    }
    return window;
  });
}

/** Every time expression in `text`, in text order, each with its window and position. */
export function findTimeExpressions(text: string, context: TimeContext): LocatedTimeWindow[] {
  return windowsFor(text, referenceOf(context));
}

/** Far enough that every day read from `now` moves ("June 9" to another year, "last Friday" to another week). */
const OTHER_REFERENCE_MS = 400 * 86_400_000;

/**
 * The question's time window, or undefined when it has none: its first time expression, unless a later
 * one is a whole date, written with its year. "What did Joanna finish last Friday, on 23 January 2022?"
 * and "her writing issue last week, as mentioned on 6 November 2023" say when the words were said:
 * the memories of that day, not a Friday or a week counted from the request's time. A year or a
 * month ("last week, about the 2024 budget") more often describes a thing than dates the question,
 * and gives way to the first expression.
 */
export function findTimeWindow(text: string, context: TimeContext): TimeWindow | undefined {
  const reference = referenceOf(context);
  const found = windowsFor(text, reference);
  if (found.length < 2) return found[0];
  // A date written with its year gives the same window against another reference time.
  const elsewhen = windowsFor(text, shiftedReference(reference, OTHER_REFERENCE_MS));
  const dated = found.find(
    (window) =>
      (window.granularity === "day" || window.granularity === "instant") &&
      elsewhen.some((other) => other.index === window.index && other.startMs === window.startMs && other.endMs === window.endMs),
  );
  return dated ?? found[0];
}

function shiftedReference(reference: Reference, byMs: number): Reference {
  return referenceOf({ now: reference.nowMs + (reference.nowMs + byMs <= MAX_MS ? byMs : -byMs), timeZone: reference.timeZone });
}
