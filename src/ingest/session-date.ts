import { parseIsoTimestamp } from "../memory/entry.js";
import { englishMonthNumber } from "../time/calendar.js";

/**
 * A session's date as conversation files write it. LoCoMo's release spells it "1:56 pm on 8 May, 2023";
 * files exported from other tools use ISO 8601 or a day-first dotted date ("29.12.2023, 22:42:04").
 *
 * Every spelling is rewritten to an ISO 8601 string and read by `parseIsoTimestamp`, so all of them share
 * the project's one date rule: a date or time that does not exist (31.02.2024, 25:00) is refused, never
 * rolled over into another day. It also fixes the zone the same way for all: a time written without an
 * offset is UTC (LoCoMo gives no zone, and reading it in the machine's zone would make the memories'
 * times depend on where the import ran); an ISO time with an offset keeps it.
 */

/** The spellings a session date may take, each with examples: what a refusal lists. */
export const SESSION_DATE_SPELLINGS = [
  { name: "LoCoMo's own", examples: ["1:56 pm on 8 May, 2023"] },
  { name: "ISO 8601 (offset and time optional)", examples: ["2023-05-08T13:56:00+02:00", "2023-05-08"] },
  { name: "day-first dotted (seconds and time optional)", examples: ["29.12.2023, 22:42:04", "9.1.2024 8:05"] },
] as const;

/** Epoch ms of a session date in any of `SESSION_DATE_SPELLINGS`; undefined when it is none of them or does not exist. */
export function parseSessionDateTime(text: string): number | undefined {
  // Text in neither of the other shapes is given to the ISO reader as written: it refuses what is not ISO.
  const iso = locomoToIso(text) ?? dottedToIso(text) ?? text;
  return parseIsoTimestamp(iso);
}

/** What a refusal says it expected, e.g. `expected a date that exists, written as one of: LoCoMo's own "1:56 pm on 8 May, 2023"; ...`. */
export function describeSessionDateSpellings(): string {
  const spellings = SESSION_DATE_SPELLINGS.map(({ name, examples }) => `${name} ${examples.map((example) => JSON.stringify(example)).join(" or ")}`);
  return `expected a date that exists, written as one of: ${spellings.join("; ")}; a time without an offset is read as UTC`;
}

const LOCOMO_DATE = /^\s*(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$/i;

/** "1:56 pm on 8 May, 2023" -> "2023-05-08T13:56"; undefined when it is not that shape. */
function locomoToIso(text: string): string | undefined {
  const match = LOCOMO_DATE.exec(text);
  if (!match) return undefined;
  const [, hourText = "", minute = "", meridiem = "", day = "", monthName = "", year = ""] = match;
  const month = englishMonthNumber(monthName);
  const hour12 = Number(hourText);
  // The 12-hour clock has no hour 0 or 13: "0:30 pm" is a typo, not 12:30.
  if (month === undefined || hour12 < 1 || hour12 > 12) return undefined;
  const hour = (hour12 % 12) + (meridiem.toLowerCase() === "pm" ? 12 : 0);
  return `${year}-${pad(month)}-${pad(day)}T${pad(hour)}:${minute}`;
}

// The date and time may be parted by a comma, spaces or both ("29.12.2023, 22:42:04", "9.1.2024 8:05").
const DOTTED_DATE = /^\s*(\d{1,2})\.(\d{1,2})\.(\d{4})(?:(?:\s*,\s*|\s+)(\d{1,2}):(\d{2})(?::(\d{2}))?)?\s*$/;

/** "29.12.2023, 22:42:04" -> "2023-12-29T22:42:04", "9.1.2024" -> "2024-01-09"; undefined when it is not that shape. */
function dottedToIso(text: string): string | undefined {
  const match = DOTTED_DATE.exec(text);
  if (!match) return undefined;
  const [, day = "", month = "", year = "", hour, minute, second] = match;
  const date = `${year}-${pad(month)}-${pad(day)}`;
  if (hour === undefined) return date;
  return `${date}T${pad(hour)}:${minute}${second === undefined ? "" : `:${second}`}`;
}

function pad(value: string | number): string {
  return String(value).padStart(2, "0");
}
