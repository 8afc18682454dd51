/**
 * Store factory: one configuration type for every kind of store in the registry (store-kinds.ts), the
 * environment mapping, and what a configuration says about its store.
 *
 * Environment variables (read by {@link storeConfigFromEnv}):
 * - `RECALLGRAPH_STORE`  the kind: `sqlite` (default) or `qdrant`; each kind's own variables are listed
 *                        in its file (sqlite/kind.ts, qdrant-kind.ts)
 * - `RECALLGRAPH_READ_ONLY` `1` (or true/yes/on) opens the store read-only, whichever kind (`readOnly`)
 */
import { z } from "zod";
import { readBoolean, readChoice, readEnvironment, type Environment } from "../core/env.js";
import { parseOrThrow, ValidationError } from "../core/errors.js";
import type { MemoryStore } from "./port.js";
import type { EmbeddingSpec } from "../text/embedder.js";
import type { AnyStoreKind } from "./store-kind.js";
import { STORE_KINDS, storeKindNamed, type StoreKindRegistry } from "./store-kinds.js";

/** The configuration of any kind of a registry, told apart by `kind`. */
export type StoreConfigOf<K extends StoreKindRegistry> = z.output<K[number]["config"]> & { kind: K[number]["kind"] };

/** The configurations of a registry's kinds, one per kind. */
type ConfigsOf<K extends StoreKindRegistry> = { -readonly [Index in keyof K]: K[Index]["config"] } extends infer Configs extends [
  z.core.$ZodTypeDiscriminable,
  ...z.core.$ZodTypeDiscriminable[],
]
  ? Configs
  : [AnyStoreKind["config"], ...AnyStoreKind["config"][]];

/** Which store to open and where, for the kinds of a registry (a discriminated union on `kind`). */
export function storeConfigSchema<const K extends StoreKindRegistry>(kinds: K) {
  return z.discriminatedUnion("kind", kinds.map((kind) => kind.config) as unknown as ConfigsOf<K>);
}

/** Which store to open and where. */
export const StoreConfigSchema = storeConfigSchema(STORE_KINDS);
export type StoreConfig = z.output<typeof StoreConfigSchema>;

/** Opens the configured store for `embedding` (a store built by another embedder refuses to open). */
export async function openStore<const K extends StoreKindRegistry = typeof STORE_KINDS>(config: StoreConfigOf<K>, embedding: EmbeddingSpec, kinds?: K): Promise<MemoryStore> {
  const kind = storeKindNamed(config.kind, kinds);
  return kind.open(parseOrThrow(kind.config, config, "store"), embedding);
}

/**
 * The store configuration the environment describes (see the module comment for the variables):
 * RECALLGRAPH_STORE names the kind (default the first of `kinds`), which reads the rest.
 */
export function storeConfigFromEnv<const K extends StoreKindRegistry = typeof STORE_KINDS>(env: Environment = readEnvironment(), kinds?: K): StoreConfigOf<K> {
  const registry: StoreKindRegistry = kinds ?? STORE_KINDS;
  const [defaultKind] = registry;
  if (!defaultKind) throw new ValidationError("RECALLGRAPH_STORE", "no kind of store is registered");
  const name = readChoice(env, "RECALLGRAPH_STORE", registry.map((kind) => kind.kind)) ?? defaultKind.kind;
  // Set only when asked for, so a writable configuration reads as it always has.
  const readOnly: { readOnly?: true } = readBoolean(env, "RECALLGRAPH_READ_ONLY") === true ? { readOnly: true } : {};
  return storeKindNamed(name, registry).fromEnv(env, readOnly) as StoreConfigOf<K>;
}

/**
 * The configuration to read a store with: read-only when it says so, and also when its kind knows that
 * a writable opening would fail (a sqlite file this process cannot write); otherwise as given.
 */
export function readingConfig<const K extends StoreKindRegistry = typeof STORE_KINDS>(config: StoreConfigOf<K>, kinds?: K): StoreConfigOf<K> {
  return (storeKindNamed(config.kind, kinds).forReading?.(config) ?? config) as StoreConfigOf<K>;
}

/** Where the store's memories live, for people: a sqlite file's path, a Qdrant server's address and collection. */
export function storeWhere<const K extends StoreKindRegistry = typeof STORE_KINDS>(config: StoreConfigOf<K>, kinds?: K): string {
  return storeKindNamed(config.kind, kinds).where(config);
}

/** Whether the store is known not to be there yet (a sqlite file never written). */
export function storeMissing<const K extends StoreKindRegistry = typeof STORE_KINDS>(config: StoreConfigOf<K>, kinds?: K): boolean {
  return storeKindNamed(config.kind, kinds).missing?.(config) ?? false;
}

/**
 * Asked before the store opens: a function that removes what opening it creates (a new sqlite file),
 * for a run that fails before it wrote anything; one that does nothing when nothing would be created.
 */
export function newStoreRemover<const K extends StoreKindRegistry = typeof STORE_KINDS>(config: StoreConfigOf<K>, kinds?: K): () => Promise<void> {
  return storeKindNamed(config.kind, kinds).newStoreRemover?.(config) ?? (async () => {});
}
