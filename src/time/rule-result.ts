/**
 * How our rules speak chrono's language: a rule's window travels through chrono's pipeline as a ParsingResult
 * whose start/end components are the window's wall-clock bounds (end exclusive, every component certain) and
 * whose tags name the granularity. `decodeRuleResult` reads it back after chrono's refiners ran.
 */
import type { ParsedResult, ParsingContext, ParsingResult } from "chrono-node";
import type { CivilDate, WallSpan, WallTime } from "./calendar.js";
import { GranularitySchema, type Granularity } from "./types.js";

/** What every rule knows about the request: the reference instant and its wall clock in the request's zone. */
export interface Reference {
  nowMs: number;
  timeZone: string;
  now: WallTime;
  today: CivilDate;
}

const GRANULARITY_TAG = "recallgraph/granularity/";
const LEAD_TAG = "recallgraph/lead/";

function components(wall: WallTime): Record<"year" | "month" | "day" | "hour" | "minute" | "second" | "millisecond", number> {
  return {
    year: wall.year,
    month: wall.month,
    day: wall.day,
    hour: wall.hour,
    minute: wall.minute,
    second: wall.second,
    millisecond: wall.millisecond,
  };
}

/**
 * A chrono result carrying one of our windows. `index`/`text` locate the match in the parsed text; the first
 * `lead` characters of it are context, not expression ("in " of "in 2022"): chrono drops all-digit results,
 * so the year has to travel with its preposition.
 */
export function ruleResult(
  context: ParsingContext,
  index: number,
  text: string,
  span: WallSpan,
  granularity: Granularity,
  lead = 0,
): ParsingResult {
  const result = context.createParsingResult(index, text, components(span.start), components(span.end));
  result.addTag(`${GRANULARITY_TAG}${granularity}`);
  if (lead > 0) result.addTag(`${LEAD_TAG}${lead}`);
  return result;
}

/** The window a rule encoded, or undefined for chrono's own results. */
export function decodeRuleResult(result: ParsedResult): { span: WallSpan; granularity: Granularity; lead: number } | undefined {
  const tags = [...result.tags()];
  const tag = tags.find((candidate) => candidate.startsWith(GRANULARITY_TAG));
  const lead = Number(tags.find((candidate) => candidate.startsWith(LEAD_TAG))?.slice(LEAD_TAG.length) ?? 0);
  if (!tag || !result.end) return undefined;
  const read = (part: ParsedResult["start"]): WallTime => ({
    year: part.get("year") ?? 0,
    month: part.get("month") ?? 1,
    day: part.get("day") ?? 1,
    hour: part.get("hour") ?? 0,
    minute: part.get("minute") ?? 0,
    second: part.get("second") ?? 0,
    millisecond: part.get("millisecond") ?? 0,
  });
  const granularity = GranularitySchema.safeParse(tag.slice(GRANULARITY_TAG.length));
  if (!granularity.success) return undefined;
  return { span: { start: read(result.start), end: read(result.end) }, granularity: granularity.data, lead: Number.isInteger(lead) ? lead : 0 };
}

// Look-behind checks read a bounded stretch of text, so a long text with many expressions stays linear.
const CONTEXT_CHARS = 48;

/** The (at most 48) characters before `index`. */
export function textBefore(text: string, index: number): string {
  return text.slice(Math.max(0, index - CONTEXT_CHARS), index);
}

/** The (at most 48) characters from `index` on. */
export function textAfter(text: string, index: number): string {
  return text.slice(index, index + CONTEXT_CHARS);
}
