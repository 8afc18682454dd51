/**
 * How recallgraph lays memories out in one Qdrant collection: vector names, payload fields and their
 * indexes, point ids, and the namespace-scoped filters every read and delete goes through.
 * Pure functions only (no I/O), so the request-shape tests can check them directly.
 */
import { createHash } from "node:crypto";
import type { Schemas } from "@qdrant/js-client-rest";
import { z } from "zod";
import { MemoryEntrySchema, type MemoryEntry } from "../memory/entry.js";
import { foldName, type MemoryFilter } from "./port.js";
import { BM25_B } from "../text/bm25.js";
import { EmbeddingSpecSchema, type EmbeddingSpec } from "../text/embedder.js";

/** Named dense vector (cosine) holding the embedder's vector. */
export const DENSE_VECTOR = "dense";
/**
 * Named sparse vector holding BM25 saturated term frequencies, scored by plain dot product (no `idf`
 * modifier: Qdrant's idf counts the whole collection). The query vector carries the idf, counted in
 * the searched namespace (see PAYLOAD.lexicalTerms).
 */
export const LEXICAL_VECTOR = "lexical";
/** Key under the collection's `metadata` where the embedding spec and layout version live. */
export const COLLECTION_METADATA_KEY = "recallgraph";
/**
 * Bumped when the payload layout changes incompatibly; a collection with another version is refused.
 * 2: the sparse vector lost the `idf` modifier and memory points gained `lexical_terms` (layout 1's
 * points lack it, so their namespace's idf cannot be counted).
 */
export const LAYOUT_VERSION = 2;

/**
 * The kinds of point in a namespace, told apart by the `record` payload field: memory entries, and
 * one settings point per namespace (no vectors). A third kind, `record: "lease"`, belongs to no
 * namespace (see LeasePayload), so no namespace-scoped read or delete can reach it.
 */
export type RecordKind = "memory" | "settings";

/** Payload field names (the entry's own fields are stored as-is beside these). */
export const PAYLOAD = {
  record: "record",
  namespace: "namespace",
  id: "id",
  timestampMs: "timestampMs",
  personsLowerCase: "persons_lc",
  entitiesLowerCase: "entities_lc",
  /** Lower-cased location, used to confirm a substring match client-side. */
  locationLowerCase: "location_lc",
  /** Every 1-, 2- and 3-character substring of the lower-cased location: the indexed side of "contains". */
  locationGrams: "location_grams",
  persons: "persons",
  entities: "entities",
  location: "location",
  documentId: "source.documentId",
  /** The source an ingest read the memory from; matched without a payload index, within the namespace's points. */
  sourceOrigin: "source.origin",
  /** The entry's own expiry instant; absent on entries that never expire. */
  expiresAtMs: "expiresAtMs",
  /** The ids the entry supersedes (the entry's own field): who replaced an id is a keyword lookup. */
  supersedes: "supersedes",
  /** The distinct term indices of the entry's lexical vector: counting points holding a term gives its idf in one namespace. */
  lexicalTerms: "lexical_terms",
  settings: "settings",
  /** Lease points (see LeasePayload): the ingest source, its holder, and when the lease lapses. */
  origin: "origin",
  holder: "holder",
  heldUntilMs: "heldUntilMs",
} as const;

/**
 * Payload indexes created with the collection. `namespace` is the tenant key (Qdrant co-locates each
 * tenant's points); `timestampMs` needs a range index because filtered search and list order by it;
 * `expiresAtMs` one because every read excludes a range of it; `lexical_terms` an integer lookup index
 * because lexicalSearch counts the points holding each query term; `supersedes` a keyword index because
 * retrieval asks which memories replaced its hits; persons/entities/location (original
 * case) are indexed for the vocabulary facets. An index added here is created on the next open of an
 * existing collection (ensureCollection creates the missing ones), so the layout version stays.
 */
export const PAYLOAD_INDEXES: ReadonlyArray<Schemas["CreateFieldIndex"] & { field_schema: Schemas["PayloadFieldSchema"] }> = [
  { field_name: PAYLOAD.namespace, field_schema: { type: "keyword", is_tenant: true } },
  { field_name: PAYLOAD.record, field_schema: "keyword" },
  { field_name: PAYLOAD.id, field_schema: "keyword" },
  { field_name: PAYLOAD.personsLowerCase, field_schema: "keyword" },
  { field_name: PAYLOAD.entitiesLowerCase, field_schema: "keyword" },
  { field_name: PAYLOAD.locationGrams, field_schema: "keyword" },
  { field_name: PAYLOAD.persons, field_schema: "keyword" },
  { field_name: PAYLOAD.entities, field_schema: "keyword" },
  { field_name: PAYLOAD.location, field_schema: "keyword" },
  { field_name: PAYLOAD.documentId, field_schema: "keyword" },
  { field_name: PAYLOAD.supersedes, field_schema: "keyword" },
  { field_name: PAYLOAD.timestampMs, field_schema: { type: "integer", lookup: false, range: true } },
  { field_name: PAYLOAD.expiresAtMs, field_schema: { type: "integer", lookup: false, range: true } },
  { field_name: PAYLOAD.lexicalTerms, field_schema: { type: "integer", lookup: true, range: false } },
];

/** The b of a collection that records none: every collection was written with 0.75 before b was recorded. */
export const UNRECORDED_BM25_B = 0.75;

/** What the collection's `metadata.recallgraph` holds. */
export const CollectionMetadataSchema = z.object({
  layoutVersion: z.number().int().describe("The version of the collection's layout the adapter wrote"),
  embedding: EmbeddingSpecSchema.describe("The embedder the collection's vectors are made with"),
  bm25B: z
    .number()
    .min(0)
    .max(1)
    .default(UNRECORDED_BM25_B)
    .describe("BM25's length normalisation its sparse vectors were written with, which every later write keeps (a vector's weights are fixed when written)"),
});
export type CollectionMetadata = z.infer<typeof CollectionMetadataSchema>;

/**
 * How a cluster operator spreads the collection over Qdrant nodes. Each setting is applied only when
 * recallgraph creates the collection; an unset one is left to Qdrant (its default shard count is the
 * number of nodes, replication and write consistency default to 1).
 */
export interface ClusterSettings {
  shards?: number | undefined;
  replicationFactor?: number | undefined;
  writeConsistencyFactor?: number | undefined;
}
export type ClusterSetting = keyof ClusterSettings;

/** Qdrant's name of each setting: the same key in `CreateCollection` and in the collection info's `config.params`. */
export const CLUSTER_PARAMS = {
  shards: "shard_number",
  replicationFactor: "replication_factor",
  writeConsistencyFactor: "write_consistency_factor",
} as const satisfies Record<ClusterSetting, keyof Schemas["CreateCollection"] & keyof Schemas["CollectionParams"]>;
export type ClusterParam = (typeof CLUSTER_PARAMS)[ClusterSetting];

const CLUSTER_SETTINGS = Object.keys(CLUSTER_PARAMS) as ClusterSetting[];

/** The settings given, under Qdrant's names; unset ones are omitted so Qdrant applies its own defaults. */
function clusterParams(settings: ClusterSettings): Partial<Record<ClusterParam, number>> {
  const params: Partial<Record<ClusterParam, number>> = {};
  for (const setting of CLUSTER_SETTINGS) {
    const value = settings[setting];
    if (value !== undefined) params[CLUSTER_PARAMS[setting]] = value;
  }
  return params;
}

/**
 * Body of `PUT /collections/{name}`: named dense vector sized to the embedder, named sparse vector
 * without a modifier (said, not left to Qdrant's default), and the cluster settings given. Sharding
 * stays automatic (no `sharding_method: "custom"`, which would need a shard key on every write): the
 * tenant index on `namespace` keeps each namespace's points together within every shard, and needs no
 * collection-level option of its own.
 */
export function createCollectionBody(embedding: EmbeddingSpec, cluster: ClusterSettings = {}): Schemas["CreateCollection"] {
  const metadata: CollectionMetadata = { layoutVersion: LAYOUT_VERSION, embedding, bm25B: BM25_B };
  return {
    vectors: { [DENSE_VECTOR]: { size: embedding.dimension, distance: "Cosine" } },
    sparse_vectors: { [LEXICAL_VECTOR]: { modifier: "none" } },
    ...clusterParams(cluster),
    metadata: { [COLLECTION_METADATA_KEY]: metadata },
  };
}

/** One setting asked for that an existing collection does not have. */
export interface ClusterSettingDifference {
  setting: ClusterSetting;
  param: ClusterParam;
  collection: number;
  asked: number;
}

/**
 * The settings given whose value differs from the collection's `config.params`. A parameter the
 * server did not report is skipped: there is nothing to compare it with.
 */
export function clusterSettingDifferences(
  asked: ClusterSettings,
  actual: Partial<Record<ClusterParam, number | undefined>>,
): ClusterSettingDifference[] {
  return CLUSTER_SETTINGS.flatMap((setting) => {
    const param = CLUSTER_PARAMS[setting];
    const [wanted, current] = [asked[setting], actual[param]];
    if (wanted === undefined || current === undefined || wanted === current) return [];
    return [{ setting, param, collection: current, asked: wanted }];
  });
}

// ---------------------------------------------------------------------------------------------
// Point ids

/** Fixed UUID namespace of recallgraph's v5-style point ids (any constant works; it must never change). */
const POINT_ID_NAMESPACE = "cf7b909c-eb07-4177-a5e2-7320b107751c";

/** RFC 4122 version-5 UUID (SHA-1 of namespace bytes + name). */
function uuidV5(name: string, namespaceUuid: string): string {
  const namespaceBytes = Buffer.from(namespaceUuid.replace(/-/g, ""), "hex");
  const hash = createHash("sha1").update(namespaceBytes).update(name, "utf8").digest();
  const bytes = hash.subarray(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * Qdrant ids must be UUIDs or unsigned integers, so each entry's point id is derived from
 * (namespace, entry id): the same entry id in two namespaces is two points, and an upsert of an
 * existing id overwrites its point. JSON encoding keeps the pair unambiguous whatever the characters.
 */
export function memoryPointId(namespace: string, entryId: string): string {
  return uuidV5(JSON.stringify(["memory", namespace, entryId]), POINT_ID_NAMESPACE);
}

/** The one settings point of a namespace. */
export function settingsPointId(namespace: string): string {
  return uuidV5(JSON.stringify(["settings", namespace]), POINT_ID_NAMESPACE);
}

/** The one lease point of an ingest source (origins name sources across namespaces, as sqlite keys its leases). */
export function leasePointId(origin: string): string {
  return uuidV5(JSON.stringify(["lease", origin]), POINT_ID_NAMESPACE);
}

// ---------------------------------------------------------------------------------------------
// Payloads

/** A memory point's payload: the entry's own fields plus lower-cased copies for case-insensitive filters, and its lexical terms. */
export interface MemoryPayload extends MemoryEntry {
  record: "memory";
  lexical_terms: number[];
  persons_lc: string[];
  entities_lc: string[];
  location_lc?: string;
  location_grams?: string[];
}

/** Lower-casing used on both the stored side and the query side (the same as sqlite's). */
export function foldCase(text: string): string {
  return text.toLowerCase();
}

/** Every distinct substring of 1 to `maxLength` code points. */
export function substringGrams(text: string, maxLength = 3): string[] {
  const chars = Array.from(text);
  const grams = new Set<string>();
  for (let length = 1; length <= maxLength; length++) {
    for (let start = 0; start + length <= chars.length; start++) grams.add(chars.slice(start, start + length).join(""));
  }
  return [...grams];
}

/** `lexicalTerms`: the indices of the entry's sparse vector, so the counted terms are exactly the scored ones. */
export function memoryPayload(entry: MemoryEntry, lexicalTerms: readonly number[]): MemoryPayload {
  const payload: MemoryPayload = {
    ...entry,
    record: "memory",
    lexical_terms: [...lexicalTerms],
    persons_lc: [...new Set(entry.persons.map(foldName))],
    entities_lc: [...new Set(entry.entities.map(foldName))],
  };
  if (entry.location !== undefined) {
    payload.location_lc = foldCase(entry.location);
    payload.location_grams = substringGrams(payload.location_lc);
  }
  return payload;
}

/**
 * A lease point's payload: who holds the source's ingest lease and until when (epoch ms of the
 * holder's clock). A free lease has holder "" and heldUntilMs 0. No `namespace` and no vectors, so
 * only the lease requests (by point id) ever see it; its fields are its own (not `expiresAtMs`) so
 * no memory filter can match them.
 */
export const LeasePayloadSchema = z.object({
  record: z.literal("lease").describe("Marks the point as a lease, not a memory"),
  origin: z.string().describe("The ingest origin the lease is for"),
  holder: z.string().describe("Who holds it (empty: free)"),
  heldUntilMs: z.number().describe("When it may be taken over unless renewed, epoch ms"),
});
export type LeasePayload = z.infer<typeof LeasePayloadSchema>;

/** The lease point of `origin`, held by `holder` until `heldUntilMs` (a free one: "" and 0). */
export function leasePoint(origin: string, holder: string, heldUntilMs: number): Schemas["PointStruct"] {
  const payload: LeasePayload = { record: "lease", origin, holder, heldUntilMs };
  return { id: leasePointId(origin), vector: {}, payload };
}

/** The lease is `holder`'s: what a renewal or release may overwrite. */
export function leaseHeldBy(holder: string): Schemas["Filter"] {
  return { must: [{ key: PAYLOAD.holder, match: { value: holder } }] };
}

/** The lease is `holder`'s already, or lapsed by `nowMs` (free leases have lapsed at 0): what a take may overwrite. */
export function leaseTakeableBy(holder: string, nowMs: number): Schemas["Filter"] {
  return { should: [{ key: PAYLOAD.holder, match: { value: holder } }, { key: PAYLOAD.heldUntilMs, range: { lt: nowMs } }] };
}

const ENTRY_FIELDS = Object.keys(MemoryEntrySchema.shape) as ReadonlyArray<keyof MemoryEntry>;

/** The stored entry of a memory payload, or undefined when the payload is not a valid one. */
export function entryFromPayload(payload: unknown): MemoryEntry | undefined {
  if (typeof payload !== "object" || payload === null) return undefined;
  const source = payload as Record<string, unknown>;
  if (source[PAYLOAD.record] !== "memory") return undefined;
  const picked: Record<string, unknown> = {};
  for (const field of ENTRY_FIELDS) if (source[field] !== undefined) picked[field] = source[field];
  const parsed = MemoryEntrySchema.safeParse(picked);
  return parsed.success ? parsed.data : undefined;
}

// ---------------------------------------------------------------------------------------------
// Filters

declare const namespaceScoped: unique symbol;

/**
 * A filter whose first `must` condition pins one namespace. Only {@link namespaceFilter} makes one and
 * every entry-reading or deleting request of the adapter takes this type, so none can be sent without it.
 */
export type NamespaceScopedFilter = Schemas["Filter"] & { readonly [namespaceScoped]: true };

/** `must: namespace = ns [AND record = kind] AND ...extra`. `record: "any"` covers memories and settings (clearNamespace). */
export function namespaceFilter(
  namespace: string,
  record: RecordKind | "any",
  extra: readonly Schemas["Condition"][] = [],
): NamespaceScopedFilter {
  const must: Schemas["Condition"][] = [{ key: PAYLOAD.namespace, match: { value: namespace } }];
  if (record !== "any") must.push({ key: PAYLOAD.record, match: { value: record } });
  must.push(...extra);
  return { must } as NamespaceScopedFilter;
}

/**
 * The namespace's memory points holding a lexical term: every stored one, expired ones not yet pruned
 * included, as sqlite counts its stored rows.
 */
export function lexicalTermFilter(namespace: string, term: number): NamespaceScopedFilter {
  return namespaceFilter(namespace, "memory", [{ key: PAYLOAD.lexicalTerms, match: { value: term } }]);
}

/** Memories whose `supersedes` names any of `ids` (an array field matches when any element does). */
export function supersedesAnyCondition(ids: readonly string[]): Schemas["Condition"] {
  return { key: PAYLOAD.supersedes, match: { any: [...ids] } };
}

/** Entries whose expiry is at or before `nowMs`. A point without `expiresAtMs` never meets a range condition. */
export function expiredCondition(nowMs: number): Schemas["Condition"] {
  return { key: PAYLOAD.expiresAtMs, range: { lte: nowMs } };
}

/** The namespace's memories that have not expired at `nowMs` and meet `extra`: what every entry read sees. */
export function liveMemoryFilter(namespace: string, nowMs: number, extra: readonly Schemas["Condition"][] = []): NamespaceScopedFilter {
  return { ...namespaceFilter(namespace, "memory", extra), must_not: [expiredCondition(nowMs)] };
}

declare const storeWide: unique symbol;

/** The one filter sent without a namespace: the expired memories of every namespace, for `deleteExpired()`. */
export type StoreWidePruneFilter = Schemas["Filter"] & { readonly [storeWide]: true };

/** The memories expired at `nowMs`, in one namespace or (undefined) in all. */
export function expiredMemoryFilter(namespace: string | undefined, nowMs: number): NamespaceScopedFilter | StoreWidePruneFilter {
  if (namespace !== undefined) return namespaceFilter(namespace, "memory", [expiredCondition(nowMs)]);
  return { must: [{ key: PAYLOAD.record, match: { value: "memory" } }, expiredCondition(nowMs)] } as StoreWidePruneFilter;
}

/** Payload conditions of a MemoryFilter, plus the lower-cased location a hit must still contain when the indexed grams cannot decide alone. */
export interface TranslatedFilter {
  conditions: Schemas["Condition"][];
  /** Set when the location needle is longer than the stored grams: trigram conditions select candidates, this confirms the substring. */
  locationNeedle?: string;
}

/**
 * Translates the port's filter. persons/entities: any-of on the lower-cased copies (whole names).
 * location ("case-insensitive contains"): a needle of up to 3 characters is itself one of the stored
 * grams, so one exact keyword match decides; a longer needle requires all of its trigrams (a superset
 * of the true matches) and the caller confirms `location_lc.includes(needle)` on each hit.
 * timeRange: start inclusive, end exclusive, as the port says. documentId: exact keyword match.
 */
export function translateFilter(filter: MemoryFilter | undefined): TranslatedFilter {
  const conditions: Schemas["Condition"][] = [];
  if (!filter) return { conditions };
  const anyName = (key: string, names: readonly string[] | undefined): void => {
    if (!names?.length) return;
    const folded = [...new Set(names.map(foldName).filter(Boolean))];
    // A list of only blank names is still a condition, one nothing matches (stored names are never
    // empty), never a dropped one: dropping it would widen the search.
    conditions.push({ key, match: { any: folded.length ? folded : [""] } });
  };
  anyName(PAYLOAD.personsLowerCase, filter.persons);
  anyName(PAYLOAD.entitiesLowerCase, filter.entities);

  let locationNeedle: string | undefined;
  if (filter.location) {
    const needle = foldCase(filter.location);
    if (Array.from(needle).length <= 3) {
      conditions.push({ key: PAYLOAD.locationGrams, match: { value: needle } });
    } else {
      for (const gram of substringGrams(needle, 3).filter((g) => Array.from(g).length === 3)) {
        conditions.push({ key: PAYLOAD.locationGrams, match: { value: gram } });
      }
      locationNeedle = needle;
    }
  }

  const { startMs, endMs } = filter.timeRange ?? {};
  if (startMs !== undefined || endMs !== undefined) {
    const range: Schemas["Range"] = {};
    if (startMs !== undefined) range.gte = startMs;
    if (endMs !== undefined) range.lt = endMs;
    conditions.push({ key: PAYLOAD.timestampMs, range });
  }
  if (filter.documentId !== undefined) conditions.push({ key: PAYLOAD.documentId, match: { value: filter.documentId } });
  const translated: TranslatedFilter = { conditions };
  if (locationNeedle !== undefined) translated.locationNeedle = locationNeedle;
  return translated;
}

/** True when the entry satisfies the part of the filter the server could only approximate. */
export function passesClientCheck(entry: MemoryEntry, translated: TranslatedFilter): boolean {
  if (translated.locationNeedle === undefined) return true;
  return entry.location !== undefined && foldCase(entry.location).includes(translated.locationNeedle);
}
