/**
 * Opening the store, embedder and model the global options (or the environment) name.
 * Loaded lazily by the commands that need it: it pulls in the whole library (store-location.ts opens
 * only the store, for the commands that never embed or ask).
 */
import { EmbedderMismatchError, RecallGraphError } from "../core/errors.js";
import type { GraphDependencies } from "../runtime/dependencies.js";
import { closeEach, openDependencies } from "../library/open-recallgraph.js";
import { EmbeddingSpecSchema, type EmbeddingSpec } from "../text/embedder.js";
import { embedderConfigFromEnv } from "../text/embedders/create-embedder.js";
import { openAIEmbedder } from "../text/embedders/openai.js";
import { EMBEDDERS } from "../text/embedders/registry.js";
import { environmentWith, type GlobalOptions } from "./global-options.js";
import { requireExistingStore, storeLocation, type StoreAccess, type StoreLocation } from "./store-location.js";

export type OpenedDependencies = GraphDependencies & {
  location: StoreLocation;
  /** Closes the store and the embedder (both opened here, from the options): USE-lite's worker threads stop. */
  close(): Promise<void>;
};

/** Store, embedder and (when the environment configures one) chat model, creating the store when absent. */
export async function openForWriting(globals: GlobalOptions): Promise<OpenedDependencies> {
  return openAt(storeLocation(globals), globals);
}

/**
 * Like openForWriting, but a sqlite file that does not exist is an error rather than a new empty store;
 * `access` "read" (the default) opens a file this process cannot write read-only.
 */
export async function openExisting(globals: GlobalOptions, access: StoreAccess = "read"): Promise<OpenedDependencies> {
  const location = storeLocation(globals, access);
  requireExistingStore(location);
  return openAt(location, globals);
}

async function openAt(location: StoreLocation, globals: GlobalOptions): Promise<OpenedDependencies> {
  const env = environmentWith(globals);
  try {
    const dependencies = await openDependencies({ store: location.config, embedder: embedderConfigFromEnv(env), env });
    const { store, embedder } = dependencies;
    return { ...dependencies, location, close: () => closeEach([() => store.close(), () => embedder.close?.()]) };
  } catch (error) {
    throw withEmbedderHint(error);
  }
}

/** An embedder mismatch, completed with the flag that opens the store as it was built. */
function withEmbedderHint(error: unknown): unknown {
  if (!(error instanceof EmbedderMismatchError)) return error;
  const stored = EmbeddingSpecSchema.safeParse(error.context.stored);
  if (!stored.success) return error;
  return new RecallGraphError("embedder_mismatch", `${error.message} (for this store: ${embedderFlagsFor(stored.data)})`, error.context, { cause: error });
}

/**
 * The command-line setting that recreates the embedder a store records. A model no registered kind
 * built is most likely served by an OpenAI-compatible endpoint, so it is named as one.
 */
function embedderFlagsFor(spec: EmbeddingSpec): string {
  return (EMBEDDERS.find((kind) => kind.built(spec)) ?? openAIEmbedder).flagsFor(spec);
}
