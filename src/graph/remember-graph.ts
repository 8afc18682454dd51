import { END, START, StateGraph, type BaseCheckpointSaver } from "@langchain/langgraph";
import { rememberNode } from "../nodes/remember.js";
import { dependencyAccessor, type DependencySource, type NamespaceGuard } from "../runtime/dependencies.js";
import { refusingNonObjectInput } from "./object-input.js";
import { RememberGraphInput, RememberGraphOutput, RememberState } from "./remember-state.js";

/**
 * The write graph, served beside the retrieval graph so that a deployed server can be written to:
 * START -> remember -> END.
 */
export interface RememberGraphOptions {
  checkpointer?: BaseCheckpointSaver;
  /** Checked before anything is written: may this run's caller write the namespace it names? */
  guard?: NamespaceGuard;
}

export function createRememberGraph(source: DependencySource, options: RememberGraphOptions = {}) {
  const dependencies = dependencyAccessor(source);
  const graph = new StateGraph(RememberState, { input: RememberGraphInput, output: RememberGraphOutput })
    .addNode("remember", rememberNode(dependencies, options.guard))
    .addEdge(START, "remember")
    .addEdge("remember", END)
    .compile({ name: "remember", ...(options.checkpointer ? { checkpointer: options.checkpointer } : {}) });
  return refusingNonObjectInput(graph);
}

export type RememberGraph = ReturnType<typeof createRememberGraph>;
