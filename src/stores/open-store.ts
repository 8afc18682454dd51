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
 */
import { z } from "zod";
import { readChoice, readPositiveInteger, readRequired, readVariable, type Environment } from "../core/env.js";
import { parseOrThrow } from "../core/errors.js";
import type { MemoryStore } from "./port.js";
import type { EmbeddingSpec } from "../text/embedder.js";
import type { ClusterSetting } from "./qdrant-layout.js";
import { checkWriteConsistency, openQdrantStore, QdrantClusterFields, QdrantStoreOptionsSchema } from "./qdrant.js";
import { openSqliteStore } from "./sqlite/store.js";

export { DEFAULT_QDRANT_COLLECTION } from "./qdrant.js";
export const DEFAULT_SQLITE_PATH = "./.recallgraph/memory.db";

export const SqliteStoreConfigSchema = z.strictObject({
  kind: z.literal("sqlite"),
  // Not SqliteStoreOptionsSchema's path: that one words a missing path differently ("path is required").
  path: z.string().min(1, "path must not be empty"),
});

export const QdrantStoreConfigSchema = z
  .strictObject({
    kind: z.literal("qdrant"),
    url: QdrantStoreOptionsSchema.shape.url,
    apiKey: QdrantStoreOptionsSchema.shape.apiKey,
    // Not the adapter's rule: its name pattern and default apply when the store opens, and an unset collection stays unset here.
    collection: z.string().min(1).optional(),
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
    case "sqlite":
      return openSqliteStore({ path: parsed.path, embedding });
    case "qdrant":
      return openQdrantStore({
        url: parsed.url,
        embedding,
        ...(parsed.apiKey !== undefined ? { apiKey: parsed.apiKey } : {}),
        ...(parsed.collection !== undefined ? { collection: parsed.collection } : {}),
        // Unset ones pass as undefined, which the adapter reads as "leave it to Qdrant".
        shards: parsed.shards,
        replicationFactor: parsed.replicationFactor,
        writeConsistencyFactor: parsed.writeConsistencyFactor,
      });
  }
}

const STORE_KINDS = ["sqlite", "qdrant"] as const;

/** Environment variable of each cluster setting. */
const CLUSTER_VARIABLES: Record<ClusterSetting, string> = {
  shards: "QDRANT_SHARDS",
  replicationFactor: "QDRANT_REPLICATION_FACTOR",
  writeConsistencyFactor: "QDRANT_WRITE_CONSISTENCY",
};

/** The store configuration the environment describes (see the module comment for the variables). */
export function storeConfigFromEnv(env: Environment = process.env): StoreConfig {
  const kind = readChoice(env, "RECALLGRAPH_STORE", STORE_KINDS) ?? "sqlite";
  if (kind === "sqlite") {
    return parseOrThrow(StoreConfigSchema, { kind, path: readVariable(env, "RECALLGRAPH_DB") ?? DEFAULT_SQLITE_PATH }, "RECALLGRAPH_DB");
  }
  const config: Record<string, string | number> = { kind, url: readRequired(env, "QDRANT_URL", "when RECALLGRAPH_STORE=qdrant") };
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
