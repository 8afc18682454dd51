/**
 * Where the store the global options (or the environment) name is, and opening it on its own: for
 * the commands that count, list, export and delete memories, which never embed or ask, so never load
 * the library's graph, models or clients (open-dependencies.ts opens those).
 */
import { EmbedderMismatchError, parseOrThrow, ValidationError } from "../core/errors.js";
import { openStore, readingConfig, storeConfigFromEnv, storeMissing, storeWhere, type StoreConfig } from "../stores/open-store.js";
import type { MemoryStore } from "../stores/port.js";
import { EmbeddingSpecSchema } from "../text/embedder.js";
import { createEmbedder, embedderConfigFromEnv } from "../text/embedders/create-embedder.js";
import { environmentWith, type GlobalOptions } from "./global-options.js";

export interface StoreLocation {
  config: StoreConfig;
  /** Where the memories live, for people: the sqlite path or the Qdrant URL and collection. */
  label: string;
}

/**
 * What a command does with the store. A reading command (query, list, stats) opens a sqlite file this
 * process cannot write read-only rather than failing on it; a writing one opens it as configured.
 */
export type StoreAccess = "read" | "write";

export function storeLocation(globals: GlobalOptions, access: StoreAccess = "write"): StoreLocation {
  const configured = storeConfigFromEnv(environmentWith(globals));
  const config = access === "read" ? readingConfig(configured) : configured;
  return { config, label: storeWhere(config) };
}

/**
 * Opens an existing store with the embedder that built it, whatever the options say: counting and
 * deleting entries never embeds anything, so a mismatch would only get in the way.
 */
export async function openStoreAsBuilt(globals: GlobalOptions, access: StoreAccess = "write"): Promise<{ store: MemoryStore; location: StoreLocation }> {
  const location = storeLocation(globals, access);
  requireExistingStore(location);
  const configured = createEmbedder(embedderConfigFromEnv(environmentWith(globals))).spec;
  try {
    return { store: await openStore(location.config, configured), location };
  } catch (error) {
    if (!(error instanceof EmbedderMismatchError)) throw error;
    const stored = parseOrThrow(EmbeddingSpecSchema, error.context.stored, "store.embedding");
    return { store: await openStore(location.config, stored), location };
  }
}

/** A store known not to be there (a sqlite file that does not exist) is an error, not a new empty store. */
export function requireExistingStore(location: StoreLocation): void {
  if (storeMissing(location.config)) {
    throw new ValidationError("", `no memory store at ${location.label} (write memories with \`recallgraph ingest <file>\`, or point --db at a store)`);
  }
}
