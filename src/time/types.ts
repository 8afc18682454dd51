/** The public shapes of the time module, with their zod schemas (used at every boundary). */
import { z } from "zod";

export const GRANULARITIES = ["day", "week", "month", "season", "year", "range", "instant", "open"] as const;
export const GranularitySchema = z.enum(GRANULARITIES);
export type Granularity = z.infer<typeof GranularitySchema>;

/** An inclusive-start, exclusive-end time range in epoch ms; either side may be open. */
export const TimeRangeSchema = z.strictObject({
  startMs: z.number().finite().optional().describe("Epoch ms the range starts at, inclusive. Unset: no start"),
  endMs: z.number().finite().optional().describe("Epoch ms the range ends at, exclusive. Unset: no end"),
});
export type TimeRange = z.infer<typeof TimeRangeSchema>;

/**
 * A resolved time window. `startMs` inclusive, `endMs` exclusive; an open range leaves one of them out
 * ("before 2023" has no start). `start`/`end` are the same bounds as ISO 8601 UTC strings.
 * `index`/`length` locate `expression` in the text it was found in.
 */
export const TimeWindowSchema = TimeRangeSchema.extend({
  start: z.iso.datetime().optional().describe("The window's start, UTC ISO 8601"),
  end: z.iso.datetime().optional().describe("The window's end, UTC ISO 8601, exclusive"),
  expression: z.string().describe("The time phrase, as it appears in the input"),
  granularity: GranularitySchema.describe("The unit the phrase speaks in (day, week, month, ...)"),
  index: z.number().int().nonnegative().optional().describe("Where the phrase starts in the input, in UTF-16 code units"),
  length: z.number().int().nonnegative().optional().describe("The phrase's length, in UTF-16 code units"),
});

export interface TimeWindow {
  startMs?: number;
  /** Exclusive. */
  endMs?: number;
  /** ISO 8601 UTC of startMs. */
  start?: string;
  /** ISO 8601 UTC of endMs (exclusive). */
  end?: string;
  /** The matched text, as it appears in the input. */
  expression: string;
  granularity: Granularity;
  /** Offset of `expression` in the input, in UTF-16 code units. */
  index?: number;
  length?: number;
}

/** A window found in a text: always located. */
export interface LocatedTimeWindow extends TimeWindow {
  index: number;
  length: number;
}

// Compile-time guard that the interface and the schema describe the same object.
type SchemaShape = z.infer<typeof TimeWindowSchema>;
const interfaceMatchesSchema: [SchemaShape] extends [TimeWindow] ? ([TimeWindow] extends [SchemaShape] ? true : false) : false = true;
void interfaceMatchesSchema;

/** The instants ISO 8601 writes without an expanded year: 0001-01-01 to 9999-12-31. */
export const MIN_MS = -62_135_596_800_000;
export const MAX_MS = 253_402_300_799_999;

export const TimeContextSchema = z.strictObject({
  now: z.union([
    z
      .date()
      .refine((date) => Number.isFinite(date.getTime()), "now must be a valid date")
      .refine((date) => date.getTime() >= MIN_MS && date.getTime() <= MAX_MS, "now must be in the years 1-9999"),
    z.number().finite("now must be a finite epoch-ms number").min(MIN_MS, "now must be in the years 1-9999").max(MAX_MS, "now must be in the years 1-9999"),
  ]).describe("The reference time relative expressions are read from: the request's, never the wall clock"),
  timeZone: z.string().min(1, "timeZone must not be empty").max(64).optional().describe("IANA zone the calendar is read in. Unset: UTC"),
});

export interface TimeContext {
  /** The reference time: the request's, never the wall clock. */
  now: Date | number;
  /** IANA zone the calendar is read in; default "UTC". */
  timeZone?: string;
}

export const LocaleSchema = z.enum(["en", "zh"]);
export type Locale = z.infer<typeof LocaleSchema>;
