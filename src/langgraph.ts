/**
 * `recallgraph/langgraph`: the two StateGraphs to compose into an application's own graph or serve,
 * their state and configuration schemas, and LangGraph's `BaseStore` over recallgraph.
 */
export { createRetrievalGraph, type RetrievalGraph, type RetrievalGraphOptions } from "./graph/graph.js";
export { createRememberGraph, type RememberGraph, type RememberGraphOptions } from "./graph/remember-graph.js";
export {
  RetrievalConfigSchema,
  RetrievalContextSchema,
  resolveConfiguration,
  type RetrievalConfig,
  type RetrievalConfigInput,
} from "./graph/configuration.js";
export { RETRIEVAL_PRESETS } from "./graph/presets.js";
export { PRESET_NAMES, type PresetName } from "./graph/preset-names.js";
export { RetrievalGraphInput, RetrievalGraphOutput, RetrievalState, type RetrievalGraphOutputValue } from "./graph/state.js";
export { RememberGraphInput, RememberGraphOutput, RememberState } from "./graph/remember-state.js";
export type { GraphDependencies, NamespaceAccess, NamespaceGuard } from "./runtime/dependencies.js";
export { RecallGraphStore, namespaceOfTuple } from "./integrations/langgraph-store.js";
