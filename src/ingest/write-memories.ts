import { z } from "zod";
import { parseOrThrow, ValidationError } from "../core/errors.js";
import type { Embedder } from "../text/embedder.js";
import { listPages } from "../stores/list-pages.js";
import type { MemoryRecord, MemoryStore } from "../stores/port.js";
import { MAX_IDS_PER_CALL, validateRecords } from "../stores/validation.js";
import { entryOf, MemoryInputSchema, NamespaceSchema, type MemoryEntry } from "../memory/entry.js";
import { withNoteChanges } from "./note-changes.js";
import { oneSaveAtATime } from "./save-queue.js";
import { fillMissingFields } from "./text-fields.js";

/**
 * Names item `index` of a write in an error, with `field` the field as the caller wrote it ("" for
 * the item itself). The default is `entries.3.timestamp`; a file names its line (`line 250: timestamp`).
 */
export type ItemField = (index: number, field: string) => string;

export interface WriteOptions {
  /** Texts embedded per embedder call (the write itself is one store call, whatever the size). */
  batchSize?: number;
  /**
   * Called after each embedded batch with the number prepared so far; the last call, with the total,
   * comes only once everything is written.
   */
  onProgress?: (done: number, total: number) => void;
  /**
   * Called once everything is embedded and checked, just before the one store write, with the number
   * of entries: that write takes a good part of a large call (about half of 100k entries), so a progress
   * display can say it is storing rather than seem stuck.
   */
  onStore?: (total: number) => void;
  /** Clock for createdAt/updatedAt and missing timestamps (tests pin it). */
  now?: number;
  /** How errors name an item (default `entries.N.field`). */
  itemField?: ItemField;
  /**
   * Link the notes that say a change to the earlier notes they replace, where their writer left
   * `supersedes` out (note-changes.ts). Writers of notes set it (writeNotes); a file's import, a
   * document's parts and a dialogue's turns (linked by its own builder) do not.
   */
  linkChanges?: boolean;
}

/** The numbers of WriteOptions and ReembedOptions, checked before anything is read or embedded. */
const WriteNumbersSchema = z.object({
  batchSize: z
    .number({ error: "batchSize must be a whole number of 1 or more" })
    .int("batchSize must be a whole number").positive("batchSize must be at least 1").optional().describe("Texts embedded per embedder call"),
  now: z
    .number({ error: "now must be a finite number of epoch milliseconds" })
    .int("now must be a whole number of epoch milliseconds")
    .min(-8.64e15, "now is out of range")
    .max(8.64e15, "now is out of range")
    .optional()
    .describe("Epoch ms for createdAt/updatedAt and missing timestamps"),
});

/** Throws a ValidationError naming the option (`now`, `batchSize`) that is not a number the write can use. */
function checkWriteNumbers(options: { batchSize?: number | undefined; now?: number | undefined }): void {
  parseOrThrow(WriteNumbersSchema, { batchSize: options.batchSize, now: options.now });
}

/** A write whose every entry is validated and embedded: what is left is one store call. */
export interface PreparedWrite {
  namespace: string;
  records: MemoryRecord[];
}

const entriesField: ItemField = (index, field) => [`entries.${index}`, field].filter(Boolean).join(".");

/**
 * The one way memories are written, all or nothing: every input gets the fields its text gives where it
 * left them out (keywords, persons, entities: text-fields.ts), and is normalised and checked (with the
 * store's own checks, so the store never is the first to refuse a caller's value), then every batch
 * is embedded, and only then is everything written in one `upsert` call (one transaction in sqlite).
 * A bad input or a failing embedder therefore writes nothing. Returns the stored entries in input order.
 *
 * Size: the whole call is held in memory until it is written, and sqlite writes it in one transaction.
 * Measured (sqlite file store, hash embedder, 512-d, ~65-character texts, Node 20): 10k entries peak
 * at 0.30 GB RSS and take 2.3 s; 100k entries take ~25 s, about half of it the single transaction, and
 * peak at 1.26 GB RSS (0.21 GB before the call): ~10 KB per entry, mostly the vectors as JS arrays
 * (100k x 512 doubles = 410 MB) and the store's float32 rows (205 MB), each row made as its vector is
 * checked. It grows linearly with entries and dimension; 100k is the largest call measured, and callers
 * with more should split it into calls of at most 100k, each all or nothing on its own (a caller who
 * minds the peak, smaller: the speed benchmark writes 10k per call).
 */
export async function writeMemories(
  store: MemoryStore,
  embedder: Embedder,
  namespace: string,
  inputs: readonly unknown[],
  options: WriteOptions = {},
): Promise<MemoryEntry[]> {
  const prepared = await prepareMemories(store, embedder, namespace, inputs, options);
  options.onStore?.(prepared.records.length);
  await commitMemories(store, prepared);
  options.onProgress?.(prepared.records.length, prepared.records.length);
  return prepared.records.map((record) => record.entry);
}

/**
 * Notes, as the library's `remember` and the save tools write them: writeMemories with `linkChanges` on
 * unless the caller turns it off, one write at a time per namespace in this process (save-queue.ts), so
 * two saves at once each see the other's notes.
 */
export async function writeNotes(store: MemoryStore, embedder: Embedder, namespace: string, inputs: readonly unknown[], options: WriteOptions = {}): Promise<MemoryEntry[]> {
  return oneSaveAtATime(store, namespace, () => writeMemories(store, embedder, namespace, inputs, { linkChanges: true, ...options }));
}

/**
 * Everything of writeMemories but the write: normalise, check, embed. Nothing is written; a caller
 * with several namespaces prepares them all before committing any.
 */
export async function prepareMemories(
  store: MemoryStore,
  embedder: Embedder,
  namespace: string,
  inputs: readonly unknown[],
  options: WriteOptions = {},
): Promise<PreparedWrite> {
  const ns = parseOrThrow(NamespaceSchema, namespace, "namespace");
  checkWriteNumbers(options);
  const itemField = options.itemField ?? entriesField;
  const normalized = normalizeAll(ns, inputs, options.now ?? Date.now(), itemField);
  const entries = options.linkChanges ? await withNoteChanges(store, ns, normalized, (index) => givesSupersedes(inputs[index])) : normalized;
  await keepCreatedAt(store, ns, entries);
  const vectors = await embedAll(embedder, entries, options);
  const records = entries.map((entry, i) => ({ entry, vector: vectors[i] ?? [] }));
  checkLikeTheStore(ns, records, store.embedding.dimension, itemField);
  return { namespace: ns, records };
}

/** Writes a prepared call: one upsert, which the port promises is all or nothing. */
export async function commitMemories(store: MemoryStore, prepared: PreparedWrite): Promise<void> {
  if (prepared.records.length > 0) await store.upsert(prepared.namespace, prepared.records);
}

export interface ReembedOptions {
  /** Only this namespace (default: every namespace of the store). */
  namespace?: string;
  /** Texts embedded per embedder call (default: as for writeMemories). */
  batchSize?: number;
  /** Called after each page is written, with the memories of the namespace done so far and its total. */
  onProgress?: (namespace: string, done: number, total: number) => void;
}

/**
 * Embeds every stored memory's text again with `embedder` and writes the new vectors; nothing else of
 * a memory changes (its ids, times and fields are the store's). For a store whose embedder is the
 * same model but now embeds some texts differently (USE-lite embeds texts of over 100 words by their
 * sentences): until then such entries keep the vectors they were written with. A page at a time
 * (MAX_LIST_LIMIT memories, one upsert each), so memory stays bounded and an interrupted run can simply
 * be run again. A memory rewritten by someone else meanwhile (its text no longer the one embedded) is
 * left as that write left it, with the vector of its own text. Expired memories, never returned, keep
 * theirs until pruned. Returns how many memories each namespace had re-embedded.
 */
export async function reembedMemories(store: MemoryStore, embedder: Embedder, options: ReembedOptions = {}): Promise<Record<string, number>> {
  const asked = options.namespace === undefined ? undefined : parseOrThrow(NamespaceSchema, options.namespace, "namespace");
  checkWriteNumbers(options);
  const held = (await store.stats()).namespaces;
  const counts: Record<string, number> = {};
  for (const namespace of asked === undefined ? Object.keys(held) : [asked]) {
    counts[namespace] = await reembedNamespace(store, embedder, namespace, held[namespace] ?? 0, options);
  }
  return counts;
}

/** One namespace, page by page; `total` (the store's count, expired memories included) only sizes the progress. */
async function reembedNamespace(store: MemoryStore, embedder: Embedder, namespace: string, total: number, options: ReembedOptions): Promise<number> {
  let done = 0;
  for await (const page of listPages(store, namespace)) {
    const vectors = await embedAll(embedder, page.entries, options.batchSize === undefined ? {} : { batchSize: options.batchSize });
    const embedded = new Map(page.entries.map((entry, i) => [entry.id, { text: entry.text, vector: vectors[i] ?? [] }]));
    const current = await store.get(namespace, page.entries.map((entry) => entry.id));
    const records = current.flatMap((entry) => {
      const fresh = embedded.get(entry.id);
      return fresh && fresh.text === entry.text ? [{ entry, vector: fresh.vector }] : [];
    });
    checkLikeTheStore(namespace, records, store.embedding.dimension, entriesField);
    await commitMemories(store, { namespace, records });
    done += records.length;
    options.onProgress?.(namespace, done, Math.max(total, done));
  }
  return done;
}

function normalizeAll(ns: string, inputs: readonly unknown[], now: number, itemField: ItemField): MemoryEntry[] {
  const entries = inputs.map((input, index) =>
    relabel(index, itemField, () => {
      const field = entriesField(index, "");
      return entryOf(ns, fillMissingFields(parseOrThrow(MemoryInputSchema, input, field)), { field, now });
    }),
  );
  const duplicate = firstDuplicateId(entries);
  if (duplicate) throw new ValidationError(itemField(duplicate.index, "id"), `duplicate id "${duplicate.id}" in one write`);
  return entries;
}

/** Whether a writer's input says what it supersedes, even nothing (`supersedes: []`). */
function givesSupersedes(input: unknown): boolean {
  return typeof input === "object" && input !== null && (input as { supersedes?: unknown }).supersedes !== undefined;
}

/** A replaced entry keeps the createdAt of the one it replaces. */
async function keepCreatedAt(store: MemoryStore, ns: string, entries: MemoryEntry[]): Promise<void> {
  const ids = entries.map((entry) => entry.id);
  const existing = new Map<string, MemoryEntry>();
  // `get` takes at most MAX_IDS_PER_CALL ids; a larger write asks in parts.
  for (let start = 0; start < ids.length; start += MAX_IDS_PER_CALL) {
    for (const entry of await store.get(ns, ids.slice(start, start + MAX_IDS_PER_CALL))) existing.set(entry.id, entry);
  }
  for (const entry of entries) {
    const previous = existing.get(entry.id);
    if (previous) entry.createdAt = previous.createdAt;
  }
}

async function embedAll(embedder: Embedder, entries: readonly MemoryEntry[], options: WriteOptions): Promise<number[][]> {
  const batchSize = Math.max(1, options.batchSize ?? 64);
  const vectors: number[][] = [];
  for (let start = 0; start < entries.length; start += batchSize) {
    const batch = entries.slice(start, start + batchSize);
    vectors.push(...(await embedder.embeddings.embedDocuments(batch.map((entry) => entry.text))));
    // The total is reported once written, not when merely embedded.
    if (vectors.length < entries.length) options.onProgress?.(vectors.length, entries.length);
  }
  return vectors;
}

/**
 * Runs the store's own record checks before anything is written, so nothing the caller wrote is
 * first refused by the store. An entry problem is named as the caller's item and field; a vector
 * problem is the embedder's, not the caller's, and keeps the store's name.
 */
function checkLikeTheStore(ns: string, records: readonly MemoryRecord[], dimension: number, itemField: ItemField): void {
  // In slices: the check copies each vector, and the copies of a 100k-entry call would be 400 MB.
  for (let start = 0; start < records.length; start += CHECK_SLICE) {
    try {
      validateRecords(ns, records.slice(start, start + CHECK_SLICE), dimension);
    } catch (error) {
      const match = error instanceof ValidationError ? /^records\.(\d+)(.*)$/.exec(error.field) : null;
      if (!match || !(error instanceof ValidationError)) throw error;
      const index = start + Number(match[1]);
      const rest = match[2] ?? "";
      if (!rest.startsWith(".entry")) throw new ValidationError(`records.${index}${rest}`, reasonOf(error));
      throw new ValidationError(itemField(index, rest.replace(/^\.entry\.?/, "")), reasonOf(error));
    }
  }
}

const CHECK_SLICE = 1024;

/** Runs `check` for item `index`, renaming a ValidationError's `entries.N...` field with `itemField`. */
function relabel<T>(index: number, itemField: ItemField, check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    const prefix = entriesField(index, "");
    if (itemField === entriesField || !(error.field === prefix || error.field.startsWith(`${prefix}.`))) throw error;
    throw new ValidationError(itemField(index, error.field.slice(prefix.length + 1)), reasonOf(error));
  }
}

/** A ValidationError's message without its `field: ` prefix. */
export function reasonOf(error: ValidationError): string {
  return error.field && error.message.startsWith(`${error.field}: `) ? error.message.slice(error.field.length + 2) : error.message;
}

function firstDuplicateId(entries: readonly MemoryEntry[]): { id: string; index: number } | undefined {
  const seen = new Set<string>();
  for (const [index, entry] of entries.entries()) {
    if (seen.has(entry.id)) return { id: entry.id, index };
    seen.add(entry.id);
  }
  return undefined;
}
