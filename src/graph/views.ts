import { lexicalView } from "../nodes/lexical.js";
import { semanticView } from "../nodes/semantic.js";
import { symbolicView } from "../nodes/symbolic.js";
import type { AnyView } from "../nodes/view-definition.js";

/**
 * The views of the retrieval graph, in the order a `union` merge reads them: dense vectors, BM25 over
 * our tokens, exact metadata and time filters. The graph's nodes and edges, the routing, the merge and
 * the configuration's view fields are all read from this list.
 */
export const VIEWS = [semanticView, lexicalView, symbolicView] as const satisfies readonly AnyView[];

/** The views a registry can hold (see nodes/view-definition.ts). */
export type ViewRegistry = readonly AnyView[];
