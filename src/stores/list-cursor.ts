/**
 * The `list` cursor: the (timestampMs, id) of the last entry a page returned, as base64url JSON.
 * Opaque to callers; every adapter encodes and decodes it here, so a cursor means the same position
 * (and a malformed one the same ValidationError) on every backend.
 */
import { z } from "zod";
import { ValidationError } from "../core/errors.js";
import { MAX_ID_CHARS, type MemoryEntry } from "../memory/entry.js";

/** Where a page ended: the next page holds the entries after it in (timestampMs desc, id asc) order. */
export interface ListPosition {
  timestampMs: number;
  id: string;
}

const CursorJsonSchema = z.strictObject({
  t: z.number().int().describe("timestampMs of the last entry listed"),
  id: z.string().min(1).max(MAX_ID_CHARS).describe("id of the last entry listed"),
});

const MALFORMED = "cursor is malformed: pass back a nextCursor unchanged";

export function encodeListCursor(position: ListPosition): string {
  return Buffer.from(JSON.stringify({ t: position.timestampMs, id: position.id }), "utf8").toString("base64url");
}

/** The position a cursor encodes; a ValidationError naming `cursor` for anything `encodeListCursor` did not make. */
export function decodeListCursor(cursor: unknown): ListPosition {
  if (typeof cursor !== "string" || cursor === "") throw new ValidationError("cursor", MALFORMED);
  const bytes = Buffer.from(cursor, "base64url");
  // Node skips characters outside the alphabet: only a cursor that re-encodes to itself is one of ours.
  if (bytes.toString("base64url") !== cursor) throw new ValidationError("cursor", MALFORMED);
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString("utf8"));
  } catch {
    throw new ValidationError("cursor", MALFORMED);
  }
  const parsed = CursorJsonSchema.safeParse(json);
  if (!parsed.success) throw new ValidationError("cursor", MALFORMED);
  return { timestampMs: parsed.data.t, id: parsed.data.id };
}

/** Binary (code unit) order, like sqlite's default collation for ASCII, never locale-dependent. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The list order: newest first, ties by id. */
export function byRecency(a: Pick<MemoryEntry, "timestampMs" | "id">, b: Pick<MemoryEntry, "timestampMs" | "id">): number {
  return b.timestampMs - a.timestampMs || compareText(a.id, b.id);
}

/**
 * A page from up to `limit + 1` entries in list order: the extra one only tells that more follow, and
 * the cursor then points at the last entry kept.
 */
export function pageOf(ordered: readonly MemoryEntry[], limit: number): { entries: MemoryEntry[]; nextCursor?: string } {
  const entries = ordered.slice(0, limit);
  const last = entries.at(-1);
  if (ordered.length <= limit || !last) return { entries };
  return { entries, nextCursor: encodeListCursor(last) };
}
