import { RecentMap } from "../../core/recent-map.js";

/**
 * The rowids a filter matches in a namespace (expired entries included: the caller leaves those out
 * with the current clock), kept while the namespace's generation stays where it was read. A question's
 * own-words round asks the same speaker filter of several searches, and the questions after it ask it
 * again; reading the matches costs about 1 µs per matching row each time (10k entries, one person's
 * 8 %: ~1 ms). Any write to the namespace moves its generation (entry-changes.ts), so a kept answer is
 * never stale; at most `limit` filters are kept, the least recently used dropped first.
 */
export class FilterMatches {
  private readonly byKey: RecentMap<string, { generation: number; rowids: ReadonlySet<number> }>;

  constructor(limit: number) {
    this.byKey = new RecentMap(limit);
  }

  /** The matches of the filter (named by `key`: its namespace, SQL and parameters) at `generation`, read by `read` when not kept. */
  get(key: string, generation: number, read: () => readonly number[]): ReadonlySet<number> {
    const known = this.byKey.get(key);
    if (known && known.generation === generation) return known.rowids;
    const rowids = new Set(read());
    this.byKey.set(key, { generation, rowids });
    return rowids;
  }

  clear(): void {
    this.byKey.clear();
  }
}
