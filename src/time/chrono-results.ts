/**
 * Runs chrono (English always, Chinese when the text has Han characters) with our rules in front of its own
 * parsers, and turns every result into a located window: our rules' windows as they encoded them, chrono's own
 * dates widened to the calendar period they name (a date -> that day, "May 2023" -> that month).
 */
// The two locales we parse, not the package's index, which loads all sixteen (266 modules at start-up).
import * as chronoEn from "chrono-node/en";
import * as chronoZh from "chrono-node/zh";
import type { Chrono, ParsedComponents, ParsedResult, Parser, Refiner } from "chrono-node";
import {
  addDays,
  compareDates,
  daySpan,
  ENGLISH_MONTHS,
  ENGLISH_WEEKDAYS,
  instantOf,
  monthSpan,
  offsetMinutesAt,
  yearSpan,
  type CivilDate,
  type WallSpan,
  type WallTime,
} from "./calendar.js";
import { englishRules } from "./rules-en.js";
import { chineseRules } from "./rules-zh.js";
import { decodeRuleResult, textBefore, type Reference } from "./rule-result.js";
import type { Granularity } from "./types.js";

/** A window found in the text, before open ranges and explicit ranges are assembled. */
export interface Found {
  index: number;
  length: number;
  startMs?: number;
  endMs?: number;
  granularity: Granularity;
  /** chrono guessed the year (a month or date written without one). */
  yearImplied?: boolean;
  /** Made by one of our rules rather than by chrono's own parsers. */
  byRule?: boolean;
  /** A period anchored on a date ("the week before X"): it owns the words around that date. */
  anchored?: boolean;
}

type Precision = "instant" | "day" | "month" | "year";

const HOUR_MS = 3_600_000;
const HAN = /\p{Script=Han}/u;
const WEEKDAY_ONLY_EN = /^(?:(?:last|this|next|past|coming|on)\s+)?(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(?:day|nesday|sday|rsday|urday)?\.?$/i;
// A clock time without am/pm, colon or o'clock ("at 3 hotels") is a count, not a time.
const BARE_CLOCK = /^(?:at\s+)?\d{1,2}$/i;
// Lower-case "march"/"may" are verbs unless a time word stands right before them.
const VERB_MONTH = /^(?:march|may)$/;

function precisionOf(part: ParsedComponents): Precision {
  if (part.isCertain("hour")) return "instant";
  if (part.isCertain("day") || part.isCertain("weekday")) return "day";
  if (part.isCertain("month")) return "month";
  if (part.isCertain("year")) return "year";
  return "day"; // "this morning": nothing certain, it is today
}

function civilOf(part: ParsedComponents): CivilDate {
  return { year: part.get("year") ?? 1970, month: part.get("month") ?? 1, day: part.get("day") ?? 1 };
}

/** A month or date with no year is the latest one that has begun by today: questions about memories look back. */
function latestYear(date: CivilDate, precision: Precision, today: CivilDate): number {
  const start = precision === "month" ? { ...date, day: 1 } : date;
  return compareDates({ ...start, year: today.year }, today) <= 0 ? today.year : today.year - 1;
}

function spanOf(date: CivilDate, precision: Exclude<Precision, "instant">): WallSpan {
  if (precision === "year") return yearSpan(date.year);
  if (precision === "month") return monthSpan(date.year, date.month);
  return daySpan(date);
}

function instantMs(part: ParsedComponents, timeZone: string): number {
  if (part.isCertain("timezoneOffset")) return part.date().getTime();
  const wall: WallTime = {
    ...civilOf(part),
    hour: part.get("hour") ?? 0,
    minute: part.get("minute") ?? 0,
    second: part.get("second") ?? 0,
    millisecond: part.get("millisecond") ?? 0,
  };
  return instantOf(wall, timeZone);
}

/** How an unknown year is settled: the latest that has begun, or beside the other end of a range. */
type YearHint = { kind: "latest" } | { kind: "onOrAfter"; date: CivilDate } | { kind: "onOrBefore"; date: CivilDate };

/** Bounds of one side of a chrono result. */
function bounds(
  part: ParsedComponents,
  reference: Reference,
  hint: YearHint = { kind: "latest" },
): { startMs: number; endMs: number; precision: Precision; date: CivilDate } {
  const precision = precisionOf(part);
  const date = civilOf(part);
  if (!part.isCertain("year") && precision !== "year") {
    if (hint.kind === "latest") {
      if (part.isCertain("month")) date.year = latestYear(date, precision, reference.today);
    } else {
      date.year = hint.date.year;
      const order = compareDates(date, hint.date);
      if (hint.kind === "onOrAfter" && order < 0) date.year += 1;
      if (hint.kind === "onOrBefore" && order > 0) date.year -= 1;
    }
  }
  if (precision === "instant") {
    const startMs = instantMs(part, reference.timeZone);
    return { startMs, endMs: startMs + HOUR_MS, precision, date };
  }
  const span = spanOf(date, precision);
  return { startMs: instantOf(span.start, reference.timeZone), endMs: instantOf(span.end, reference.timeZone), precision, date };
}

/** Text ending in a code's letters or digits ("Smc", "ERR_"), or in a hyphen after a word with a digit or an inner capital ("miR-"); not "mid-". */
const GLUED_TO_CODE = /(?:[A-Za-z0-9_]|(?:[A-Za-z]*\d[A-Za-z0-9]*|[a-z]+[A-Z][A-Za-z]*)-)$/u;
/** What may follow "two weeks before" to make it a date: a number, a month, a weekday or a relative day. */
const DATE_AHEAD = new RegExp(String.raw`^\s*(?:the\s+)?(?:\d|${[...ENGLISH_MONTHS, ...ENGLISH_WEEKDAYS, "today", "yesterday", "tomorrow", "last", "next", "this"].join("|")})`, "iu");

function isNoise(result: ParsedResult, text: string): boolean {
  const matched = result.text.trim().replace(/[,.;:!?]+$/u, "");
  if (result.tags().has("casualReference/now")) return true; // "now" is the reference itself, not a window to search
  if (/weekend/i.test(matched)) return true; // chrono reads it as one Saturday; our rules own weekends
  if (/^for\s/i.test(matched)) return true; // "for a few weeks", "for half an hour": durations, not dates
  if (/^this\s+(?:an?|\d+|few|couple|several)\s/i.test(matched)) return true; // "doing this a few years back"
  if (/^after\s+(?:an?|\d+|few|couple|several|one|two|three)\b/i.test(matched)) return true; // "after 3 years of marriage"
  if (/^this\s+day$/i.test(matched)) return true; // "to this day" means "still"
  if (!/^[\p{L}\p{N}]/u.test(matched)) return true; // "- 25 minutes"
  // "Smc5/6", "miR-142-5P", "ERR_2023": part of a name or code. Only a Latin or digit start: "Alice昨天" is a name, then a date.
  if (/^[A-Za-z0-9]/u.test(matched) && GLUED_TO_CODE.test(textBefore(text, result.index))) return true;
  if (/^[A-Za-z]{3,4}\d|\d[DdHhWwYy]$/u.test(matched)) return true; // "OCT4" (a gene), "in 2D" (gels): letters and digits glued
  if (/^in\s+\S+\s+\w+$/i.test(matched) && /^\s+of\s/i.test(text.slice(result.index + result.text.length))) return true; // "in six months of training": a duration
  // "3 hours before AMI": an offset from something that is not a date ("two weeks before August 11" is merged later).
  if (/^(?:an?|\d+|few|couple|several|one|two|three)\s+\w+\s+(?:before|after|earlier|later)$/i.test(matched) && !DATE_AHEAD.test(text.slice(result.index + result.text.length))) return true;
  // "opening night", "a morning jog": a time of day with no date is only today's when it says so.
  const components = ["year", "month", "day", "weekday", "hour"] as const;
  if (!components.some((component) => result.start.isCertain(component)) && !/^(?:this|tonight|today)/i.test(matched)) return true;
  if (WEEKDAY_ONLY_EN.test(matched)) return true; // our weekday rule owns these ("sat", "wed" are words)
  if (/周天/u.test(matched) || (/^(?:[上下这本]个?)?(?:周|星期|礼拜)[一二三四五六日天1-7]$/u.test(matched))) return true;
  if (!result.start.isCertain("day") && !result.start.isCertain("month") && !result.start.isCertain("weekday") && BARE_CLOCK.test(matched)) return true;
  if (VERB_MONTH.test(matched) && !/(?:in|since|before|after|until|during|of|from|by|early|late|mid|last|this|next)\s+$/i.test(textBefore(text, result.index))) return true;
  return false;
}

/** "the week before 9 June 2023" comes back from chrono as the single day 2 June; widen it to the week. */
function anchoredWeek(result: ParsedResult, reference: Reference): { startMs: number; endMs: number } | undefined {
  const match = /^(?:the\s+)?week\s+(before|after)\s/i.exec(result.text);
  if (!match) return undefined;
  const day = civilOf(result.start);
  const first = match[1]?.toLowerCase() === "before" ? day : addDays(day, -6);
  return {
    startMs: instantOf({ ...first, hour: 0, minute: 0, second: 0, millisecond: 0 }, reference.timeZone),
    endMs: instantOf({ ...addDays(first, 7), hour: 0, minute: 0, second: 0, millisecond: 0 }, reference.timeZone),
  };
}

function toFound(result: ParsedResult, reference: Reference): Found | undefined {
  const ruled = decodeRuleResult(result);
  if (ruled) {
    const lead = Math.min(ruled.lead, result.text.length);
    return {
      index: result.index + lead,
      length: result.text.length - lead,
      startMs: instantOf(ruled.span.start, reference.timeZone),
      endMs: instantOf(ruled.span.end, reference.timeZone),
      granularity: ruled.granularity,
      byRule: true,
    };
  }
  // chrono keeps a trailing comma ("March,") in some results; the expression ends at its last word.
  const located = { index: result.index, length: result.text.replace(/[\s,.;:!?，。；：！？、]+$/u, "").length };
  if (result.end) {
    // "from May to July 2022": a known end year settles an unknown start year; otherwise the start settles the end.
    const start =
      !result.start.isCertain("year") && result.end.isCertain("year")
        ? bounds(result.start, reference, { kind: "onOrBefore", date: civilOf(result.end) })
        : bounds(result.start, reference);
    const end = bounds(result.end, reference, { kind: "onOrAfter", date: start.date });
    const endMs = start.precision === "instant" && end.precision === "instant" ? end.startMs : end.endMs;
    if (endMs <= start.startMs) return undefined;
    return { ...located, startMs: start.startMs, endMs, granularity: "range", yearImplied: !result.end.isCertain("year") };
  }
  const start = bounds(result.start, reference);
  const week = start.precision === "day" ? anchoredWeek(result, reference) : undefined;
  if (week) return { ...located, ...week, granularity: "range" };
  const yearImplied = !result.start.isCertain("year") && start.precision !== "year";
  return { ...located, startMs: start.startMs, endMs: start.endMs, granularity: start.precision, yearImplied };
}

/** chrono joins its own reading of "last week" (one day) into "from last week to this week": let our two ends join instead. */
function withoutSplicedRanges(found: Found[]): Found[] {
  const inside = (outer: Found, inner: Found): boolean => inner.index >= outer.index && inner.index + inner.length <= outer.index + outer.length;
  return found.filter((item) => item.byRule || item.granularity !== "range" || found.filter((other) => other.byRule && inside(item, other)).length < 2);
}

/** Longest wins where two results overlap; on a tie the one listed first (rules before chrono, English before Chinese). */
function withoutOverlaps(found: Found[]): Found[] {
  const sorted = [...found].sort((a, b) => a.index - b.index || b.length - a.length); // stable: ties keep list order
  const kept: Found[] = [];
  for (const candidate of sorted) {
    const previous = kept[kept.length - 1];
    if (previous && candidate.index < previous.index + previous.length) {
      if (candidate.length > previous.length) kept[kept.length - 1] = candidate;
      continue;
    }
    kept.push(candidate);
  }
  return kept;
}

/** Drops chrono's false friends ("sat", "at 3 hotels", 这周天 of 这周天气) before its own refiners see them. */
const noiseFilter: Refiner = {
  refine: (context, results) => results.filter((result) => !isNoise(result, context.text)),
};

/**
 * The words without which chrono's duration parsers ("3 days ago", "two weeks later") cannot match, by
 * parser. Their patterns repeat a long alternation of numbers and units, which V8 compiles to machine code
 * on a pattern's second use: about 250 ms each, once per process, in one stretch that holds the event loop.
 * A text without the word never runs the pattern; a text with it is read as before.
 */
export const DURATION_WORDS: Readonly<Record<string, RegExp>> = {
  ENTimeUnitAgoFormatParser: /ago|before|earlier/i,
  ENTimeUnitLaterFormatParser: /later|after|from now|henceforth|forward|out/i,
};

/** A pattern that matches nothing, compiled at once. */
const NOTHING = /(?!)/;

function gated(parser: Parser): Parser {
  const words = DURATION_WORDS[parser.constructor.name];
  if (words === undefined) return parser;
  return {
    pattern: (context) => (words.test(context.text) ? parser.pattern(context) : NOTHING),
    extract: (context, match) => parser.extract(context, match),
  };
}

/**
 * chrono's casual parsers, the duration ones gated by their words, with the noise filter in front of its
 * refiners; built once, as the filter reads only the parsed text.
 */
function configured(casual: Chrono): Chrono {
  const chrono = casual.clone();
  chrono.parsers = chrono.parsers.map(gated);
  chrono.refiners.unshift(noiseFilter);
  return chrono;
}

const ENGLISH = configured(chronoEn.casual);
const CHINESE = configured(chronoZh.casual);

/**
 * Every time expression chrono and our rules find in `text`, located, without overlaps, in text order.
 * Our rules run as their own chrono instance (same Parser API, no refiners), so chrono's merge refiners never
 * splice one of our windows into a range of theirs; overlaps are settled afterwards, rules first on a tie.
 */
export function findBaseWindows(text: string, reference: Reference): Found[] {
  const hasHan = HAN.test(text);
  // One reference for every pass: the zone's offset at `now` is worked out once per text.
  const chronoReference = { instant: new Date(reference.nowMs), timezone: offsetMinutesAt(reference.nowMs, reference.timeZone) };
  const ruleParsers = [...englishRules(reference), ...(hasHan ? chineseRules(reference) : [])];
  const ruled = new chronoEn.Chrono({ parsers: ruleParsers, refiners: [] }).parse(text, chronoReference);
  const native = ENGLISH.parse(text, chronoReference);
  if (hasHan) native.push(...CHINESE.parse(text, chronoReference));
  const found = [...ruled, ...native].map((result) => toFound(result, reference)).filter((item): item is Found => item !== undefined);
  return withoutOverlaps(withoutSplicedRanges(found));
}
