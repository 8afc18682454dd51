/**
 * Assembles found windows with the words around them, in this order:
 * 1. anchored periods (anchors.ts): "the week of X", "the weekend before X", X前一周, X那周;
 * 2. explicit ranges: "between X and Y", "from X to Y", "X - Y", X到Y, X至Y, X和Y之间;
 * 3. open ranges: "since X" / X以来 (start of X to now), "after X" / X之后 (from the end of X, no end),
 *    "before X" / X之前 (up to the start of X, no start), "until X" / 直到X为止 (up to the end of X).
 */
import { daySpan, instantOf, wallTimeAt, type CivilDate } from "./calendar.js";
import { anchorPeriods } from "./anchors.js";
import type { Found } from "./chrono-results.js";
import { textAfter, textBefore, type Reference } from "./rule-result.js";

type OpenKind = "since" | "after" | "before" | "until";

const EN_RANGE_GAP = /^\s*(?:-|–|—|to|until|till|through|thru|and)\s*$/iu;
const ZH_RANGE_GAP = /^\s*(?:到|至|~|～|-|–|—)\s*$/u;
const ZH_BETWEEN_GAP = /^\s*(?:和|与|跟)\s*$/u;
const EN_OPEN_PREFIX =
  /(?:^|[^\p{L}])((ever\s+since|since|after|later\s+than|before|prior\s+to|earlier\s+than|until|till|up\s+to|by|starting\s+(?:from|in|on)|as\s+of)\s+(?:the\s+)?)$/iu;
// "from X" alone is too often a place or a source ("moved from 4 years ago"); "from X on(wards)" is a start.
const EN_FROM_PREFIX = /(?:^|[^\p{L}])(from\s+)$/iu;
const EN_ONWARDS_SUFFIX = /^\s+(?:on|onwards?)(?![\p{L}])/iu;
const ZH_OPEN_PREFIX = /(自从|自|从|直到)\s*$/u;
const ZH_OPEN_SUFFIX = /^\s*(以来|至今|之前|以前|前(?![往进面天途景台后夕年])|之后|以后|后(?![来面悔果天]))/u;
// 起/开始/为止 close a range only with their opener: in 三个月前开始学画画 开始 is the verb "started".
const ZH_OPENER_SUFFIX = /^\s*(起|开始|到现在|到今天|为止)/u;

function dateAt(ms: number, reference: Reference): CivilDate {
  const wall = wallTimeAt(ms, reference.timeZone);
  return { year: wall.year, month: wall.month, day: wall.day };
}

/**
 * The same dates `years` years away: a year later for the end of "between December 20 and January 5",
 * whose end year was only implied; earlier for the start of "between April and June 2022".
 */
function yearsAway(item: Found, years: number, reference: Reference): Found {
  const shift = (ms: number | undefined): number | undefined => {
    if (ms === undefined) return undefined;
    const wall = wallTimeAt(ms, reference.timeZone);
    const day = daySpan({ year: wall.year + years, month: wall.month, day: wall.day }).start;
    return instantOf({ ...day, hour: wall.hour, minute: wall.minute, second: wall.second, millisecond: wall.millisecond }, reference.timeZone);
  };
  return { ...item, startMs: shift(item.startMs), endMs: shift(item.endMs) };
}

function rangeBetween(text: string, first: Found, second: Found, reference: Reference): Found | undefined {
  if (first.startMs === undefined || first.endMs === undefined || second.endMs === undefined) return undefined;
  const gapStart = first.index + first.length;
  if (second.index - gapStart > 24) return undefined;
  const gap = text.slice(gapStart, second.index);
  const before = textBefore(text, first.index);
  let start = first.index;
  let end = second.index + second.length;
  if (EN_RANGE_GAP.test(gap)) {
    const isAnd = /and/i.test(gap);
    const opener = /(?:^|[^\p{L}])((between|from)\s+)$/iu.exec(before);
    if (isAnd && opener?.[2]?.toLowerCase() !== "between") return undefined;
    if (opener) start -= opener[1]?.length ?? 0;
  } else if (ZH_RANGE_GAP.test(gap)) {
    const opener = /(从|自)\s*$/u.exec(before);
    if (opener) start -= opener[0].length;
  } else if (ZH_BETWEEN_GAP.test(gap)) {
    const closer = /^\s*之间/u.exec(textAfter(text, end));
    if (!closer) return undefined;
    end += closer[0].length;
  } else {
    return undefined;
  }
  let last = second;
  if ((last.endMs ?? 0) <= first.startMs && last.yearImplied) last = yearsAway(last, 1, reference);
  // A start without its year is in the written end's year (or the one before, for "between December and March 2023").
  let opening = first;
  if (first.yearImplied && !second.yearImplied && second.endMs !== undefined && second.endMs <= first.startMs) {
    const years = dateAt(first.startMs, reference).year - dateAt(second.endMs - 1, reference).year;
    opening = yearsAway(first, -years, reference);
    if ((opening.startMs ?? 0) >= second.endMs) opening = yearsAway(first, -years - 1, reference);
  }
  if (opening.startMs === undefined || last.endMs === undefined || last.endMs <= opening.startMs) return undefined;
  return { index: start, length: end - start, startMs: opening.startMs, endMs: last.endMs, granularity: "range" };
}

/** A range chrono already joined ("2023-05-01 to 2023-05-10") takes in its "from"/"between"/从. */
function withOpener(text: string, item: Found): Found {
  if (item.granularity !== "range") return item;
  const opener = /(?:^|[^\p{L}])((?:between|from)\s+)$/iu.exec(textBefore(text, item.index))?.[1] ?? /(从|自)\s*$/u.exec(textBefore(text, item.index))?.[0];
  return opener ? { ...item, index: item.index - opener.length, length: item.length + opener.length } : item;
}

function joinRanges(text: string, found: Found[], reference: Reference): Found[] {
  const joined: Found[] = [];
  for (let position = 0; position < found.length; position++) {
    const current = found[position];
    const next = found[position + 1];
    if (!current) continue;
    const range = next ? rangeBetween(text, current, next, reference) : undefined;
    if (range) position++;
    joined.push(range ?? withOpener(text, current));
  }
  return joined;
}

function openKindOf(word: string): OpenKind {
  const normalised = word.toLowerCase().replace(/\s+/g, " ");
  if (/^(ever since|since|from|starting.*|自从|自|从|以来|起|开始|至今|到现在|到今天)$/u.test(normalised)) return "since";
  if (/^(after|later than|之后|以后|后)$/u.test(normalised)) return "after";
  // "as of December 2023" asks for the state at that time: everything up to its end.
  if (/^(until|till|up to|as of|by|直到|为止)$/u.test(normalised)) return "until";
  return "before";
}

function openRange(item: Found, kind: OpenKind, reference: Reference): Pick<Found, "startMs" | "endMs"> {
  switch (kind) {
    case "since":
      return item.startMs !== undefined && reference.nowMs > item.startMs ? { startMs: item.startMs, endMs: reference.nowMs } : { startMs: item.startMs };
    case "after":
      return { startMs: item.endMs };
    case "before":
      return { endMs: item.startMs };
    case "until":
      return { endMs: item.endMs };
  }
}

function openRanges(text: string, found: Found[], reference: Reference): Found[] {
  return found.map((item) => {
    if (item.granularity === "open") return item;
    const before = textBefore(text, item.index);
    const after = textAfter(text, item.index + item.length);
    const englishPrefix = EN_OPEN_PREFIX.exec(before);
    const chinesePrefix = ZH_OPEN_PREFIX.exec(before);
    const chineseSuffix = ZH_OPEN_SUFFIX.exec(after) ?? (chinesePrefix ? ZH_OPENER_SUFFIX.exec(after) : null);
    let kind: OpenKind | undefined;
    let start = item.index;
    let end = item.index + item.length;
    const fromPrefix = englishPrefix ? null : EN_FROM_PREFIX.exec(before);
    const onwards = fromPrefix ? EN_ONWARDS_SUFFIX.exec(after) : null;
    if (englishPrefix) {
      kind = openKindOf(englishPrefix[2] ?? "");
      start -= englishPrefix[1]?.length ?? 0;
    } else if (fromPrefix && onwards) {
      kind = "since";
      start -= fromPrefix[1]?.length ?? 0;
      end += onwards[0].length;
    } else if (chinesePrefix || chineseSuffix) {
      // 从三月起 / 自去年以来: the suffix decides when both are there, except 为止 which closes 直到.
      const suffixWord = chineseSuffix?.[1];
      kind = suffixWord && suffixWord !== "为止" ? openKindOf(suffixWord) : openKindOf(chinesePrefix?.[1] ?? suffixWord ?? "");
      if (chinesePrefix) start -= chinesePrefix[0].length;
      if (chineseSuffix) end += chineseSuffix[0].length;
    }
    if (!kind) return item;
    const bounds = openRange(item, kind, reference);
    if (bounds.startMs === undefined && bounds.endMs === undefined) return item;
    return { index: start, length: end - start, ...bounds, granularity: "open" };
  });
}

/**
 * "last Friday at 5pm": our day rules do not go through chrono's date-time merge, so a clock time that follows
 * a day (and that chrono placed on today, having no date of its own) is moved onto that day.
 */
function attachTimes(text: string, found: Found[], reference: Reference): Found[] {
  const attached: Found[] = [];
  for (let position = 0; position < found.length; position++) {
    const day = found[position];
    const time = found[position + 1];
    if (!day) continue;
    const gapStart = day.index + day.length;
    const timeWall = time?.startMs === undefined ? undefined : wallTimeAt(time.startMs, reference.timeZone);
    const onToday = timeWall && timeWall.year === reference.today.year && timeWall.month === reference.today.month && timeWall.day === reference.today.day;
    if (day.granularity === "day" && day.startMs !== undefined && time?.granularity === "instant" && onToday && time.index - gapStart <= 3 && /^[\s,]*$/u.test(text.slice(gapStart, time.index))) {
      const date = dateAt(day.startMs, reference);
      const startMs = instantOf({ ...date, hour: timeWall.hour, minute: timeWall.minute, second: timeWall.second, millisecond: 0 }, reference.timeZone);
      const length = time.index + time.length - day.index;
      attached.push({ index: day.index, length, startMs, endMs: startMs + (time.endMs ?? 0) - (time.startMs ?? 0), granularity: "instant" });
      position++;
      continue;
    }
    attached.push(day);
  }
  return attached;
}

/** Times onto days, anchored weeks, then explicit ranges, then open ranges. */
export function assembleWindows(text: string, found: Found[], reference: Reference): Found[] {
  const anchored = anchorPeriods(text, attachTimes(text, found, reference), reference);
  return openRanges(text, joinRanges(text, anchored, reference), reference);
}
