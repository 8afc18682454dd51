/**
 * The graph that `langgraph.json` serves (LangGraph Studio, `langgraphjs dev`, a LangGraph server).
 * Its store, embedder and model come from the environment (see the README) and open on first use.
 */
import { openDependencies } from "../recallgraph.js";
import { createRetrievalGraph } from "./graph.js";

export const graph = createRetrievalGraph(() => openDependencies());
