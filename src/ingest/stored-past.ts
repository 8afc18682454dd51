import type { MemoryEntry } from "../memory/entry.js";
import type { MemoryStore } from "../stores/port.js";

/** How far a look back reads: pages of `page` memories, at most `pages` of them. */
export interface LookBack {
  page: number;
  pages: number;
}

/**
 * While looking back for what a change replaces: the namespace's latest 1,000 memories said before it
 * (each speaker's latest 200 turns of them, for a dialogue). BEAM's changes replace a statement at most
 * 99 of the speaker's turns back (17 at the median). It walks the namespace's time index, whose cost
 * does not grow with the namespace, and reads every speaker's turns in one walk (a save that says a
 * change: 10 ms at 50,000 memories and 12 ms at 200,000; read by the speaker's name when the store read
 * all of a name's memories before ordering them by time, 29 and 82 ms).
 */
export const CHANGES_LOOK_BACK: LookBack = { page: 200, pages: 5 };

/** The namespace's memories said at or before `atMs`, newest first, a page at a time up to the bound. */
export async function* memoriesBefore(store: MemoryStore, namespace: string, atMs: number, bound: LookBack): AsyncGenerator<MemoryEntry> {
  let cursor: string | undefined;
  for (let page = 0; page < bound.pages; page += 1) {
    const listed = await store.list(namespace, { filter: { timeRange: { endMs: atMs + 1 } }, limit: bound.page, ...(cursor ? { cursor } : {}) });
    yield* listed.entries;
    cursor = listed.nextCursor;
    if (!cursor) return;
  }
}
