import { z } from "zod";
import type { Environment } from "../core/env.js";
import type { EmbeddingSpec } from "../text/embedder.js";
import type { MemoryStore } from "./port.js";

/** The same choice for every kind: read, never write; absent means writable. */
export const ReadOnlyField = z
  .boolean()
  .optional()
  .describe(
    "Open the store without writing to it: nothing is created, migrated or altered, and every write operation " +
      "(upsert, delete, clearNamespace, setSettings, deleteExpired) throws ReadOnlyStoreError",
  );

/**
 * What every kind reads from the environment whatever it is (RECALLGRAPH_READ_ONLY), set only when asked
 * for, so that a writable configuration reads as it always has.
 */
export interface SharedStoreSettings {
  readOnly?: true;
}

/** A store that is gone once discarded, for a run that must leave nothing behind (an evaluation). */
export interface TemporaryStore {
  store: MemoryStore;
  /** Closes the store and removes everything written to it. */
  discard(): Promise<void>;
}

/** A kind's configuration, or its temporary store's: its fields, with `kind` its name. */
type KindConfig<Kind extends string> = z.ZodObject<{ kind: z.ZodLiteral<Kind> } & z.ZodRawShape>;

/**
 * Everything recallgraph knows of one kind of store, in one record: the registry (store-kinds.ts) lists
 * these, and the configuration schema, the factory, RECALLGRAPH_STORE's and `--store`'s choices, and what
 * the command line and the evaluations do with a store are read from it. A record loads its adapter
 * only when it opens a store, so listing the kinds loads no database or client.
 */
export interface StoreKindDefinition<Kind extends string = string, Config extends KindConfig<Kind> = KindConfig<Kind>, Temporary extends KindConfig<Kind> = KindConfig<Kind>> {
  /** Its name: a configuration's `kind`, a choice of RECALLGRAPH_STORE and `--store`. */
  readonly kind: Kind;
  /** Its configuration (`kind` first), checked before `open` sees it. */
  readonly config: Config;
  /** Its configuration from the environment (RECALLGRAPH_STORE named it), checked; errors name the variables. */
  fromEnv(env: Environment, shared: SharedStoreSettings): z.output<NoInfer<Config>>;
  /** Opens the store for vectors of `embedding` (one built by another embedder refuses to open). */
  open(config: z.output<NoInfer<Config>>, embedding: EmbeddingSpec): Promise<MemoryStore>;
  /** Where the memories live, for people: a file's path, a server's address. */
  where(config: z.output<NoInfer<Config>>): string;
  /** Whether the store is known not to be there yet (a file never written); unset, it is taken to be there. */
  missing?(config: z.output<NoInfer<Config>>): boolean;
  /** The configuration to only read the store with; unset, the configuration as given. */
  forReading?(config: z.output<NoInfer<Config>>): z.output<NoInfer<Config>>;
  /**
   * Asked before the store opens: a function that removes what the opening creates, for a run that
   * fails before it wrote anything; undefined when opening creates nothing to remove.
   */
  newStoreRemover?(config: z.output<NoInfer<Config>>): (() => Promise<void>) | undefined;
  /** The settings of a temporary store of this kind (`kind` first), as an evaluation's settings hold them. */
  readonly temporary: Temporary;
  /** How a text report names a temporary store of this kind. */
  readonly temporaryLabel: string;
  /** The temporary store beside a configured one: of the same kind and server, never the same store. */
  temporaryBeside(config: z.output<NoInfer<Config>>): z.input<NoInfer<Temporary>>;
  /** Opens a new temporary store for vectors of `embedding`. */
  openTemporary(settings: z.output<NoInfer<Temporary>>, embedding: EmbeddingSpec): Promise<TemporaryStore>;
}

/** Any kind, as a registry holds it. */
export type AnyStoreKind = StoreKindDefinition<string, KindConfig<string>, KindConfig<string>>;

/** A kind of store, its types read from its record. */
export function defineStoreKind<const Kind extends string, Config extends KindConfig<Kind>, Temporary extends KindConfig<Kind>>(
  kind: StoreKindDefinition<Kind, Config, Temporary>,
): StoreKindDefinition<Kind, Config, Temporary> {
  return kind;
}
