/**
 * resolveRelativeDates: rewrites the relative time expressions of a sentence ("yesterday", "last week", 上周,
 * 去年夏天, "3 days ago") into absolute ones, so a memory restatement stays true whenever it is read.
 * Only expressions that depend on the reference time are rewritten; "on 8 May 2023", "in June" or a bare
 * "Friday" are left as written (a bare month or weekday may be a plan, and guessing its year would falsify it).
 */
import { parseOrThrow } from "../core/errors.js";
import { addDays, ENGLISH_MONTHS as EN_MONTHS, ENGLISH_WEEKDAYS as EN_WEEKDAYS, isoWeekday, wallTimeAt, type CivilDate, type WallTime } from "./calendar.js";
import { LocaleSchema, type Locale, type LocatedTimeWindow, type TimeContext } from "./types.js";
import { referenceOf, windowsFor } from "./window.js";
import { textBefore, type Reference } from "./rule-result.js";

const EN_RELATIVE = /(?<![\p{L}])(?:yesterday|today|tonight|tomorrow|ago|last|this|next|past|previous|coming|current|later|back|from\s+now|recent)(?![\p{L}])/iu;
const ZH_RELATIVE = /[昨今明]天|前天|后天|[上下本这]个?(?:周|星期|礼拜|月)|去年|今年|明年|前年|后年|最近|过去|近[一二两三四五六七八九十几\d]|这[几两]|[天日周期拜月年][之以]?[前后]|上个|下个|这个|今[春夏秋冬]/u;
// A preposition right before the expression keeps its place, and the replacement is then a bare noun phrase.
const EN_PREPOSITION_BEFORE = /(?:^|[^\p{L}])(?:in|on|at|during|over|since|before|after|until|till|by|from|to|of|for|through|within|around)\s+$/iu;
const EN_NOUN_AFTER = /^(?:['’]s(?![\p{L}])|\s+(?:was|is|were|has|had|will|would|seemed|felt)(?![\p{L}]))/iu;
// "around 3 years ago": the hedge stays in front of the absolute date.
const EN_HEDGE = /^(?:around|about|approximately|roughly|almost|nearly)\s+/iu;
const ZH_WEEKDAYS = ["一", "二", "三", "四", "五", "六", "日"];
const EN_SEASONS = ["winter", "winter", "spring", "spring", "spring", "summer", "summer", "summer", "autumn", "autumn", "autumn", "winter"];
const ZH_SEASONS: Record<string, string> = { spring: "春天", summer: "夏天", autumn: "秋天", winter: "冬天" };
const WEEKDAY_WORD = new RegExp(`${EN_WEEKDAYS.join("|")}|周[一二三四五六日]|星期[一二三四五六日天]|礼拜[一二三四五六日天]`, "iu");

interface Bounds {
  first: CivilDate; // first day touched
  last: CivilDate; // last day touched (the end is exclusive, so the day of end - 1 ms)
  start?: WallTime;
  end?: WallTime;
  endsNow: boolean;
  dayAligned: boolean;
}

function civil(wall: WallTime): CivilDate {
  return { year: wall.year, month: wall.month, day: wall.day };
}

function boundsOf(window: LocatedTimeWindow, reference: Reference): Bounds | undefined {
  const start = window.startMs === undefined ? undefined : wallTimeAt(window.startMs, reference.timeZone);
  const end = window.endMs === undefined ? undefined : wallTimeAt(window.endMs, reference.timeZone);
  const anchor = start ?? end;
  if (!anchor) return undefined;
  const atMidnight = (wall?: WallTime): boolean => !wall || (wall.hour === 0 && wall.minute === 0 && wall.second === 0 && wall.millisecond === 0);
  const dayAligned = atMidnight(start) && atMidnight(end);
  const lastDay = end ? (atMidnight(end) ? addDays(civil(end), -1) : civil(end)) : civil(anchor);
  return { first: civil(start ?? anchor), last: lastDay, start, end, endsNow: window.endMs === reference.nowMs, dayAligned };
}

// ---- English phrasing ----

const enDate = (date: CivilDate): string => `${date.day} ${EN_MONTHS[date.month - 1]} ${date.year}`;

function enDayRange(first: CivilDate, last: CivilDate): string {
  if (first.year !== last.year) return `${enDate(first)} – ${enDate(last)}`;
  if (first.month !== last.month) return `${first.day} ${EN_MONTHS[first.month - 1]} – ${enDate(last)}`;
  return `${first.day}–${last.day} ${EN_MONTHS[first.month - 1]} ${first.year}`;
}

function enSeason(bounds: Bounds): string {
  const season = EN_SEASONS[bounds.first.month - 1] ?? "season";
  return season === "winter" ? `the winter of ${bounds.first.year}–${String(bounds.last.year).slice(-2)}` : `the ${season} of ${bounds.first.year}`;
}

/** [adverbial phrase, noun phrase]: "on 7 May 2023" stands alone, "7 May 2023" follows a kept preposition. */
function englishPhrases(window: LocatedTimeWindow, bounds: Bounds): [string, string] | undefined {
  const { first, last } = bounds;
  switch (window.granularity) {
    case "day": {
      const weekday = WEEKDAY_WORD.test(window.expression) ? `${EN_WEEKDAYS[isoWeekday(first) - 1]}, ` : "";
      return [`on ${weekday}${enDate(first)}`, `${weekday}${enDate(first)}`];
    }
    case "week":
      return [`in the week of ${enDayRange(first, last)}`, `the week of ${enDayRange(first, last)}`];
    case "month":
      return [`in ${EN_MONTHS[first.month - 1]} ${first.year}`, `${EN_MONTHS[first.month - 1]} ${first.year}`];
    case "year":
      return [`in ${first.year}`, `${first.year}`];
    case "season":
      return [`in ${enSeason(bounds)}`, enSeason(bounds)];
    case "instant": {
      const time = `${String(bounds.start?.hour ?? 0).padStart(2, "0")}:${String(bounds.start?.minute ?? 0).padStart(2, "0")}`;
      return [`at ${time} on ${enDate(first)}`, `${time} on ${enDate(first)}`];
    }
    case "range": {
      if (/weekend/i.test(window.expression)) return [`on the weekend of ${enDayRange(first, last)}`, `the weekend of ${enDayRange(first, last)}`];
      const span = first.year === last.year && first.month === last.month && first.day === last.day ? enDate(first) : null;
      if (span) return [`on ${span}`, span];
      const from = first.year === last.year ? `${first.day} ${EN_MONTHS[first.month - 1]}` : enDate(first);
      if (bounds.endsNow) return [`in the period from ${from} to ${enDate(last)}`, `the period from ${from} to ${enDate(last)}`];
      return [`between ${from} and ${enDate(last)}`, `the days from ${from} to ${enDate(last)}`];
    }
    case "open":
      return englishOpen(window, bounds);
  }
}

function englishOpen(window: LocatedTimeWindow, bounds: Bounds): [string, string] | undefined {
  const word = /^(ever\s+since|since|from|starting(?:\s+(?:from|in|on))?|as\s+of|after|later\s+than|before|prior\s+to|earlier\s+than|until|till|up\s+to)/i.exec(window.expression)?.[1];
  if (!word) return undefined;
  const keyword = word.toLowerCase();
  let phrase: string;
  if (window.startMs !== undefined && window.endMs === undefined && /after|later/.test(keyword)) phrase = `after ${enDate(addDays(bounds.first, -1))}`;
  else if (window.startMs !== undefined) phrase = `${word} ${enDate(bounds.first)}`;
  else if (/until|till|up/.test(keyword)) phrase = `${word} ${enDate(bounds.last)}`;
  else phrase = `${word} ${enDate(addDays(bounds.last, 1))}`;
  return [phrase, phrase];
}

// ---- Chinese phrasing ----

const zhDate = (date: CivilDate): string => `${date.year}年${date.month}月${date.day}日`;

function zhDayRange(first: CivilDate, last: CivilDate): string {
  if (first.year !== last.year) return `${zhDate(first)}至${zhDate(last)}`;
  if (first.month !== last.month) return `${zhDate(first)}至${last.month}月${last.day}日`;
  return `${zhDate(first)}至${last.day}日`;
}

function chinesePhrase(window: LocatedTimeWindow, bounds: Bounds): string | undefined {
  const { first, last } = bounds;
  switch (window.granularity) {
    case "day":
      return WEEKDAY_WORD.test(window.expression) ? `${zhDate(first)}（星期${ZH_WEEKDAYS[isoWeekday(first) - 1]}）` : zhDate(first);
    case "week":
      return `${zhDayRange(first, last)}那周`;
    case "month":
      return `${first.year}年${first.month}月`;
    case "year":
      return `${first.year}年`;
    case "season":
      return `${first.year}年${ZH_SEASONS[EN_SEASONS[first.month - 1] ?? "summer"]}`;
    case "instant":
      return `${zhDate(first)}${String(bounds.start?.hour ?? 0).padStart(2, "0")}:${String(bounds.start?.minute ?? 0).padStart(2, "0")}`;
    case "range":
      if (/周末|weekend/iu.test(window.expression)) return `${zhDayRange(first, last)}那个周末`;
      if (first.year === last.year && first.month === last.month && first.day === last.day) return zhDate(first);
      return bounds.endsNow ? `${zhDayRange(first, last)}期间` : zhDayRange(first, last);
    case "open": {
      if (window.startMs !== undefined && window.endMs === undefined) return `${zhDate(addDays(bounds.first, -1))}以后`;
      if (window.startMs !== undefined) return `${zhDate(bounds.first)}以来`;
      if (/为止|直到|until|till|up\s+to/iu.test(window.expression)) return `${window.expression.startsWith("直到") ? "直到" : ""}${zhDate(bounds.last)}为止`;
      return `${zhDate(addDays(bounds.last, 1))}以前`;
    }
  }
}

function isRelative(expression: string): boolean {
  return EN_RELATIVE.test(expression) || ZH_RELATIVE.test(expression);
}

function replacementFor(text: string, window: LocatedTimeWindow, reference: Reference, locale: Locale | undefined): string | undefined {
  if (!isRelative(window.expression)) return undefined;
  const bounds = boundsOf(window, reference);
  if (!bounds) return undefined;
  const language = locale ?? (/\p{Script=Han}/u.test(window.expression) ? "zh" : "en");
  if (language === "zh") {
    if (/几/u.test(window.expression) && /前$/u.test(window.expression)) return `${zhDate(reference.today)}的${window.expression}`;
    return chinesePhrase(window, bounds);
  }
  // "a few weeks ago" has no exact date: anchor the vague count on the reference day instead of inventing one.
  const vague = /^(.*?(?:few|couple|several).*?)\s+(?:ago|back)$/iu.exec(window.expression);
  if (vague) return `${vague[1]} before ${enDate(reference.today)}`;
  const phrases = englishPhrases(window, bounds);
  if (!phrases) return undefined;
  // "Last Sunday was awesome", "tomorrow's opening": the expression is a noun there, not an adverbial.
  const asNoun =
    EN_PREPOSITION_BEFORE.test(textBefore(text, window.index)) ||
    EN_NOUN_AFTER.test(text.slice(window.index + window.length, window.index + window.length + 16));
  const hedge = EN_HEDGE.exec(window.expression)?.[0] ?? "";
  const phrase = hedge ? `${hedge}${phrases[1]}` : asNoun ? phrases[1] : phrases[0];
  const startsSentence = /(?:^|[.!?]\s+)$/u.test(textBefore(text, window.index));
  return startsSentence && /^\p{Lu}/u.test(window.expression) ? phrase.charAt(0).toUpperCase() + phrase.slice(1) : phrase;
}

/**
 * Rewrites the relative dates of `text` against the context's reference time: "I went there yesterday" said on
 * 2023-05-08 -> "I went there on 7 May 2023"; 上周 -> 2023年5月1日至7日那周. `locale` forces the language of the
 * replacements; by default each follows its expression (Han characters -> Chinese).
 */
export function resolveRelativeDates(text: string, context: TimeContext, locale?: Locale): string {
  const reference = referenceOf(context);
  const language = locale === undefined ? undefined : parseOrThrow(LocaleSchema, locale, "locale");
  if (typeof text !== "string") return "";
  let rewritten = text;
  for (const window of windowsFor(text, reference).reverse()) {
    const replacement = replacementFor(text, window, reference, language);
    if (replacement === undefined) continue;
    rewritten = rewritten.slice(0, window.index) + replacement + rewritten.slice(window.index + window.length);
  }
  return rewritten;
}
