/**
 * Store factory: one configuration type for every adapter, and the environment mapping.
 *
 * Environment variables (read by {@link storeConfigFromEnv}):
 * - `RECALLGRAPH_STORE`  `sqlite` (default) or `qdrant`
 * - `RECALLGRAPH_DB`     sqlite file path, or `:memory:` (default `./.recallgraph/memory.db`)
 * - `QDRANT_URL`         Qdrant REST endpoint, e.g. `http://localhost:6333` (required for qdrant)
 * - `QDRANT_API_KEY`     Qdrant API key (optional)
 * - `QDRANT_COLLECTION`  collection name (default `recallgraph`)
 * - `QDRANT_SHARDS`, `QDRANT_REPLICATION_FACTOR`, `QDRANT_WRITE_CONSISTENCY`
 *                        shards, replicationFactor, writeConsistencyFactor of a collection recallgraph
 *                        creates (positive integers; unset: Qdrant's defaults)
 * - `RECALLGRAPH_READ_ONLY` `1` (or true/yes/on) opens the store read-only, whichever kind (`readOnly`)
 * - `RECALLGRAPH_VECTOR_INDEX` sqlite: `exact` (default) or `hnsw`, dense search of large namespaces (`vectorIndex`)
 * - `RECALLGRAPH_HNSW_MIN_ENTRIES` sqlite, with `hnsw`: the smallest namespace given an index (`hnswMinEntries`,
 *                        default 50000; smaller ones are searched exactly)
 */
import { existsSync } from "node:fs";
import { z } from "zod";
import { readBoolean, readChoice, readPositiveInteger, readRequired, readVariable, type Environment, type EnvVariable } from "../core/env.js";
import { parseOrThrow } from "../core/errors.js";
import type { MemoryStore } from "./port.js";
import type { EmbeddingSpec } from "../text/embedder.js";
import type { ClusterSetting } from "./qdrant-layout.js";
import { openQdrantStore } from "./qdrant.js";
import { checkWriteConsistency, QdrantCacheFields, QdrantClusterFields, QdrantServerFields } from "./qdrant-fields.js";
import { canWriteStoreFile } from "./sqlite/store-file.js";
import { openSqliteStore } from "./sqlite/store.js";
import { VECTOR_INDEX_KINDS, VectorSearchFields, type VectorIndexKind } from "./sqlite/vector-search-fields.js";
import { LexicalIndexFields } from "./sqlite/lexical-index-fields.js";

export { DEFAULT_QDRANT_COLLECTION } from "./qdrant-fields.js";
export const DEFAULT_SQLITE_PATH = "./.recallgraph/memory.db";

/** The same choice for every kind: read, never write; absent means writable. */
const ReadOnlyField = z
  .boolean()
  .optional()
  .describe(
    "Open the store without writing to it: nothing is created, migrated or altered, and every write operation " +
      "(upsert, delete, clearNamespace, setSettings, deleteExpired) throws ReadOnlyStoreError",
  );

export const SqliteStoreConfigSchema = z.strictObject({
  kind: z.literal("sqlite"),
  // Not SqliteStoreOptionsSchema's path: that one words a missing path differently ("path is required").
  path: z.string().min(1, "path must not be empty"),
  readOnly: ReadOnlyField,
  // The adapter's own fields, optional here: unset ones stay unset, and the adapter applies its defaults.
  vectorIndex: VectorSearchFields.vectorIndex.optional(),
  hnswMinEntries: VectorSearchFields.hnswMinEntries.optional(),
  hnsw: VectorSearchFields.hnsw.optional(),
  vectorCacheMiB: VectorSearchFields.vectorCacheMiB.optional(),
  lexicalCacheEntries: LexicalIndexFields.lexicalCacheEntries.optional(),
});

export const QdrantStoreConfigSchema = z
  .strictObject({
    kind: z.literal("qdrant"),
    ...QdrantServerFields,
    // Not the adapter's rule: its name pattern and default apply when the store opens, and an unset collection stays unset here.
    collection: z.string().min(1).optional(),
    readOnly: ReadOnlyField,
    // Unset here stays unset: the adapter applies its default.
    namespaceCacheMs: QdrantCacheFields.namespaceCacheMs.optional(),
    ...QdrantClusterFields,
  })
  .superRefine(checkWriteConsistency);

/** Which store to open and where. */
export const StoreConfigSchema = z.discriminatedUnion("kind", [SqliteStoreConfigSchema, QdrantStoreConfigSchema]);
export type StoreConfig = z.infer<typeof StoreConfigSchema>;

/** Opens the configured store for `embedding` (a store built by another embedder refuses to open). */
export async function openStore(config: StoreConfig, embedding: EmbeddingSpec): Promise<MemoryStore> {
  const parsed = parseOrThrow(StoreConfigSchema, config, "store");
  switch (parsed.kind) {
    case "sqlite": {
      const { kind: _kind, readOnly, ...options } = parsed;
      return openSqliteStore({ ...options, embedding, readOnly: readOnly === true });
    }
    case "qdrant":
      return openQdrantStore({
        url: parsed.url,
        embedding,
        ...(parsed.apiKey !== undefined ? { apiKey: parsed.apiKey } : {}),
        ...(parsed.collection !== undefined ? { collection: parsed.collection } : {}),
        readOnly: parsed.readOnly === true,
        ...(parsed.namespaceCacheMs !== undefined ? { namespaceCacheMs: parsed.namespaceCacheMs } : {}),
        // Unset ones pass as undefined, which the adapter reads as "leave it to Qdrant".
        shards: parsed.shards,
        replicationFactor: parsed.replicationFactor,
        writeConsistencyFactor: parsed.writeConsistencyFactor,
      });
  }
}

const STORE_KINDS = ["sqlite", "qdrant"] as const;

/** Environment variable of each cluster setting. */
const CLUSTER_VARIABLES: Record<ClusterSetting, EnvVariable> = {
  shards: "QDRANT_SHARDS",
  replicationFactor: "QDRANT_REPLICATION_FACTOR",
  writeConsistencyFactor: "QDRANT_WRITE_CONSISTENCY",
};

/** The store configuration the environment describes (see the module comment for the variables). */
export function storeConfigFromEnv(env: Environment = process.env): StoreConfig {
  const kind = readChoice(env, "RECALLGRAPH_STORE", STORE_KINDS) ?? "sqlite";
  // Set only when asked for, so a writable configuration reads as it always has.
  const readOnly: { readOnly?: true } = readBoolean(env, "RECALLGRAPH_READ_ONLY") === true ? { readOnly: true } : {};
  if (kind === "sqlite") {
    const path = readVariable(env, "RECALLGRAPH_DB") ?? DEFAULT_SQLITE_PATH;
    return parseOrThrow(StoreConfigSchema, { kind, path, ...readOnly, ...vectorIndexFromEnv(env) }, "RECALLGRAPH_DB");
  }
  const config: Record<string, string | number | boolean> = { kind, url: readRequired(env, "QDRANT_URL", "when RECALLGRAPH_STORE=qdrant"), ...readOnly };
  const apiKey = readVariable(env, "QDRANT_API_KEY");
  const collection = readVariable(env, "QDRANT_COLLECTION");
  if (apiKey) config.apiKey = apiKey;
  if (collection) config.collection = collection;
  for (const [setting, variable] of Object.entries(CLUSTER_VARIABLES)) {
    // Read here, not left to the schema, so a bad value is reported under the variable's own name.
    const value = readPositiveInteger(env, variable);
    if (value !== undefined) config[setting] = value;
  }
  return parseOrThrow(StoreConfigSchema, config, "QDRANT");
}

/** The sqlite store's vector index settings the environment sets (absent ones left to the adapter's defaults). */
function vectorIndexFromEnv(env: Environment): { vectorIndex?: VectorIndexKind; hnswMinEntries?: number } {
  const vectorIndex = readChoice(env, "RECALLGRAPH_VECTOR_INDEX", VECTOR_INDEX_KINDS);
  const hnswMinEntries = readPositiveInteger(env, "RECALLGRAPH_HNSW_MIN_ENTRIES");
  return { ...(vectorIndex !== undefined ? { vectorIndex } : {}), ...(hnswMinEntries !== undefined ? { hnswMinEntries } : {}) };
}

/**
 * The configuration to read a store with: read-only when it says so, and also when it is a sqlite file
 * this process cannot write (the file or its folder), which a writable opening would fail on.
 * A Qdrant store's permissions are the server's to decide: its configuration is returned as given.
 */
export function readingConfig(config: StoreConfig): StoreConfig {
  if (config.kind !== "sqlite" || config.readOnly || config.path === ":memory:" || !existsSync(config.path)) return config;
  return canWriteStoreFile(config.path) ? config : { ...config, readOnly: true };
}
