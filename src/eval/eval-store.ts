import { z } from "zod";
import type { EmbeddingSpec } from "../text/embedder.js";
import type { StoreConfigOf } from "../stores/open-store.js";
import type { TemporaryStore } from "../stores/store-kind.js";
import { STORE_KINDS, storeKindNamed, type StoreKindRegistry } from "../stores/store-kinds.js";

/** The temporary stores' settings of a registry's kinds, one per kind. */
type TemporariesOf<K extends StoreKindRegistry> = { -readonly [Index in keyof K]: K[Index]["temporary"] } extends infer Settings extends [
  z.core.$ZodTypeDiscriminable,
  ...z.core.$ZodTypeDiscriminable[],
]
  ? Settings
  : [K[number]["temporary"], ...K[number]["temporary"][]];

/**
 * Where an evaluation writes its corpus: never the user's store, always a fresh one that is gone once
 * the run ends, succeeded or failed: a temporary store of one of the registry's kinds (store-kind.ts),
 * sqlite in memory or a collection of its own on a Qdrant server.
 */
export function evalStoreSchema<const K extends StoreKindRegistry>(kinds: K) {
  return z
    .discriminatedUnion("kind", kinds.map((kind) => kind.temporary) as unknown as TemporariesOf<K>)
    .describe(`the store the corpus is written to for the run; default ${kinds[0]?.temporaryLabel ?? "none"}`);
}

/** A temporary store's settings, of any kind of a registry, as given and as checked. */
export type EvalStoreChoiceOf<K extends StoreKindRegistry> = z.input<K[number]["temporary"]> & { kind: K[number]["kind"] };
export type EvalStoreSettingsOf<K extends StoreKindRegistry> = z.output<K[number]["temporary"]> & { kind: K[number]["kind"] };

export const EvalStoreSchema = evalStoreSchema(STORE_KINDS);
export type EvalStoreChoice = z.input<typeof EvalStoreSchema>;
export type EvalStoreSettings = z.output<typeof EvalStoreSchema>;
export type EvalStoreKind = EvalStoreSettings["kind"];

/** A temporary store of the first registered kind, when a run names none. */
export const DEFAULT_EVAL_STORE = { kind: STORE_KINDS[0].kind } satisfies EvalStoreChoice;

/**
 * The evaluation's store for a configured one (the CLI's --store, RECALLGRAPH_STORE): of the same kind,
 * on the same server, but never the same store; the configured store is never opened.
 */
export function evalStoreFor<const K extends StoreKindRegistry = typeof STORE_KINDS>(config: StoreConfigOf<K>, kinds?: K): EvalStoreChoiceOf<K> {
  return storeKindNamed(config.kind, kinds).temporaryBeside(config) as EvalStoreChoiceOf<K>;
}

/** The store as a text report names it. */
export function storeLabel(kind: EvalStoreKind): string {
  return `store ${storeKindNamed(kind).temporaryLabel}`;
}

/** The run's fresh store, and its kind. */
export type EvalStore<K extends StoreKindRegistry = typeof STORE_KINDS> = TemporaryStore & { kind: K[number]["kind"] };

/** Opens the run's fresh store, for vectors of `embedding`. */
export async function openEvalStore<const K extends StoreKindRegistry = typeof STORE_KINDS>(
  choice: EvalStoreSettingsOf<K>,
  embedding: EmbeddingSpec,
  kinds?: K,
): Promise<EvalStore<K>> {
  const kind = storeKindNamed(choice.kind, kinds);
  return { ...(await kind.openTemporary(choice, embedding)), kind: choice.kind };
}
