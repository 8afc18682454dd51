/**
 * The filter a caller puts on a question (the library, the CLI, the served graph, agent tools, MCP):
 * exact conditions that every view and every reflection round respects, ANDed with what the planner
 * derives. Names a namespace does not have match nothing; they are not an error.
 */
import { z } from "zod";
import { DocumentIdSchema, MAX_ID_CHARS, parseIsoTimestamp, type MemoryEntry } from "../memory/entry.js";
import { foldName, type MemoryFilter } from "./port.js";

const isoTime = (field: string) =>
  z.string().refine((text) => parseIsoTimestamp(text) !== undefined, `${field} must be an ISO 8601 date or date-time`);
const names = z.array(z.string().trim().min(1).max(MAX_ID_CHARS)).min(1).max(64);

export const RecallFilterSchema = z
  .strictObject({
    since: isoTime("since").optional().describe("Only memories at or after this time (ISO 8601)"),
    until: isoTime("until").optional().describe("Only memories before this time (ISO 8601)"),
    persons: names.optional().describe("Only memories naming any of these people"),
    entities: names.optional().describe("Only memories naming any of these things (products, codes, events)"),
    location: z.string().trim().min(1).max(MAX_ID_CHARS).optional().describe("Only memories whose place contains this text"),
    documentId: DocumentIdSchema.optional().describe("Only chunks of this source document"),
  })
  .refine((filter) => !filter.since || !filter.until || parseIsoTimestamp(filter.since)! < parseIsoTimestamp(filter.until)!, {
    message: "since must be before until",
    path: ["until"],
  })
  .describe("Exact conditions every result must meet");
export type RecallFilter = z.input<typeof RecallFilterSchema>;

/** The store's form of a caller's filter (validated already). */
export function toMemoryFilter(filter: z.output<typeof RecallFilterSchema>): MemoryFilter {
  const memoryFilter: MemoryFilter = {};
  if (filter.persons) memoryFilter.persons = filter.persons;
  if (filter.entities) memoryFilter.entities = filter.entities;
  if (filter.location) memoryFilter.location = filter.location;
  if (filter.documentId) memoryFilter.documentId = filter.documentId;
  const startMs = filter.since === undefined ? undefined : parseIsoTimestamp(filter.since);
  const endMs = filter.until === undefined ? undefined : parseIsoTimestamp(filter.until);
  if (startMs !== undefined || endMs !== undefined) memoryFilter.timeRange = { ...(startMs !== undefined ? { startMs } : {}), ...(endMs !== undefined ? { endMs } : {}) };
  return memoryFilter;
}

/** True when `entry` meets every condition of `filter`, as the stores judge it (whole names folded, location a substring). */
export function matchesFilter(entry: MemoryEntry, filter: MemoryFilter | undefined): boolean {
  if (!filter) return true;
  const anyOf = (wanted: readonly string[] | undefined, held: readonly string[]) => {
    if (!wanted?.length) return true;
    const folded = new Set(held.map(foldName));
    return wanted.some((name) => folded.has(foldName(name)));
  };
  if (!anyOf(filter.persons, entry.persons) || !anyOf(filter.entities, entry.entities)) return false;
  if (filter.location && !(entry.location ?? "").toLowerCase().includes(filter.location.toLowerCase())) return false;
  if (filter.documentId !== undefined && entry.source?.documentId !== filter.documentId) return false;
  const { startMs, endMs } = filter.timeRange ?? {};
  return (startMs === undefined || entry.timestampMs >= startMs) && (endMs === undefined || entry.timestampMs < endMs);
}

/**
 * One store filter for two sets of conditions that must both hold (the caller's and a view's own).
 * Conditions on different fields merge, and time ranges intersect; where both name people, things or a
 * place, one list cannot say "any of these and any of those", so the caller's goes to the store and
 * the view keeps the other for `matchesFilter` on what comes back.
 */
export function bothFilters(caller: MemoryFilter | undefined, own: MemoryFilter | undefined): MemoryFilter | undefined {
  if (!caller) return own;
  if (!own) return caller;
  const merged: MemoryFilter = { ...own, ...caller };
  if (caller.timeRange && own.timeRange) {
    const starts = [caller.timeRange.startMs, own.timeRange.startMs].filter((ms): ms is number => ms !== undefined);
    const ends = [caller.timeRange.endMs, own.timeRange.endMs].filter((ms): ms is number => ms !== undefined);
    merged.timeRange = { ...(starts.length ? { startMs: Math.max(...starts) } : {}), ...(ends.length ? { endMs: Math.min(...ends) } : {}) };
  }
  return merged;
}
