/**
 * The Qdrant store kind: a collection on a Qdrant server or cluster.
 *
 * Environment variables (RECALLGRAPH_STORE=qdrant):
 * - `QDRANT_URL`         Qdrant REST endpoint, e.g. `http://localhost:6333` (required)
 * - `QDRANT_API_KEY`     Qdrant API key (optional)
 * - `QDRANT_COLLECTION`  collection name (default `recallgraph`)
 * - `QDRANT_SHARDS`, `QDRANT_REPLICATION_FACTOR`, `QDRANT_WRITE_CONSISTENCY`
 *                        shards, replicationFactor, writeConsistencyFactor of a collection recallgraph
 *                        creates (positive integers; unset: Qdrant's defaults)
 */
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { readPositiveInteger, readRequired, readVariable, type EnvVariable } from "../core/env.js";
import { parseOrThrow } from "../core/errors.js";
import { log } from "../core/log.js";
import { checkWriteConsistency, DEFAULT_QDRANT_COLLECTION, QdrantCacheFields, QdrantClusterFields, QdrantServerFields } from "./qdrant-fields.js";
import type { ClusterSetting } from "./qdrant-layout.js";
import { defineStoreKind, ReadOnlyField } from "./store-kind.js";

export const QdrantStoreConfigSchema = z
  .strictObject({
    kind: z.literal("qdrant").describe("A Qdrant server: one collection, each namespace a tenant of it"),
    ...QdrantServerFields,
    // Not the adapter's rule: its name pattern and default apply when the store opens, and an unset collection stays unset here.
    collection: z.string().min(1, "collection must not be empty").optional().describe("The collection's name. Unset: recallgraph"),
    readOnly: ReadOnlyField,
    // Unset here stays unset: the adapter applies its default.
    namespaceCacheMs: QdrantCacheFields.namespaceCacheMs.optional(),
    ...QdrantClusterFields,
  })
  .superRefine(checkWriteConsistency);

/** Environment variable of each cluster setting. */
const CLUSTER_VARIABLES: Record<ClusterSetting, EnvVariable> = {
  shards: "QDRANT_SHARDS",
  replicationFactor: "QDRANT_REPLICATION_FACTOR",
  writeConsistencyFactor: "QDRANT_WRITE_CONSISTENCY",
};

/** Every temporary collection's name begins with this, so a forgotten one is recognisable on the server. */
export const EVAL_COLLECTION_PREFIX = "recallgraph_eval_";

export const qdrantStoreKind = defineStoreKind({
  kind: "qdrant",
  config: QdrantStoreConfigSchema,
  fromEnv: (env, shared) => {
    const config: Record<string, string | number | boolean> = { kind: "qdrant", url: readRequired(env, "QDRANT_URL", "when RECALLGRAPH_STORE=qdrant"), ...shared };
    const apiKey = readVariable(env, "QDRANT_API_KEY");
    const collection = readVariable(env, "QDRANT_COLLECTION");
    if (apiKey) config.apiKey = apiKey;
    if (collection) config.collection = collection;
    for (const [setting, variable] of Object.entries(CLUSTER_VARIABLES)) {
      // Read here, not left to the schema, so a bad value is reported under the variable's own name.
      const value = readPositiveInteger(env, variable);
      if (value !== undefined) config[setting] = value;
    }
    return parseOrThrow(QdrantStoreConfigSchema, config, "QDRANT");
  },
  open: async (config, embedding) => {
    const { openQdrantStore } = await import("./qdrant.js");
    return openQdrantStore({
      url: config.url,
      embedding,
      ...(config.apiKey !== undefined ? { apiKey: config.apiKey } : {}),
      ...(config.collection !== undefined ? { collection: config.collection } : {}),
      readOnly: config.readOnly === true,
      ...(config.namespaceCacheMs !== undefined ? { namespaceCacheMs: config.namespaceCacheMs } : {}),
      // Unset ones pass as undefined, which the adapter reads as "leave it to Qdrant".
      shards: config.shards,
      replicationFactor: config.replicationFactor,
      writeConsistencyFactor: config.writeConsistencyFactor,
    });
  },
  where: (config) => `${config.url} (collection ${config.collection ?? DEFAULT_QDRANT_COLLECTION})`,
  // No `missing`, `forReading` or `newStoreRemover`: whether the collection is there and who may write it are the server's to say.
  temporary: z.strictObject({
    kind: z.literal("qdrant").describe("a new collection on this Qdrant server (never the configured QDRANT_COLLECTION), dropped after the run"),
    url: QdrantServerFields.url.describe("the Qdrant REST endpoint, as QDRANT_URL"),
    apiKey: QdrantServerFields.apiKey.describe("as QDRANT_API_KEY"),
    ...QdrantClusterFields,
  }),
  temporaryLabel: "qdrant (a temporary collection)",
  // Only the server's address, key and cluster settings: the configured collection and read-only belong to the user's store.
  temporaryBeside: ({ url, apiKey, shards, replicationFactor, writeConsistencyFactor }) =>
    // Unset ones pass as undefined: left to the adapter's defaults, as for the user's own store.
    ({ kind: "qdrant" as const, url, apiKey, shards, replicationFactor, writeConsistencyFactor }),
  openTemporary: async ({ kind: _kind, ...server }, embedding) => {
    const { createQdrantStore } = await import("./qdrant.js");
    // Random, so runs side by side never share one and a name cannot be one somebody chose.
    const collection = `${EVAL_COLLECTION_PREFIX}${randomBytes(8).toString("hex")}`;
    const store = await createQdrantStore({ ...server, collection, embedding });
    log.debug("eval_collection_created", { collection });
    // Already gone (someone dropped it first) is gone all the same.
    return { store, discard: async () => void (await store.drop()) };
  },
});
