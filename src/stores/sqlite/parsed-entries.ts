import { RecentMap } from "../../core/recent-map.js";
import { MemoryEntrySchema, type MemoryEntry } from "../../memory/entry.js";

/**
 * Entries already parsed from their rows, by rowid. Validating a row's JSON with the entry schema costs
 * about four times the JSON parse itself (~9 of ~11 µs here), and a question's searches load the same
 * rows again and again (about 120 loads per question, across its views and rounds). A row is parsed
 * once per distinct text: a cached entry is reused only while the row still holds exactly the JSON it
 * was parsed from, so a rewrite by this process or another one is parsed afresh, and nothing can be stale.
 * Each entry also records the namespace generation it was read at (entry-changes.ts): while the
 * namespace's generation has not moved, its rows have not changed, and the entry is reused unread.
 *
 * Reused entries are shared between callers, so they are frozen (their arrays and source too): a caller
 * that wants to change one makes a copy. At most `limit` rows are kept, the least recently used dropped.
 */
export class ParsedEntries {
  private readonly byRowid: RecentMap<number, { json: string; entry: MemoryEntry; generation: number | undefined }>;

  constructor(limit: number) {
    this.byRowid = new RecentMap(limit);
  }

  /**
   * The entry of a row read at the namespace's `generation` (at most: read before the row), or undefined
   * when that is unknown; the caller then reads the row and parses it.
   */
  unchanged(rowid: number, generation: number): MemoryEntry | undefined {
    const known = this.byRowid.get(rowid);
    return known?.generation === generation ? known.entry : undefined;
  }

  /**
   * The entry of a row's JSON, or undefined when the JSON is not a valid entry. `generation`: the
   * namespace's generation read before the row (so the row is at least that recent), when known.
   */
  parse(rowid: number, json: string, generation?: number): MemoryEntry | undefined {
    const known = this.byRowid.get(rowid);
    if (known && known.json === json) {
      this.byRowid.set(rowid, { ...known, generation });
      return known.entry;
    }
    const parsed = MemoryEntrySchema.safeParse(jsonOrUndefined(json));
    if (!parsed.success) return undefined;
    const entry = frozen(parsed.data);
    this.byRowid.set(rowid, { json, entry, generation });
    return entry;
  }

  /** Forgets every row (the store closed, or its file was cleared). */
  clear(): void {
    this.byRowid.clear();
  }
}

function frozen(entry: MemoryEntry): MemoryEntry {
  Object.freeze(entry.keywords);
  Object.freeze(entry.persons);
  Object.freeze(entry.entities);
  if (entry.source) {
    if (entry.source.turnIds) Object.freeze(entry.source.turnIds);
    if (entry.source.contextTurnIds) Object.freeze(entry.source.contextTurnIds);
    if (entry.source.headingPath) Object.freeze(entry.source.headingPath);
    Object.freeze(entry.source);
  }
  return Object.freeze(entry);
}

/** JSON.parse, undefined for text that is not JSON (a corrupt row is reported by the caller, in its words). */
export function jsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
