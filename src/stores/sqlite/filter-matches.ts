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

/** Rowids a membership bitmap may cover per match: beyond this the matches are sparse among the rowids and the Set answers. */
const BITMAP_ROWIDS_PER_MATCH = 64;

const tests = new WeakMap<ReadonlySet<number>, (rowid: number) => boolean>();

/**
 * A test of membership in a set of rowids, built once per set (the sets FilterMatches keeps are asked
 * again by every search while their namespace is unchanged): a bitmap over the rowids when they are
 * dense enough, else the Set. A lexical walk asks it of every row holding a question's word, tens of
 * thousands at a million memories; a Set of a speaker's 75k rowids misses the cache on most lookups,
 * their bitmap (125 KB at a million rows) stays in it.
 */
export function membershipTest(rowids: ReadonlySet<number>): (rowid: number) => boolean {
  let test = tests.get(rowids);
  if (!test) {
    test = bitmapTest(rowids) ?? ((rowid) => rowids.has(rowid));
    tests.set(rowids, test);
  }
  return test;
}

function bitmapTest(rowids: ReadonlySet<number>): ((rowid: number) => boolean) | undefined {
  let largest = 0;
  for (const rowid of rowids) {
    if (!Number.isSafeInteger(rowid) || rowid < 0) return undefined;
    largest = Math.max(largest, rowid);
  }
  // Past 2^31 the bit arithmetic below would wrap.
  if (largest >= (rowids.size + 1) * BITMAP_ROWIDS_PER_MATCH || largest >= 2 ** 31) return undefined;
  const bits = new Uint8Array((largest >> 3) + 1);
  for (const rowid of rowids) bits[rowid >> 3] = (bits[rowid >> 3] ?? 0) | (1 << (rowid & 7));
  return (rowid) => rowid >= 0 && rowid <= largest && ((bits[rowid >> 3] ?? 0) & (1 << (rowid & 7))) !== 0;
}
