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

/** The first time expression of `text` (a question rarely has two), or undefined when there is none. */
export function findTimeWindow(text: string, context: TimeContext): TimeWindow | undefined {
  return findTimeExpressions(text, context)[0];
}
