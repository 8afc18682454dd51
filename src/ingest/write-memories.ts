import { parseOrThrow, ValidationError } from "../core/errors.js";
import type { Embedder } from "../text/embedder.js";
import type { MemoryStore } from "../stores/port.js";
import { NamespaceSchema, normalizeEntry, type MemoryEntry } from "../memory/entry.js";

export interface WriteOptions {
  /** Texts embedded (and written) per batch. */
  batchSize?: number;
  /** Called after each batch is stored with the number written so far. */
  onProgress?: (written: number, total: number) => void;
  /** Clock for createdAt/updatedAt and missing timestamps (tests pin it). */
  now?: number;
}

/**
 * The one way memories are written: validate every input first (a bad one rejects the whole call and
 * nothing is written), then embed in batches and upsert each batch with its vectors.
 * Returns the stored entries in input order.
 */
export async function writeMemories(
  store: MemoryStore,
  embedder: Embedder,
  namespace: string,
  inputs: readonly unknown[],
  options: WriteOptions = {},
): Promise<MemoryEntry[]> {
  const ns = parseOrThrow(NamespaceSchema, namespace, "namespace");
  const now = options.now ?? Date.now();
  const entries = inputs.map((input, index) => normalizeEntry(ns, input, { field: `entries.${index}`, now }));
  const duplicate = firstDuplicateId(entries);
  if (duplicate) throw new ValidationError(`entries.${duplicate.index}.id`, `duplicate id "${duplicate.id}" in one write`);

  const existing = new Map((await store.get(ns, entries.map((e) => e.id))).map((e) => [e.id, e]));
  for (const entry of entries) {
    const previous = existing.get(entry.id);
    if (previous) entry.createdAt = previous.createdAt;
  }

  const batchSize = Math.max(1, options.batchSize ?? 64);
  for (let start = 0; start < entries.length; start += batchSize) {
    const batch = entries.slice(start, start + batchSize);
    const vectors = await embedder.embeddings.embedDocuments(batch.map((entry) => entry.text));
    await store.upsert(
      ns,
      batch.map((entry, i) => ({ entry, vector: vectors[i] ?? [] })),
    );
    options.onProgress?.(Math.min(start + batch.length, entries.length), entries.length);
  }
  return entries;
}

function firstDuplicateId(entries: readonly MemoryEntry[]): { id: string; index: number } | undefined {
  const seen = new Set<string>();
  for (const [index, entry] of entries.entries()) {
    if (seen.has(entry.id)) return { id: entry.id, index };
    seen.add(entry.id);
  }
  return undefined;
}
