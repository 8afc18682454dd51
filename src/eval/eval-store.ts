import { randomBytes } from "node:crypto";
import { z } from "zod";
import { log } from "../core/log.js";
import { QdrantStoreConfigSchema, type StoreConfig } from "../stores/open-store.js";
import type { MemoryStore } from "../stores/port.js";
import { createQdrantStore } from "../stores/qdrant.js";
import { QdrantClusterFields } from "../stores/qdrant-fields.js";
import { openSqliteStore } from "../stores/sqlite/store.js";
import type { EmbeddingSpec } from "../text/embedder.js";

/**
 * Where an evaluation writes its corpus: never the user's store, always a fresh one that is gone once
 * the run ends, succeeded or failed. sqlite in memory, or a collection of its own on a Qdrant server.
 */
export const EvalStoreSchema = z
  .discriminatedUnion("kind", [
    z.strictObject({ kind: z.literal("sqlite").describe("an in-memory sqlite store, gone with the run") }),
    z.strictObject({
      kind: z.literal("qdrant").describe("a new collection on this Qdrant server (never the configured QDRANT_COLLECTION), dropped after the run"),
      url: QdrantStoreConfigSchema.shape.url.describe("the Qdrant REST endpoint, as QDRANT_URL"),
      apiKey: QdrantStoreConfigSchema.shape.apiKey.describe("as QDRANT_API_KEY"),
      ...QdrantClusterFields,
    }),
  ])
  .describe("the store the corpus is written to for the run; default sqlite in memory");
export type EvalStoreChoice = z.input<typeof EvalStoreSchema>;
export type EvalStoreSettings = z.output<typeof EvalStoreSchema>;
export type EvalStoreKind = EvalStoreSettings["kind"];

/** Every evaluation collection's name begins with this, so a forgotten one is recognisable on the server. */
export const EVAL_COLLECTION_PREFIX = "recallgraph_eval_";

/**
 * The evaluation's store for a configured one (the CLI's --store, RECALLGRAPH_STORE): of the same kind,
 * on the same server, but never the same store. Only the server's address, key and cluster settings
 * are taken; the configured collection and read-only belong to the user's store, which an evaluation
 * never opens.
 */
export function evalStoreFor(config: StoreConfig): EvalStoreChoice {
  if (config.kind === "sqlite") return { kind: "sqlite" };
  const { url, apiKey, shards, replicationFactor, writeConsistencyFactor } = config;
  // Unset ones pass as undefined: left to the adapter's defaults, as for the user's own store.
  return { kind: "qdrant", url, apiKey, shards, replicationFactor, writeConsistencyFactor };
}

/** The store as a text report names it. */
export function storeLabel(kind: EvalStoreKind): string {
  return kind === "sqlite" ? "store sqlite (in memory)" : "store qdrant (a temporary collection)";
}

export interface EvalStore {
  store: MemoryStore;
  kind: EvalStoreKind;
  /** Closes the store and removes everything the run wrote (Qdrant: drops the collection). */
  discard(): Promise<void>;
}

/** Opens the run's fresh store, for vectors of `embedding`. */
export async function openEvalStore(choice: EvalStoreSettings, embedding: EmbeddingSpec): Promise<EvalStore> {
  if (choice.kind === "sqlite") {
    const store = await openSqliteStore({ path: ":memory:", embedding });
    return { store, kind: choice.kind, discard: () => store.close() };
  }
  const { kind, ...server } = choice;
  // Random, so runs side by side never share one and a name cannot be one somebody chose.
  const collection = `${EVAL_COLLECTION_PREFIX}${randomBytes(8).toString("hex")}`;
  const store = await createQdrantStore({ ...server, collection, embedding });
  log.debug("eval_collection_created", { collection });
  return {
    store,
    kind,
    // Already gone (someone dropped it first) is gone all the same.
    discard: async () => void (await store.drop()),
  };
}
