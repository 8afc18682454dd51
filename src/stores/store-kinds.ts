import { ValidationError } from "../core/errors.js";
import { qdrantStoreKind } from "./qdrant-kind.js";
import { sqliteStoreKind } from "./sqlite/kind.js";
import type { AnyStoreKind } from "./store-kind.js";

/**
 * The kinds of store recallgraph opens, the default first. The configuration schema, the factory,
 * RECALLGRAPH_STORE's and `--store`'s choices, and the evaluations' temporary stores are all read from
 * this list.
 */
export const STORE_KINDS = [sqliteStoreKind, qdrantStoreKind] as const satisfies readonly AnyStoreKind[];

/** The kinds a registry can hold (see store-kind.ts). */
export type StoreKindRegistry = readonly AnyStoreKind[];

/** The name of a registered kind: a configuration's `kind`. */
export type StoreKind = (typeof STORE_KINDS)[number]["kind"];
export const STORE_KIND_NAMES: readonly StoreKind[] = STORE_KINDS.map((kind) => kind.kind);

/** The kind of that name, from `kinds` (default the registered ones); another name is refused, naming the choices. */
export function storeKindNamed(name: string, kinds: StoreKindRegistry = STORE_KINDS): AnyStoreKind {
  const kind = kinds.find((candidate) => candidate.kind === name);
  if (!kind) throw new ValidationError("store.kind", `must be one of ${kinds.map((candidate) => candidate.kind).join(", ")}, got "${name}"`);
  return kind;
}
