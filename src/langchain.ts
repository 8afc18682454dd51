/** `recallgraph/langchain`: recallgraph as LangChain pieces, the retriever and the agent's memory tools. */
export { RecallGraphRetriever, type RecallGraphRetrieverInput } from "./integrations/retriever.js";
export { createRecallTool, type RecallToolOptions } from "./integrations/tool.js";
export { createMemoryTools, type MemoryToolsOptions } from "./integrations/memory-tools.js";
