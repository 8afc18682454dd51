/**
 * Input checks every store adapter runs at its boundary, so that the same bad call gets the same
 * ValidationError (same `field`) from every backend. Nothing here touches a store.
 */
import { z } from "zod";
import { parseOrThrow, ValidationError } from "../core/errors.js";
import { DocumentIdSchema, MAX_ID_CHARS, MAX_TEXT_CHARS, MemoryEntrySchema, NamespaceSchema, OriginSchema, type MemoryEntry } from "../memory/entry.js";
import { decodeListCursor, type ListPosition } from "./list-cursor.js";
import { MAX_LIST_LIMIT, MemoryFilterSchema, NamespaceSettingsSchema, type MemoryFilter, type NamespaceSettings } from "./port.js";

/** Largest k any search accepts: the views ask for tens, a thousand is already a full page of memories. */
export const MAX_SEARCH_K = 1000;
/** Longest lexical query accepted, in characters (the longest memory text; a question is far shorter). */
export const MAX_QUERY_CHARS = MAX_TEXT_CHARS;
/** Most ids one get/delete/documentVersions call accepts. */
export const MAX_IDS_PER_CALL = 100_000;

export function validateNamespace(namespace: unknown): string {
  return parseOrThrow(NamespaceSchema, namespace, "namespace");
}

const KSchema = z
  .number({ error: "k is required and must be a number" })
  .int("k must be an integer")
  .min(1, "k must be at least 1")
  .max(MAX_SEARCH_K, `k must be at most ${MAX_SEARCH_K}`);

export function validateK(k: unknown): number {
  return parseOrThrow(KSchema, k, "k");
}

const IdListSchema = z
  .array(z.string({ error: "id must be a string" }).min(1, "id must not be empty").max(MAX_ID_CHARS, `id must be at most ${MAX_ID_CHARS} characters`), {
    error: "expected an array of ids",
  })
  .max(MAX_IDS_PER_CALL, `at most ${MAX_IDS_PER_CALL} ids per call`);

/** A list of entry ids, duplicates removed, first occurrence order kept. */
export function validateIds(ids: unknown, field = "ids"): string[] {
  return [...new Set(parseOrThrow(IdListSchema, ids, field))];
}

const DocumentIdListSchema = z
  .array(DocumentIdSchema, { error: "expected an array of document ids" })
  .max(MAX_IDS_PER_CALL, `at most ${MAX_IDS_PER_CALL} ids per call`);

/** A list of document ids (the entries' own limit), duplicates removed, first occurrence order kept. */
export function validateDocumentIds(ids: unknown, field = "documentIds"): string[] {
  return [...new Set(parseOrThrow(DocumentIdListSchema, ids, field))];
}

export function validateDocumentId(id: unknown): string {
  return parseOrThrow(DocumentIdSchema, id, "documentId");
}

export function validateOrigin(origin: unknown): string {
  return parseOrThrow(OriginSchema, origin, "origin");
}

export function validateFilter(filter: unknown, field = "filter"): MemoryFilter {
  return parseOrThrow(MemoryFilterSchema, filter, field);
}

/**
 * The options of a dense or lexical search: `k` first, then the optional filter (so a call with both
 * wrong reports `k`). Missing options are reported as a missing `k`.
 */
export function validateSearchOptions(options: unknown): { k: number; filter: MemoryFilter | undefined } {
  const { k, filter } = (options ?? {}) as { k?: unknown; filter?: unknown };
  return { k: validateK(k), filter: filter === undefined ? undefined : validateFilter(filter) };
}

const LimitSchema = z
  .number({ error: "limit is required and must be a number" })
  .int("limit must be an integer")
  .min(1, "limit must be at least 1")
  .max(MAX_LIST_LIMIT, `limit must be at most ${MAX_LIST_LIMIT}`);

/** The options of a list call, checked in the order limit, filter, cursor; missing options are reported as a missing `limit`. */
export function validateListOptions(options: unknown): { limit: number; filter: MemoryFilter | undefined; after: ListPosition | undefined } {
  const { limit, filter, cursor } = (options ?? {}) as { limit?: unknown; filter?: unknown; cursor?: unknown };
  return {
    limit: parseOrThrow(LimitSchema, limit, "limit"),
    filter: filter === undefined ? undefined : validateFilter(filter),
    after: cursor === undefined ? undefined : decodeListCursor(cursor),
  };
}

/** An optional clock (epoch ms), as the adapters' open options take it for tests; checked to be callable. */
export const ClockSchema = z
  .custom<() => number>((value) => typeof value === "function", "clock must be a function returning epoch ms")
  .optional()
  .describe("Epoch-ms clock that decides which entries have expired, read on every call (default Date.now); for tests");

export function validateSettings(settings: unknown): NamespaceSettings {
  return parseOrThrow(NamespaceSettingsSchema, settings, "settings");
}

const QuerySchema = z
  .string({ error: "query must be a string" })
  .max(MAX_QUERY_CHARS, `query must be at most ${MAX_QUERY_CHARS} characters`);

export function validateQuery(query: unknown): string {
  return parseOrThrow(QuerySchema, query, "query");
}

/**
 * A dense vector of the store's dimension with finite components. Returns a copy as float64.
 * `field` names the vector in errors (`vector`, `records.3.vector`); a bad component is named
 * by its index (`records.3.vector.7`).
 */
export function validateVector(vector: unknown, dimension: number, field: string): Float64Array {
  if (!Array.isArray(vector) && !(vector instanceof Float32Array) && !(vector instanceof Float64Array)) {
    throw new ValidationError(field, "vector must be an array of numbers");
  }
  const values: ArrayLike<unknown> = vector;
  if (values.length !== dimension) {
    throw new ValidationError(field, `vector has ${values.length} dimensions, the store expects ${dimension}`, {
      expected: dimension,
      received: values.length,
    });
  }
  const copy = new Float64Array(dimension);
  for (let index = 0; index < dimension; index += 1) {
    const value = values[index];
    if (typeof value !== "number" || !Number.isFinite(value)) {
      throw new ValidationError(`${field}.${index}`, "vector values must be finite numbers");
    }
    copy[index] = value;
  }
  return copy;
}

/**
 * Stores compare `expiresAtMs`, people read `expiresAt`: both or neither, the same instant. A past
 * expiry is accepted here (normalizeEntry refuses it for new memories; a store keeps what it is given).
 */
function checkExpiry(entry: MemoryEntry, field: string): void {
  const { expiresAt, expiresAtMs } = entry;
  if (expiresAt === undefined && expiresAtMs === undefined) return;
  if (expiresAt === undefined) throw new ValidationError(`${field}.expiresAt`, "expiresAt is required when expiresAtMs is set");
  if (expiresAtMs === undefined) throw new ValidationError(`${field}.expiresAtMs`, "expiresAtMs is required when expiresAt is set");
  if (Date.parse(expiresAt) !== expiresAtMs) {
    throw new ValidationError(`${field}.expiresAtMs`, `expiresAtMs ${expiresAtMs} is not the instant of expiresAt ${expiresAt}`);
  }
}

export interface ValidatedRecord<V = Float64Array> {
  entry: MemoryEntry;
  vector: V;
}

/**
 * Checks a whole upsert batch before anything is written: each entry is a valid MemoryEntry of
 * `namespace`, its timestamp and timestampMs agree (and expiresAt and expiresAtMs), ids are unique within the batch, each vector has
 * the store's dimension and only finite values. Throws on the first problem, naming it (`records.3.vector`).
 * `convert` turns each checked vector into what the store writes, record by record: a large batch then
 * never holds every float64 copy at once (400 MB for 100k 512-d vectors).
 */
export function validateRecords(namespace: string, records: unknown, dimension: number): ValidatedRecord[];
export function validateRecords<V>(
  namespace: string,
  records: unknown,
  dimension: number,
  convert: (vector: Float64Array, field: string) => V,
): ValidatedRecord<V>[];
export function validateRecords<V>(
  namespace: string,
  records: unknown,
  dimension: number,
  convert?: (vector: Float64Array, field: string) => V,
): ValidatedRecord<V | Float64Array>[] {
  if (!Array.isArray(records)) throw new ValidationError("records", "records must be an array");
  const seen = new Set<string>();
  return records.map((record: unknown, index) => {
    const field = `records.${index}`;
    if (typeof record !== "object" || record === null) throw new ValidationError(field, "record must be an object { entry, vector }");
    const { entry: rawEntry, vector: rawVector } = record as { entry?: unknown; vector?: unknown };
    const entry = parseOrThrow(MemoryEntrySchema, rawEntry, `${field}.entry`);
    if (entry.namespace !== namespace) {
      throw new ValidationError(`${field}.entry.namespace`, `entry belongs to namespace "${entry.namespace}", not "${namespace}"`);
    }
    // Filters read timestampMs, people read timestamp: they must be the same instant.
    if (Date.parse(entry.timestamp) !== entry.timestampMs) {
      throw new ValidationError(`${field}.entry.timestampMs`, `timestampMs ${entry.timestampMs} is not the instant of timestamp ${entry.timestamp}`);
    }
    checkExpiry(entry, `${field}.entry`);
    if (seen.has(entry.id)) throw new ValidationError(`${field}.entry.id`, `duplicate id "${entry.id}" in one batch`);
    seen.add(entry.id);
    const vector = validateVector(rawVector, dimension, `${field}.vector`);
    return { entry, vector: convert ? convert(vector, `${field}.vector`) : vector };
  });
}
