import { MAX_LIST_LIMIT, type ListPage, type MemoryFilter, type MemoryStore } from "./port.js";

/**
 * Every page of a namespace's list, newest first, MAX_LIST_LIMIT entries each: for the callers that
 * walk all of it. A page is read when the one before has been handled, so a caller may write between
 * them (the cursor is a position, not an offset).
 */
export async function* listPages(store: MemoryStore, namespace: string, filter?: MemoryFilter): AsyncGenerator<ListPage> {
  let cursor: string | undefined;
  do {
    const page = await store.list(namespace, { limit: MAX_LIST_LIMIT, ...(cursor !== undefined ? { cursor } : {}), ...(filter ? { filter } : {}) });
    yield page;
    cursor = page.nextCursor;
  } while (cursor !== undefined);
}
