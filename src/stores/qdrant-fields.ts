/**
 * A Qdrant store's settings as configuration fields, apart from the adapter so that reading a
 * configuration never loads its client or the tokenizer. The adapter's options and the store kind's
 * configuration (qdrant-kind.ts) are both made of these.
 */
import { z } from "zod";
import type { ClusterSetting, ClusterSettings } from "./qdrant-layout.js";

/** Where the server is, and the key it asks for. */
export const QdrantServerFields = {
  url: z.url({ protocol: /^https?$/, error: "url must be an http(s) URL" }).describe("The Qdrant server, e.g. http://localhost:6333"),
  apiKey: z.string().min(1, "apiKey must not be empty").optional().describe("The server's API key, sent as the api-key header"),
};

/** The collection a Qdrant store uses when none is named. */
export const DEFAULT_QDRANT_COLLECTION = "recallgraph";

/** A cluster setting: optional (unset leaves it to Qdrant), an integer of at least 1 when given. */
function clusterCount(name: ClusterSetting, description: string) {
  const message = `${name} must be an integer >= 1`;
  return z.number({ error: message }).int(message).min(1, message).optional().describe(description);
}

/** The collection's cluster settings. Applied only when recallgraph creates the collection. */
export const QdrantClusterFields = {
  shards: clusterCount("shards", "Qdrant shard_number: how many shards the collection is split into (unset: Qdrant's default, one per node)"),
  replicationFactor: clusterCount("replicationFactor", "Qdrant replication_factor: copies of each shard (unset: Qdrant's default, 1)"),
  writeConsistencyFactor: clusterCount(
    "writeConsistencyFactor",
    "Qdrant write_consistency_factor: replicas that must apply a write before it succeeds, at most replicationFactor (unset: Qdrant's default, 1)",
  ),
};

/**
 * A write cannot be acknowledged by more replicas than a shard has. Checked only when both are given:
 * an unset replication factor is the server's default, which recallgraph cannot see before creating.
 */
export function checkWriteConsistency(settings: ClusterSettings, ctx: z.RefinementCtx): void {
  const { replicationFactor, writeConsistencyFactor } = settings;
  if (replicationFactor === undefined || writeConsistencyFactor === undefined || writeConsistencyFactor <= replicationFactor) return;
  ctx.addIssue({
    code: "custom",
    path: ["writeConsistencyFactor"],
    message: `writeConsistencyFactor (${writeConsistencyFactor}) must not exceed replicationFactor (${replicationFactor})`,
  });
}

/**
 * 5 s: the questions of a burst (an agent's turn, an evaluation) reuse one read, while another
 * process's write reaches this one's planner and idf within about the time a next question takes.
 */
export const DEFAULT_NAMESPACE_CACHE_MS = 5_000;

/** How long reads are kept (qdrant-cache.ts). */
export const QdrantCacheFields = {
  namespaceCacheMs: z
    .number()
    .int()
    .min(0)
    .max(3_600_000)
    .describe(
      "How long a namespace's vocabulary, settings and idf counts read from Qdrant are reused (ms). This process's own writes " +
        `drop them at once; another process's writes are seen within this time. 0 reads them for every question (default ${DEFAULT_NAMESPACE_CACHE_MS})`,
    ),
};
