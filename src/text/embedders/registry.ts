import type { AnyEmbedderDefinition } from "./embedder-definition.js";
import { hashEmbedder } from "./hashing.js";
import { onnxEmbedder } from "./onnx.js";
import { openAIEmbedder } from "./openai.js";
import { useLiteEmbedder } from "./use-lite.js";

/**
 * The kinds of embedder recallgraph builds, the default first. The configuration schema, the factory,
 * RECALLGRAPH_EMBEDDER's and `--embedder`'s choices and the profiles are all read from this list.
 */
export const EMBEDDERS = [useLiteEmbedder, onnxEmbedder, openAIEmbedder, hashEmbedder] as const satisfies readonly AnyEmbedderDefinition[];

/** The kinds a registry can hold (see embedder-definition.ts). */
export type EmbedderRegistry = readonly AnyEmbedderDefinition[];

/**
 * The name of a registered kind. A configuration states it in its field `provider` (public, so it keeps
 * that name); in the code it is a kind, as a store's is.
 */
export type EmbedderKindName = (typeof EMBEDDERS)[number]["name"];
export const EMBEDDER_KIND_NAMES: readonly EmbedderKindName[] = EMBEDDERS.map((kind) => kind.name);
