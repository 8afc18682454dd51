import { z } from "zod";
import { readPositiveInteger, readRetryCount, type Environment } from "../../core/env.js";
import type { Embedder, EmbeddingSpec } from "../embedder.js";
import type { EmbedderProfile } from "./profiles.js";

export const MAX_DIMENSION = 65_536;
export const MAX_RETRIES = 10;
export const MAX_TIMEOUT_MS = 600_000;
const MAX_WORKERS = 64;

/** Fields several kinds share, each kind saying what its default is. */
export const SharedEmbedderFields = {
  batchSize: z.number().int().min(1).max(4096).optional().describe("Texts per model call or request"),
  workers: z.number().int().min(1).max(MAX_WORKERS).optional(),
  timeoutMs: z.number().int().min(1).max(MAX_TIMEOUT_MS).optional(),
};

/**
 * The variables every kind may read, read whatever the kind, so a bad value fails loudly before anyone
 * switches to the kind that uses it.
 */
export interface SharedEmbedderVariables {
  dimensions: number | undefined;
  batchSize: number | undefined;
  timeoutMs: number | undefined;
  maxRetries: number | undefined;
  workers: number | undefined;
}

export function readSharedEmbedderVariables(env: Environment): SharedEmbedderVariables {
  return {
    dimensions: readPositiveInteger(env, "RECALLGRAPH_EMBEDDING_DIMENSIONS"),
    batchSize: readPositiveInteger(env, "RECALLGRAPH_EMBEDDING_BATCH_SIZE"),
    timeoutMs: readPositiveInteger(env, "RECALLGRAPH_EMBEDDING_TIMEOUT_MS"),
    maxRetries: readRetryCount(env, "RECALLGRAPH_EMBEDDING_RETRIES"),
    workers: readPositiveInteger(env, "RECALLGRAPH_EMBEDDING_WORKERS"),
  };
}

/** The fields of `values` that are set: a configuration names only what was given. */
export function setFields<T extends object>(values: T): { [Key in keyof T]?: Exclude<T[Key], undefined> } {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as { [Key in keyof T]?: Exclude<T[Key], undefined> };
}

/** A kind's configuration: its fields, with `provider` its name (the public field's name for a kind, kept so every configuration still reads). */
type KindConfig<Name extends string> = z.ZodObject<{ provider: z.ZodLiteral<Name> } & z.ZodRawShape>;

/**
 * Everything recallgraph knows of one kind of embedder, in one record: the registry (registry.ts) lists
 * these, and the configuration schema, the factory, the environment's choices, the profiles and the
 * command line's `--embedder` choices are read from it.
 */
export interface EmbedderDefinition<Name extends string = string, Config extends KindConfig<Name> = KindConfig<Name>> {
  /** Its name: a configuration's `provider`, a choice of RECALLGRAPH_EMBEDDER and `--embedder`. */
  readonly name: Name;
  /** Its configuration (`provider` first), checked before `create` sees it. */
  readonly config: Config;
  /** Builds the embedder. Loading models is lazy: nothing heavy happens here. */
  create(config: z.output<NoInfer<Config>>): Embedder;
  /** Its configuration from the environment (the variables are listed in create-embedder.ts). */
  fromEnv(env: Environment, shared: SharedEmbedderVariables): z.input<NoInfer<Config>>;
  /** Whether vectors of this spec were built by an embedder of this kind. */
  built(spec: EmbeddingSpec): boolean;
  /** What is known of its vectors (profiles.ts says what each field means). */
  readonly profile: EmbedderProfile;
  /** The command-line setting that recreates the embedder that built vectors of this spec. */
  flagsFor(spec: EmbeddingSpec): string;
}

/** Any kind, as a registry holds it. */
export type AnyEmbedderDefinition = EmbedderDefinition<string, KindConfig<string>>;

/** A kind of embedder, its types read from its record. */
export function defineEmbedder<const Name extends string, Config extends KindConfig<Name>>(kind: EmbedderDefinition<Name, Config>): EmbedderDefinition<Name, Config> {
  return kind;
}
