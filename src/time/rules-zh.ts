/**
 * Chinese rules chrono lacks: 上周, 上个月, 去年, 今年5月, 去年夏天, 3天前, 最近一周, 过去三天, 过去24小时, 周末, and weekdays
 * with our week semantics (上周五 = Friday of the previous ISO week). Chinese has no word boundaries, so each
 * prefix that doubles as the tail of a common word (晚上, 以下, 日本) is guarded by a look-behind.
 */
import type { Parser, ParsingContext, ParsingResult } from "chrono-node";
import { addDays, daySpan, monthSpan, seasonSpan, type Season } from "./calendar.js";
import { CHINESE_COUNT, parseChineseCount } from "./numbers.js";
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

const WEEK_WORD = "周|星期|礼拜|週|禮拜";
// 上/下/本 as the last character of another word: 晚上周末 is "evening weekend", 看一下周报 "have a look at the weekly".
const NOT_AFTER_SHANG = "(?<![晚早马网线身路手桌以之楼加北向赶遇爱看班车床台])";
const NOT_AFTER_XIA = "(?<![以之楼底地乡私剩留放写天一坐南倒躺停接拿记])";
const NOT_AFTER_BEN = "(?<![日成基版资课剧样账书脚范文读根原标手蓝副正孤珍善])";
const SHIFT = `(${NOT_AFTER_SHANG}上上|${NOT_AFTER_SHANG}上|这|${NOT_AFTER_BEN}本|${NOT_AFTER_XIA}下下|${NOT_AFTER_XIA}下)`;
const WEEKDAY_NUMBER: Record<string, number> = { 一: 1, 二: 2, 三: 3, 四: 4, 五: 5, 六: 6, 日: 7, 天: 7, "1": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7 };
const SEASON_BY_CHAR: Record<string, Season> = { 春: "spring", 夏: "summer", 秋: "autumn", 冬: "winter" };
const YEAR_SHIFT: Record<string, number> = { 大前年: -3, 前年: -2, 去年: -1, 今年: 0, 明年: 1, 后年: 2 };

function shiftOf(prefix: string | undefined): number {
  switch (prefix) {
    case "上上":
      return -2;
    case "上":
      return -1;
    case "下":
      return 1;
    case "下下":
      return 2;
    default:
      return 0;
  }
}

/**
 * A rule's pattern, compiled once at module load: none depends on the reference, and without the `g` flag a
 * RegExp keeps no state between `exec` calls, so every request's parsers share it.
 */
function compile(source: string): RegExp {
  return new RegExp(source, "u");
}

function rule(pattern: RegExp, extract: (context: ParsingContext, match: RegExpMatchArray) => ParsingResult | null): Parser {
  return { pattern: () => pattern, extract };
}

function unitOf(word: string): Unit {
  if (word === "天" || word === "日") return "day";
  if (word === "月") return "month";
  if (word === "年") return "year";
  return "week";
}

/** 上周, 上个星期, 这周, 本周, 下周, 上上周, and with 末 the weekend: 上周末. */
const WEEKS = compile(`${SHIFT}(?:一)?个?(?:${WEEK_WORD})(末)?`);
function weeks(reference: Reference): Parser {
  return rule(WEEKS, (context, match) => {
    const shift = shiftOf(match[1]);
    const span = match[2] ? weekendOfWeek(reference.today, shift) : periodAround(reference.today, "week", shift);
    return ruleResult(context, match.index ?? 0, match[0], span, match[2] ? "range" : "week");
  });
}

/** 上周五, 这个星期一, 下礼拜天, and bare 周五 / 星期五 (the latest on or before today); 周末 alone too. */
const WEEKDAYS = compile(`(?:${SHIFT}个?)?(${WEEK_WORD})([一二三四五六日天1-7末])`);
function weekdays(reference: Reference): Parser {
  return rule(WEEKDAYS, (context, match) => {
    const [text, prefix, weekWord, dayChar] = match;
    const index = match.index ?? 0;
    if (dayChar === "天" && (weekWord === "周" || weekWord === "週")) return null; // 这周天气: "weather this week"
    // 一周一次 ("once a week"), 每周五 ("every Friday"): the 周 belongs to a count or a habit.
    if (!prefix && /[\d一二两三四五六七八九十几每]$/u.test(textBefore(context.text, index))) return null;
    if (dayChar === "末") {
      const span = prefix ? weekendOfWeek(reference.today, shiftOf(prefix)) : latestWeekend(reference.today);
      return ruleResult(context, index, text, span, "range");
    }
    const weekday = WEEKDAY_NUMBER[dayChar ?? ""] ?? 1;
    const span = prefix ? weekdayInWeek(reference.today, weekday, shiftOf(prefix)) : latestWeekday(reference.today, weekday, false);
    return ruleResult(context, index, text, span, "day");
  });
}

/** 上个月, 上月, 这个月, 本月, 下个月, 上上个月. */
const MONTHS = compile(`${SHIFT}(?:一)?个?月(?!份?[日号])`);
function months(reference: Reference): Parser {
  return rule(MONTHS, (context, match) =>
    ruleResult(context, match.index ?? 0, match[0], periodAround(reference.today, "month", shiftOf(match[1])), "month"),
  );
}

/**
 * 去年, 今年, 前年, 2022年, optionally followed by a month (去年5月, 今年三月份), a day (去年5月8日) or a season
 * (去年夏天, 2022年的秋季). chrono reads 今年5月 as "年5月" of the current year, so this rule owns the whole phrase.
 */
const YEARS = compile(`((?<![提目之以当])大前年|(?<![提目之以当大])前年|去年|今年|明年|(?<![以之然最背])后年|(?<!\\d)(?:19|20)\\d{2}年)(?:的)?(?:(${CHINESE_COUNT})月份?(?:(${CHINESE_COUNT})[日号])?|(春|夏|秋|冬)(?:天|季))?`);
function years(reference: Reference): Parser {
  return rule(YEARS, (context, match) => {
    const [text, yearWord, monthText, dayText, seasonChar] = match;
    const index = match.index ?? 0;
    const year = /^\d/.test(yearWord ?? "") ? Number((yearWord ?? "").slice(0, 4)) : reference.today.year + (YEAR_SHIFT[yearWord ?? ""] ?? 0);
    if (seasonChar) return ruleResult(context, index, text, seasonSpan(SEASON_BY_CHAR[seasonChar] ?? "summer", year), "season");
    if (monthText) {
      const month = parseChineseCount(monthText);
      if (month === undefined || month < 1 || month > 12) return null;
      if (dayText) {
        const day = parseChineseCount(dayText);
        const date = { year, month, day: day ?? 0 };
        if (day === undefined || day < 1 || addDays(date, 0).month !== month) return null;
        return ruleResult(context, index, text, daySpan(date), "day");
      }
      return ruleResult(context, index, text, monthSpan(year, month), "month");
    }
    return ruleResult(context, index, text, periodAround({ year, month: 1, day: 1 }, "year", 0), "year");
  });
}

/** 这个夏天, 上个冬天, 今夏, 今年冬季: seasons relative to the current one (never 这个春节, the Spring Festival). */
const SEASONS = compile(`(?:(这个|上个|下个)(春|夏|秋|冬)(?:天|季)|(今)(春|夏|秋|冬)(?:天|季)?)(?!节)`);
function seasons(reference: Reference): Parser {
  return rule(SEASONS, (context, match) => {
    const [text, longPrefix, longSeason, shortPrefix, shortSeason] = match;
    const prefix = longPrefix ?? shortPrefix;
    const choice = prefix === "上个" ? "last" : prefix === "下个" ? "next" : "this";
    const season = SEASON_BY_CHAR[longSeason ?? shortSeason ?? ""] ?? "summer";
    return ruleResult(context, match.index ?? 0, text ?? "", seasonRelative(reference.today, season, choice), "season");
  });
}

/** 3天前 (that day), 两周前 (that ISO week), 三个月前 (that month), 两年前 (that year); 后 for the future. */
const UNITS_AGO = compile(`(?<![\\d一二两三四五六七八九十几百千])(${CHINESE_COUNT})(个)?(天|日|${WEEK_WORD}|月|年)(?:之|以)?(前|后)`);
function unitsAgo(reference: Reference): Parser {
  return rule(UNITS_AGO, (context, match) => {
    const [text, countText, ge, unitWord, direction] = match;
    // 5月前 is "before May", 2023年前 "before 2023": only 个月 and sub-4-digit years count units.
    if (unitWord === "月" && !ge) return null;
    const count = parseChineseCount(countText ?? "");
    if (count === undefined || count > 999) return null;
    const unit = unitOf(unitWord ?? "天");
    const signed = direction === "前" ? -count : count;
    const span = unit === "week" ? periodAround(addDays(reference.today, 7 * signed), "week", 0) : periodAround(reference.today, unit, signed);
    return ruleResult(context, match.index ?? 0, text ?? "", span, unit);
  });
}

/** 最近一周, 过去三天, 近一个月, 最近几天, 这两天, 这几天, 过去24小时: rolling ranges ending now. */
const ROLLING_RANGES = compile(`(最近|过去|近|这)(?:的)?(${CHINESE_COUNT})(个)?(小时|天|日|${WEEK_WORD}|月|年)(?:里|内|中|来|以来|之内|当中)?`);
function rollingRanges(reference: Reference): Parser {
  return rule(ROLLING_RANGES, (context, match) => {
    const [text, prefix, countText, , unitWord] = match;
    if (prefix === "这" && countText !== "几" && countText !== "两") return null; // 这三年 reads as a period, skip it
    const count = parseChineseCount(countText ?? "");
    if (count === undefined || count < 1 || count > 999) return null;
    const unit = unitWord === "小时" ? "hour" : unitOf(unitWord ?? "天");
    return ruleResult(context, match.index ?? 0, text ?? "", rollingSpan(reference, unit, count), "range");
  });
}

/** All Chinese rules for one request: the patterns are shared, the extractors read this request's reference. */
export function chineseRules(reference: Reference): Parser[] {
  return [rollingRanges(reference), years(reference), weekdays(reference), weeks(reference), months(reference), seasons(reference), unitsAgo(reference)];
}
