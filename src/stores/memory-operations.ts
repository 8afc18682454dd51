/**
 * What callers do with stored memories besides asking: list, read, forget, prune. One implementation
 * behind the library, the CLI, agent tools, the LangGraph store and MCP, so every surface validates and
 * refuses alike.
 */
import { z } from "zod";
import { parseOrThrow, ValidationError } from "../core/errors.js";
import { MAX_ID_CHARS, NamespaceSchema, type MemoryEntry } from "../memory/entry.js";
import { RecallFilterSchema, toMemoryFilter } from "./caller-filter.js";
import type { ListPage, MemoryStore } from "./port.js";

export const ListRequestSchema = z.strictObject({
  filter: RecallFilterSchema.optional(),
  limit: z.number().int().min(1).max(1000).default(20).describe("Memories per page, newest first"),
  cursor: z.string().min(1).optional().describe("Where the previous page ended (its nextCursor)"),
});
export type ListRequest = z.input<typeof ListRequestSchema>;

const IdsSchema = z.array(z.string().trim().min(1, "an id must not be empty").max(MAX_ID_CHARS)).min(1, "give at least one id").max(10_000);

/** A namespace's memories, newest first, a page at a time; expired ones are never listed. */
export async function listMemories(store: MemoryStore, namespace: string, options: ListRequest = {}): Promise<ListPage> {
  const ns = parseOrThrow(NamespaceSchema, namespace, "namespace");
  const { filter, limit, cursor } = parseOrThrow(ListRequestSchema, options, "options");
  return store.list(ns, { limit, ...(filter ? { filter: toMemoryFilter(filter) } : {}), ...(cursor ? { cursor } : {}) });
}

/** Memories by id, in the order asked; ids that do not exist (or have expired) are left out. */
export async function getMemories(store: MemoryStore, namespace: string, ids: readonly string[]): Promise<MemoryEntry[]> {
  const ns = parseOrThrow(NamespaceSchema, namespace, "namespace");
  return store.get(ns, parseOrThrow(IdsSchema, ids, "ids"));
}

/**
 * Deletes memories by id from every index. An id the namespace does not hold is refused, naming it,
 * and then nothing is deleted: a caller who forgets the wrong id learns so instead of believing it gone.
 */
export async function forgetMemories(store: MemoryStore, namespace: string, ids: readonly string[], field = "ids"): Promise<number> {
  const ns = parseOrThrow(NamespaceSchema, namespace, "namespace");
  const held = await heldIds(store, ns, ids, field);
  return store.delete(ns, held);
}

/** The ids, checked: each one valid and held by the namespace, or a ValidationError naming the first that is not. */
export async function heldIds(store: MemoryStore, namespace: string, ids: readonly string[], field = "ids"): Promise<string[]> {
  const asked = parseOrThrow(IdsSchema, ids, field);
  const held = new Set((await store.get(namespace, asked)).map((entry) => entry.id));
  const missing = asked.findIndex((id) => !held.has(id));
  if (missing >= 0) throw new ValidationError(`${field}.${missing}`, `no memory "${asked[missing]}" in namespace "${namespace}"`);
  return [...new Set(asked)];
}

/** Deletes every expired memory (of one namespace, or of all) from every index; returns how many. */
export async function pruneExpired(store: MemoryStore, namespace?: string): Promise<number> {
  return store.deleteExpired(namespace === undefined ? undefined : parseOrThrow(NamespaceSchema, namespace, "namespace"));
}
