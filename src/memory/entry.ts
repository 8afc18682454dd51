import { randomUUID } from "node:crypto";
import { z } from "zod";
import { parseOrThrow, requiredMessage, ValidationError } from "../core/errors.js";
import { MAX_MS, MIN_MS } from "../time/types.js";

/** Longest memory text accepted, in characters. A memory is a restatement, not a document: split longer text. */
export const MAX_TEXT_CHARS = 16_384;
/** Longest id and namespace, in characters. */
export const MAX_ID_CHARS = 256;
/** Longest document id (documents are often named by their path). */
export const MAX_DOCUMENT_ID_CHARS = 1024;

/**
 * A namespace: whose memories. Mandatory on every read and write. Taken exactly as given, never trimmed:
 * a trimmed " bob" would read and write Bob's memories, so surrounding whitespace (and any control
 * character, which no one types on purpose) is refused instead.
 */
export const NamespaceSchema = z
  .string({ error: requiredMessage("namespace", "a string") })
  .min(1, "namespace must not be empty")
  .max(MAX_ID_CHARS, `namespace must be at most ${MAX_ID_CHARS} characters`)
  .refine((text) => text.trim() !== "", "namespace must not be empty")
  .refine((text) => text.trim() === text, "namespace must not begin or end with whitespace")
  .refine((text) => !/\p{Cc}/u.test(text), "namespace must not contain control characters")
  // Zero-width and other format characters (U+200B, U+200D, U+FEFF, bidi marks) are invisible: two
  // namespaces that print alike must be one namespace or an error, never two that look the same.
  .refine((text) => !/\p{Cf}/u.test(text), "namespace must not contain invisible format characters (zero-width, byte-order or direction marks)");

/** A document id, as entries carry it and as the stores look it up. */
export const DocumentIdSchema = z
  .string({ error: "documentId must be a string" })
  .min(1, "documentId must not be empty")
  .max(MAX_DOCUMENT_ID_CHARS, `documentId must be at most ${MAX_DOCUMENT_ID_CHARS} characters`);

/** Most names (or keywords) one list of a memory holds. */
const MAX_NAMES = 256;

/** A memory's list of names or words, its errors naming what an item is ("a keyword must be at most 256 characters"). */
function nameList(field: string, item: string) {
  return z
    .array(z.string().trim().min(1, `${item} must not be empty`).max(MAX_ID_CHARS, `${item} must be at most ${MAX_ID_CHARS} characters`))
    .max(MAX_NAMES, `${field} must hold at most ${MAX_NAMES} items`);
}

/** A short single-valued field of a memory (place, speaker, topic), its errors naming it. */
function shortField(field: string) {
  return z.string().trim().min(1, `${field} must not be empty`).max(MAX_ID_CHARS, `${field} must be at most ${MAX_ID_CHARS} characters`);
}

/** The source an ingest read memories from: a path or a name (see ingest/origin.ts). */
export const OriginSchema = z
  .string()
  // 4096: the longest path Linux accepts, as the default origin is the input's absolute path.
  .max(4096, "origin must be at most 4096 characters")
  .refine((text) => text.trim() !== "", "origin must not be empty");

/** Where a memory came from: a document chunk (id + version + heading path) or dialogue turns, and the input an ingest read it from. */
export const SourceSchema = z.strictObject({
  documentId: DocumentIdSchema.optional().describe("The document a chunk was cut from"),
  version: z.number().int().min(1, "version must be 1 or more").optional().describe("Which version of the document (each changed ingest of it is the next)"),
  turnIds: z.array(z.string().min(1).max(MAX_ID_CHARS)).max(1024, "turnIds must name at most 1,024 turns").optional().describe("The dialogue turns a memory was built from"),
  contextTurnIds: z
    .array(z.string().min(1).max(MAX_ID_CHARS))
    .max(1024, "contextTurnIds must name at most 1,024 turns")
    .optional()
    .describe(
      "The turns said around those, in the same session (dialogue ingests set it): memories that name each other's turns here are one exchange, and lend each other votes at retrieval",
    ),
  sessionId: z
    .string()
    .min(1)
    .max(MAX_ID_CHARS)
    .optional()
    .describe("The dialogue session its turns were said in (dialogue ingests set it when the turns name one)"),
  headingPath: z.array(z.string().max(1024)).max(32, "headingPath must hold at most 32 headings").optional().describe("The headings a chunk stands under, outermost first"),
  origin: OriginSchema.optional().describe(
    "The file or folder an ingest read the memory from (its absolute path, or the name given as the ingest's --origin); re-ingesting the same origin into the namespace replaces what it wrote",
  ),
});
export type MemorySource = z.infer<typeof SourceSchema>;

/** A point in time as callers give it: ISO 8601 (with or without offset; no offset means UTC), epoch ms, or a Date. */
export const TimestampInputSchema = z.union([
  z.date().refine((date) => !Number.isNaN(date.getTime()), "invalid date"),
  z.number().finite("timestamp must be a finite epoch-ms number"),
  z.string().refine((text) => parseIsoTimestamp(text) !== undefined, "timestamp must be an ISO 8601 date-time that exists"),
]);
export type TimestampInput = z.input<typeof TimestampInputSchema>;

/** Most ids one memory may supersede: a memory restates a few earlier ones, not a history. */
export const MAX_SUPERSEDES = 32;

const EntryIdSchema = z.string().trim().min(1, "id must not be empty").max(MAX_ID_CHARS);

/** Longest reason a memory gives for what it supersedes. */
export const MAX_SUPERSESSION_REASON_CHARS = 1024;
const SupersessionReasonSchema = z
  .string()
  .trim()
  .min(1, "supersessionReason must not be empty")
  .max(MAX_SUPERSESSION_REASON_CHARS, `supersessionReason must be at most ${MAX_SUPERSESSION_REASON_CHARS} characters`);

/** What a caller writes: only `text` is required. The namespace is given separately, never inside the entry. */
export const MemoryInputSchema = z.strictObject({
  id: EntryIdSchema.optional().describe("The memory's id in its namespace; writing the same id again replaces it. Unset: a new id"),
  text: z
    .string({ error: requiredMessage("text", "a string") })
    .trim()
    .min(1, "text must not be empty")
    .max(MAX_TEXT_CHARS, `text must be at most ${MAX_TEXT_CHARS} characters`)
    .describe("What to remember, self-contained: names rather than pronouns, absolute dates"),
  keywords: nameList("keywords", "a keyword")
    .optional()
    .describe("Words it should be found by, indexed apart from the text. Unset: its content words (an empty list is kept)"),
  timestamp: TimestampInputSchema.optional().describe("When it happened or was said (ISO 8601, epoch ms or a Date). Unset: the moment it is written"),
  location: shortField("location").optional().describe("Where it happened"),
  persons: nameList("persons", "a person's name")
    .optional()
    .describe("Who it is about or involves. Unset: the people its text clearly names (an empty list is kept)"),
  speaker: shortField("speaker").optional().describe("Who said or wrote it (a dialogue turn's speaker); stored as one of the persons too"),
  entities: nameList("entities", "an entity")
    .optional()
    .describe("Things it names: products, codes, organisations, places. Unset: the names, codes and amounts its text holds (an empty list is kept)"),
  topic: shortField("topic").optional().describe("What it is about, in a few words (a document's title)"),
  source: SourceSchema.optional().describe("Where it came from: a document chunk or dialogue turns; ingests set it"),
  expiresAt: TimestampInputSchema.optional().describe(
    "When the memory stops being recalled (ISO 8601, epoch ms or a Date); must lie after the moment it is written. Unset: it never expires",
  ),
  validFrom: TimestampInputSchema.optional().describe(
    "When what the memory says began to hold, if not when it was said (ISO 8601, epoch ms or a Date). Unset: from whenever it was said",
  ),
  validUntil: TimestampInputSchema.optional().describe(
    "When what the memory says stopped holding (ISO 8601, epoch ms or a Date); after validFrom. From then on it is history: still recalled, after what is current",
  ),
  supersedes: z
    .array(EntryIdSchema)
    .max(MAX_SUPERSEDES, `supersedes must name at most ${MAX_SUPERSEDES} ids`)
    .optional()
    .describe(
      "Ids of earlier memories of the same namespace that this one replaces (a moved deadline, a new address). They are kept as history, never deleted; an id not stored (yet) links nothing. Left out of a note (remember, save_memory), the rules link one that says a change to the earlier note it replaces; [] links nothing",
    ),
  supersessionReason: SupersessionReasonSchema.optional().describe(
    "Why this memory supersedes the ones it names (a memory builder says which words it read); only with supersedes",
  ),
});
export type MemoryInput = z.input<typeof MemoryInputSchema>;

/** A stored memory entry: normalised, every list present, times in UTC ISO 8601 and epoch ms. */
export const MemoryEntrySchema = z.strictObject({
  id: z.string().min(1).max(MAX_ID_CHARS).describe("The entry's id, unique in its namespace"),
  namespace: NamespaceSchema.describe("Whose memory it is"),
  text: z.string().min(1).max(MAX_TEXT_CHARS).describe("What it says"),
  keywords: z.array(z.string()).describe("Words it is found by, indexed apart from the text"),
  timestamp: z.iso.datetime({ offset: true }).describe("When it happened or was said, UTC ISO 8601"),
  timestampMs: z.number().int().describe("The instant of `timestamp` in epoch ms"),
  location: z.string().optional().describe("Where it happened"),
  persons: z.array(z.string()).describe("Who it involves; the speaker first when there is one"),
  speaker: z.string().optional().describe("Who said or wrote it; also one of the persons"),
  entities: z.array(z.string()).describe("What it names"),
  topic: z.string().optional().describe("What it is about"),
  source: SourceSchema.optional().describe("Where it came from"),
  createdAt: z.iso.datetime({ offset: true }).describe("When it was first written, UTC ISO 8601 (kept when its id is written again)"),
  updatedAt: z.iso.datetime({ offset: true }).describe("When it was last written, UTC ISO 8601"),
  /** Set together with `expiresAtMs` (the stores check they agree); stores stop returning the entry from then on. */
  expiresAt: z.iso.datetime({ offset: true }).optional().describe("When the entry expires, UTC ISO 8601"),
  expiresAtMs: z.number().int().optional().describe("The instant of `expiresAt` in epoch ms, what the stores compare with their clock"),
  validFrom: z.iso.datetime({ offset: true }).optional().describe("When what it says began to hold, UTC ISO 8601"),
  validUntil: z.iso.datetime({ offset: true }).optional().describe("When what it says stopped holding, UTC ISO 8601 (after validFrom)"),
  supersedes: z
    .array(z.string().min(1).max(MAX_ID_CHARS))
    .max(MAX_SUPERSEDES)
    .optional()
    .describe("Ids of memories of the same namespace this one replaces, distinct, never its own; absent when none"),
  supersessionReason: z.string().min(1).max(MAX_SUPERSESSION_REASON_CHARS).optional().describe("Why it supersedes them, as written with it; only with supersedes"),
});
export type MemoryEntry = z.infer<typeof MemoryEntrySchema>;

const ISO_TIMESTAMP = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)(Z|[+-]\d{2}:?\d{2})?)?$/i;
/** The widest offset in use (Kiribati, +14:00); anything beyond is a typo, not a zone. */
const MAX_OFFSET_MINUTES = 14 * 60;

/**
 * Parses an ISO 8601 date-time, "T" or a space between date and time; a bare date or a time without
 * offset is read as UTC, never as the machine's zone. Undefined when it is not one, including a date
 * or time that does not exist (2026-02-30, 24:00, 10:60, +15:00): Date.parse would roll those over
 * into another instant (2026-02-30 becomes 2 March) instead of refusing them.
 */
export function parseIsoTimestamp(text: string): number | undefined {
  const match = ISO_TIMESTAMP.exec(text.trim());
  if (!match) return undefined;
  const [, date = "", time, offset] = match;
  if (!dateExists(date) || (time !== undefined && !timeExists(time)) || (offset !== undefined && !offsetExists(offset))) return undefined;
  const ms = Date.parse(time === undefined ? `${date}` : `${date}T${time}${offset ?? "Z"}`);
  return Number.isFinite(ms) ? ms : undefined;
}

/** True when `YYYY-MM-DD` names a day of the (proleptic Gregorian) calendar. */
function dateExists(date: string): boolean {
  const [year = 0, month = 0, day = 0] = date.split("-").map(Number);
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * True when `HH:MM[:SS[.f]]` is a time of day. 24:00 is refused although ISO 8601 allows it as the end of
 * a day: it is the next day's 00:00, and one instant should have one spelling. So is a leap second (:60),
 * which a Date cannot hold.
 */
function timeExists(time: string): boolean {
  const [hour = 0, minute = 0, second = 0] = time.split(":").map(Number);
  return hour < 24 && minute < 60 && second < 60;
}

/** True for `Z` or an offset of at most ±14:00 whose minutes are a minute of an hour. */
function offsetExists(offset: string): boolean {
  if (offset.toUpperCase() === "Z") return true;
  const digits = offset.slice(1).replace(":", "");
  const hours = Number(digits.slice(0, 2));
  const minutes = Number(digits.slice(2));
  return minutes < 60 && hours * 60 + minutes <= MAX_OFFSET_MINUTES;
}

/** Epoch ms of any accepted timestamp input. */
export function toEpochMs(value: TimestampInput): number {
  if (value instanceof Date) return value.getTime();
  if (typeof value === "number") return Math.trunc(value);
  const ms = parseIsoTimestamp(value);
  if (ms === undefined) throw new ValidationError("timestamp", `not an ISO 8601 date-time: ${value}`);
  return ms;
}

/**
 * Case-insensitive de-duplication of names, each trimmed, blanks dropped, the first spelling kept,
 * at most `max` of them.
 */
export function uniqueNames(names: readonly string[] | undefined, max = Number.POSITIVE_INFINITY): string[] {
  const seen = new Map<string, string>();
  for (const name of names ?? []) {
    if (seen.size >= max) break;
    const trimmed = name.trim();
    if (trimmed && !seen.has(trimmed.toLowerCase())) seen.set(trimmed.toLowerCase(), trimmed);
  }
  return [...seen.values()];
}

/**
 * Validates one caller input and turns it into a stored entry of `namespace`.
 * `field` prefixes error paths (e.g. `entries.3`), `now` stamps createdAt/updatedAt and a missing timestamp,
 * `previous` (the entry being replaced, if any) keeps its createdAt. An `expiresAt` at or before `now`
 * is refused: such a memory would be written only to be invisible.
 */
export function normalizeEntry(namespace: string, input: unknown, options: EntryOptions = {}): MemoryEntry {
  const ns = parseOrThrow(NamespaceSchema, namespace, "namespace");
  return buildEntry(ns, parseOrThrow(MemoryInputSchema, input, options.field ?? ""), options);
}

/** How normalizeEntry names fields in errors, stamps times and keeps a replaced entry's createdAt. */
export interface EntryOptions {
  field?: string;
  now?: number;
  previous?: Pick<MemoryEntry, "createdAt">;
}

/** A caller input MemoryInputSchema has already checked. */
export type CheckedMemoryInput = z.output<typeof MemoryInputSchema>;

/** normalizeEntry of an input already checked (and perhaps completed) by the caller, so it is not parsed twice. */
export function entryOf(namespace: string, parsed: CheckedMemoryInput, options: EntryOptions = {}): MemoryEntry {
  return buildEntry(parseOrThrow(NamespaceSchema, namespace, "namespace"), parsed, options);
}

function buildEntry(ns: string, parsed: CheckedMemoryInput, options: EntryOptions): MemoryEntry {
  const now = options.now ?? Date.now();
  const fieldPath = (name: string): string => [options.field, name].filter(Boolean).join(".");
  const timestampMs = parsed.timestamp === undefined ? now : instantInRange(parsed.timestamp, fieldPath("timestamp"));
  const stamp = new Date(now).toISOString();
  const entry: MemoryEntry = {
    id: parsed.id ?? randomUUID(),
    namespace: ns,
    text: parsed.text,
    keywords: uniqueNames(parsed.keywords),
    timestamp: new Date(timestampMs).toISOString(),
    timestampMs,
    // The speaker is one of the persons, so a persons filter finds what they said.
    persons: uniqueNames(parsed.speaker === undefined ? parsed.persons : [parsed.speaker, ...(parsed.persons ?? [])]),
    entities: uniqueNames(parsed.entities),
    createdAt: options.previous?.createdAt ?? stamp,
    updatedAt: stamp,
  };
  if (parsed.location !== undefined) entry.location = parsed.location;
  if (parsed.speaker !== undefined) entry.speaker = parsed.speaker;
  if (parsed.topic !== undefined) entry.topic = parsed.topic;
  if (parsed.source !== undefined) entry.source = parsed.source;
  if (parsed.expiresAt !== undefined) {
    const expiresAtMs = instantInRange(parsed.expiresAt, fieldPath("expiresAt"));
    if (hasExpired(expiresAtMs, now)) throw new ValidationError(fieldPath("expiresAt"), "expiresAt must be in the future");
    entry.expiresAt = new Date(expiresAtMs).toISOString();
    entry.expiresAtMs = expiresAtMs;
  }
  Object.assign(entry, validity(parsed, fieldPath), supersession(entry.id, parsed, fieldPath));
  return entry;
}

/** The entry's validFrom and validUntil in UTC, checked to be storable and in order. */
function validity(
  parsed: Pick<z.output<typeof MemoryInputSchema>, "validFrom" | "validUntil">,
  fieldPath: (name: string) => string,
): Pick<MemoryEntry, "validFrom" | "validUntil"> {
  const fromMs = parsed.validFrom === undefined ? undefined : instantInRange(parsed.validFrom, fieldPath("validFrom"));
  const untilMs = parsed.validUntil === undefined ? undefined : instantInRange(parsed.validUntil, fieldPath("validUntil"));
  if (fromMs !== undefined && untilMs !== undefined && untilMs <= fromMs) {
    throw new ValidationError(fieldPath("validUntil"), "validUntil must be after validFrom");
  }
  return {
    ...(fromMs !== undefined ? { validFrom: new Date(fromMs).toISOString() } : {}),
    ...(untilMs !== undefined ? { validUntil: new Date(untilMs).toISOString() } : {}),
  };
}

/**
 * The distinct ids a memory supersedes and why (absent when none); naming itself is refused, as it
 * would hide it behind itself, and so is a reason for superseding nothing.
 */
function supersession(
  id: string,
  parsed: Pick<z.output<typeof MemoryInputSchema>, "supersedes" | "supersessionReason">,
  fieldPath: (name: string) => string,
): Pick<MemoryEntry, "supersedes" | "supersessionReason"> {
  const ids = [...new Set(parsed.supersedes ?? [])];
  if (ids.includes(id)) throw new ValidationError(fieldPath("supersedes"), `a memory cannot supersede itself ("${id}")`);
  if (parsed.supersessionReason !== undefined && !ids.length) {
    throw new ValidationError(fieldPath("supersessionReason"), "supersessionReason needs supersedes: a reason for superseding nothing");
  }
  if (!ids.length) return {};
  return { supersedes: ids, ...(parsed.supersessionReason !== undefined ? { supersessionReason: parsed.supersessionReason } : {}) };
}

/** Epoch ms of an entry's validity bounds (undefined where unset). */
export function validityMs(entry: Pick<MemoryEntry, "validFrom" | "validUntil">): { fromMs?: number; untilMs?: number } {
  return {
    ...(entry.validFrom !== undefined ? { fromMs: parseIsoTimestamp(entry.validFrom) } : {}),
    ...(entry.validUntil !== undefined ? { untilMs: parseIsoTimestamp(entry.validUntil) } : {}),
  };
}

/** Whether a memory expiring at `expiresAtMs` is gone at `now`: a write refuses it, since nothing would ever see it. */
export function hasExpired(expiresAtMs: number, now: number): boolean {
  return expiresAtMs <= now;
}

/**
 * What writes `entry` again as it is: normalizeEntry of it gives the same entry, but for the times a
 * store keeps of its own (createdAt and updatedAt are the new write's). How memories move between
 * stores, or to another embedder: an export is these, one per line, and an ingest reads them back.
 */
export function entryInput(entry: MemoryEntry): MemoryInput {
  // What the write derives (namespace, epoch ms) or keeps of its own (createdAt, updatedAt) is not input.
  const { namespace: _namespace, timestampMs: _timestampMs, expiresAtMs: _expiresAtMs, createdAt: _createdAt, updatedAt: _updatedAt, ...input } = entry;
  return input;
}

/**
 * Epoch ms of a timestamp input that can be stored, else a ValidationError naming `field`: beyond what
 * a Date holds (±8.64e15 ms) it is out of range; within it, the stored form is ISO 8601 without an
 * expanded year, so only the years 0001-9999 are kept.
 */
function instantInRange(value: TimestampInput, field: string): number {
  const ms = toEpochMs(value);
  const name = field.split(".").at(-1);
  if (!Number.isFinite(ms) || Math.abs(ms) > 8.64e15) throw new ValidationError(field, `${name} is out of range`);
  if (ms < MIN_MS || ms > MAX_MS) throw new ValidationError(field, `${name} must be in the years 0001-9999`);
  return ms;
}
