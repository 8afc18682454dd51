/**
 * The graph that `langgraph.json` serves (LangGraph Studio, `langgraphjs dev`, a LangGraph server).
 * Its store, embedder and model come from the environment (see the README) and open on first use.
 */
import { openDependencies } from "../library/open-recallgraph.js";
import { createRetrievalGraph } from "../graph/graph.js";

export const graph = createRetrievalGraph(() => openDependencies());
