/**
 * English rules chrono lacks or gets wrong for retrieval (it reads "last week" as one day, "in 2022" and seasons
 * not at all). Each is a chrono Parser; they are put before chrono's own, so on an equal match they win.
 */
import type { Parser, ParsingContext, ParsingResult } from "chrono-node";
import { addDays, ENGLISH_MONTHS, ENGLISH_WEEKDAYS, englishMonthNumber, englishWeekdayNumber, monthSpan, seasonSpan, type Season } from "./calendar.js";
import { ENGLISH_COUNT, parseEnglishCount } from "./numbers.js";
import {
  latestWeekday,
  latestWeekend,
  periodAround,
  rollingSpan,
  seasonRelative,
  weekdayInWeek,
  weekendOfWeek,
  type Unit,
} from "./periods.js";
import { ruleResult, textBefore, type Reference } from "./rule-result.js";

const START = String.raw`(?<![\p{L}\p{N}_])`;
const END = String.raw`(?![\p{L}\p{N}_])`;
const SEASONS: Record<string, Season> = { spring: "spring", summer: "summer", autumn: "autumn", fall: "autumn", winter: "winter" };

function unitOf(word: string): Unit {
  const singular = word.toLowerCase().replace(/s$/, "");
  return singular === "week" || singular === "month" || singular === "year" ? singular : "day";
}

/**
 * A rule's pattern, compiled once at module load: none depends on the reference, and without the `g` flag a
 * RegExp keeps no state between `exec` calls, so every request's parsers share it.
 */
function compile(source: string): RegExp {
  return new RegExp(`${START}(?:${source})${END}`, "iu");
}

function rule(pattern: RegExp, extract: (context: ParsingContext, match: RegExpMatchArray) => ParsingResult | null): Parser {
  return { pattern: () => pattern, extract };
}

/** "last week", "this month", "next year", "last weekend", "the week before last"; "the past week" is rolling. */
const CALENDAR_PERIODS = compile(String.raw`(the\s+)?(last|past|previous|this|current|next|coming)\s+(week|month|year|weekend)|(?:the\s+)?(week|month|year|weekend)\s+(before\s+last|after\s+next)`);
function calendarPeriods(reference: Reference): Parser {
  return rule(CALENDAR_PERIODS, (context, match) => {
    const [text, the, modifier, unitWord, shiftedUnit, shift] = match;
    const index = match.index ?? 0;
    const word = (unitWord ?? shiftedUnit ?? "").toLowerCase();
    const which = (modifier ?? "").toLowerCase();
    // "the last week" / "the past month" / "past year": a rolling range ending now, not a calendar period.
    if (word !== "weekend" && (which === "past" || (the && which === "last"))) {
      return ruleResult(context, index, text, rollingSpan(reference, unitOf(word), 1), "range");
    }
    const offset = shift
      ? /^before/i.test(shift) ? -2 : 2
      : which === "this" || which === "current" ? 0 : which === "next" || which === "coming" ? 1 : -1;
    if (word === "weekend") return ruleResult(context, index, text, weekendOfWeek(reference.today, offset), "range");
    const unit = unitOf(word);
    return ruleResult(context, index, text, periodAround(reference.today, unit, offset), unit);
  });
}

/** "the past 7 days", "the last couple of weeks", "past few days", "the past 48 hours": rolling ranges ending now. */
const ROLLING_RANGES = compile(String.raw`(?:the\s+)?(?:past|last|previous)\s+(${ENGLISH_COUNT})\s+(hours?|days?|weeks?|months?|years?)`);
function rollingRanges(reference: Reference): Parser {
  return rule(ROLLING_RANGES, (context, match) => {
    const count = parseEnglishCount(match[1] ?? "");
    if (count === undefined || count < 1 || count > 1000) return null;
    const word = match[2] ?? "day";
    const unit = /^hours?$/i.test(word) ? "hour" : unitOf(word);
    return ruleResult(context, match.index ?? 0, match[0], rollingSpan(reference, unit, count), "range");
  });
}

/** "3 days ago" (that day), "2 weeks ago" (that ISO week), "a few months ago" (that month), "2 years back". */
const UNITS_AGO = compile(String.raw`(${ENGLISH_COUNT})\s+(days?|weeks?|months?|years?)\s+(?:ago|back)`);
function unitsAgo(reference: Reference): Parser {
  return rule(UNITS_AGO, (context, match) => {
    const count = parseEnglishCount(match[1] ?? "");
    if (count === undefined || count > 5000) return null;
    const unit = unitOf(match[2] ?? "day");
    const span = unit === "week" ? periodAround(addDays(reference.today, -7 * count), "week", 0) : periodAround(reference.today, unit, -count);
    return ruleResult(context, match.index ?? 0, match[0], span, unit);
  });
}

/** "last summer", "this winter", "the spring of 2023", "summer 2022", "in the fall". */
const SEASON_WORDS = compile(String.raw`(?:(last|this|next|past)\s+)?(?:the\s+)?(spring|summer|autumn|fall|winter)(?:\s+(?:of\s+)?((?:19|20)\d{2}))?`);
function seasons(reference: Reference): Parser {
  return rule(SEASON_WORDS, (context, match) => {
    const [text, modifier, seasonWord, year] = match;
    const season = SEASONS[(seasonWord ?? "").toLowerCase()];
    const index = match.index ?? 0;
    if (!season) return null;
    if (year) return ruleResult(context, index, text, seasonSpan(season, Number(year)), "season");
    const which = (modifier ?? "").toLowerCase();
    if (which) {
      const choice = which === "past" ? "last" : which === "this" ? "this" : which === "next" ? "next" : "last";
      return ruleResult(context, index, text, seasonRelative(reference.today, season, choice), "season");
    }
    // A bare season word is a season only after a time preposition ("in the summer"), never "I fall".
    if (!/(?:^|[^\p{L}])(?:in|during|over|throughout|since|before|after|until)\s+$/iu.test(textBefore(context.text, index))) return null;
    return ruleResult(context, index, text, seasonRelative(reference.today, season, "latest"), "season");
  });
}

/** "in 2022", "before 2023", "the year 2021": a bare year only after a preposition, so "3 kids" or "ERR_1024" never match. */
const YEAR_AFTER_PREPOSITION = compile(String.raw`(?:in|during|throughout|since|before|after|until|till|by|from|through|to|and|between|around|of|early|late|mid|year)(?:\s+the\s+year)?[\s-]+((?:19|20)\d{2})(?![.,/:-]\d|\s*%)`);
const YEARS: Parser = rule(YEAR_AFTER_PREPOSITION, (context, match) => {
  const year = match[1] ?? "";
  const lead = match[0].length - year.length;
  return ruleResult(context, match.index ?? 0, match[0], periodAround({ year: Number(year), month: 1, day: 1 }, "year", 0), "year", lead);
});

/**
 * "since May", "until May", "between April and May": chrono drops a lone "May" unless "in" precedes it
 * (it is usually the verb).
 */
const MAY_AFTER_PREPOSITION = compile(
  String.raw`(?:since|until|till|before|after|during|from|through|by|early|late|mid|(?<=between\s+(?:${ENGLISH_MONTHS.join("|")})\s+)and)[\s-]+(may)(?!\s*\d)`,
);
function mayAfterPreposition(reference: Reference): Parser {
  return rule(MAY_AFTER_PREPOSITION, (context, match) => {
    const lead = match[0].length - (match[1] ?? "").length;
    const year = reference.today.month >= 5 ? reference.today.year : reference.today.year - 1;
    return ruleResult(context, match.index ?? 0, match[0], monthSpan(year, 5), "month", lead);
  });
}

/** "last May" (the latest May before this month), "this June" (of this year), "next March" (the first after this month). */
const MODIFIED_MONTHS = compile(String.raw`(last|this|next)\s+(${ENGLISH_MONTHS.join("|")})`);
function modifiedMonths(reference: Reference): Parser {
  return rule(MODIFIED_MONTHS, (context, match) => {
    const month = englishMonthNumber(match[2] ?? "") ?? 0;
    const which = (match[1] ?? "").toLowerCase();
    const { year: thisYear, month: thisMonth } = reference.today;
    const year = which === "this" ? thisYear : which === "last" ? (month < thisMonth ? thisYear : thisYear - 1) : month > thisMonth ? thisYear : thisYear + 1;
    return ruleResult(context, match.index ?? 0, match[0], monthSpan(year, month), "month");
  });
}

/** "last Friday", "this Monday", "next Sunday", "on Tuesday", "Friday" (full names only: "sat", "wed" are words). */
const WEEKDAY_NAMES = compile(String.raw`(?:(last|this|next|past|coming)\s+|on\s+)?(${ENGLISH_WEEKDAYS.join("|")})(s)?`);
function weekdays(reference: Reference): Parser {
  return rule(WEEKDAY_NAMES, (context, match) => {
    const [text, modifier, name, plural] = match;
    if (plural) return null; // "on Mondays" is a habit, not a date
    const weekday = englishWeekdayNumber(name ?? "") ?? 0;
    const which = (modifier ?? "").toLowerCase();
    const span =
      which === "last" || which === "past"
        ? latestWeekday(reference.today, weekday, true)
        : which === "this"
          ? weekdayInWeek(reference.today, weekday, 0)
          : which === "next" || which === "coming"
            ? weekdayInWeek(reference.today, weekday, 1)
            : latestWeekday(reference.today, weekday, false);
    return ruleResult(context, match.index ?? 0, text, span, "day");
  });
}

/** "over the weekend", "on the weekend": the latest weekend that has begun. */
const THE_WEEKEND = compile(String.raw`(?:(?:on|over|at|during)\s+)?the\s+weekend`);
function theWeekend(reference: Reference): Parser {
  return rule(THE_WEEKEND, (context, match) =>
    ruleResult(context, match.index ?? 0, match[0], latestWeekend(reference.today), "range"),
  );
}

/** All English rules for one request: the patterns are shared, the extractors read this request's reference. */
export function englishRules(reference: Reference): Parser[] {
  return [rollingRanges(reference), calendarPeriods(reference), unitsAgo(reference), seasons(reference), YEARS, mayAfterPreposition(reference), modifiedMonths(reference), weekdays(reference), theWeekend(reference)];
}
