import { parseOrThrow } from "../core/errors.js";
import { OriginSchema, type MemoryInput } from "../memory/entry.js";
import type { MemoryStore } from "../stores/port.js";
import { MAX_IDS_PER_CALL } from "../stores/validation.js";

/**
 * An ingest's origin: the input it read (a file's or folder's absolute path, or a name the caller
 * chose). Every entry it writes carries it as `source.origin`, so the next ingest of the same origin
 * into the namespace can retire what the new version no longer holds. Entry ids never depend on it:
 * the same content from two origins is one entry, owned by the last origin that wrote it.
 */
export function parseOrigin(origin: string, field = "origin"): string {
  return parseOrThrow(OriginSchema, origin, field);
}

/** `input` marked as read from `origin`; unchanged when there is none. */
export function withOrigin(input: MemoryInput, origin: string | undefined): MemoryInput {
  return origin === undefined ? input : { ...input, source: { ...input.source, origin } };
}

/**
 * Deletes the namespace's entries from `origin` that are not in `kept` (what its new version holds);
 * returns how many. Call it after the new version is written: a failure between the two leaves old
 * entries behind, never loses new ones, and the next ingest of the origin retires them.
 * No origin (e.g. standard input without a name) retires nothing.
 */
export async function retireFromOrigin(
  store: MemoryStore,
  namespace: string,
  origin: string | undefined,
  kept: ReadonlySet<string>,
): Promise<number> {
  if (origin === undefined) return 0;
  const stale = (await store.originEntryIds(namespace, origin)).filter((id) => !kept.has(id));
  let retired = 0;
  // `delete` takes at most MAX_IDS_PER_CALL ids.
  for (let start = 0; start < stale.length; start += MAX_IDS_PER_CALL) {
    retired += await store.delete(namespace, stale.slice(start, start + MAX_IDS_PER_CALL));
  }
  return retired;
}
