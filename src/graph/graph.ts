import type { Runnable } from "@langchain/core/runnables";
import { END, START, StateGraph, type BaseCheckpointSaver } from "@langchain/langgraph";
import { asStateSchema } from "./channels.js";
import { configurationFor } from "./configuration.js";
import { dependencyAccessor, type DependencySource, type NamespaceGuard } from "../runtime/dependencies.js";
import { quietNode, quietRoute } from "../runtime/quiet.js";
import { routeAfterPlan, routeAfterReflect } from "./routing.js";
import { RetrievalGraphInput, RetrievalGraphOutput, RetrievalState, type RetrievalStateValue, type ViewTask } from "./state.js";
import { VIEWS, type ViewRegistry } from "./views.js";
import { planNode } from "../nodes/plan.js";
import { viewNode } from "../nodes/view-definition.js";
import { mergeNode } from "../nodes/merge.js";
import type { ViewUpdate } from "../nodes/run-view.js";
import { reflectNode } from "../nodes/reflect.js";
import { refusingNonObjectInput } from "./object-input.js";
import { finalizeNode } from "../nodes/finalize.js";

/**
 * START -> plan -> [Send] semantic | lexical | symbolic -> merge -> reflect --complete or cap--> finalize -> END
 *                         ^                                            |
 *                         +------------- gap queries -----------------+
 *
 * The views are those of the registry (views.ts): one node each, sent to after plan and reflect, each
 * with an edge to merge.
 */
export interface RetrievalGraphOptions {
  checkpointer?: BaseCheckpointSaver;
  /** Checked before anything is read: may this run's caller read the namespaces it asks for? */
  guard?: NamespaceGuard;
  /** The views the graph runs; default the registered ones (views.ts). */
  views?: ViewRegistry;
}

/** The state's channels as LangGraph runs them (see asStateSchema): built once, shared by every graph. */
const STATE = asStateSchema(RetrievalState);
const INPUT = asStateSchema(RetrievalGraphInput);
const OUTPUT = asStateSchema(RetrievalGraphOutput);

export function createRetrievalGraph(source: DependencySource, options: RetrievalGraphOptions = {}) {
  const dependencies = dependencyAccessor(source);
  const views: ViewRegistry = options.views ?? VIEWS;
  const configuration = configurationFor(views);
  const viewNames = views.map((view) => view.name);
  const graph = new StateGraph(STATE, { input: INPUT, output: OUTPUT, context: configuration.RetrievalContextSchema })
    .addNode("plan", quietNode("plan", planNode(dependencies, options.guard, configuration)))
    .addNode(views.map((view): [string, Runnable<ViewTask, ViewUpdate>] => [view.name, quietNode(view.name, viewNode(view, dependencies))]))
    .addNode("merge", quietNode("merge", mergeNode(views)))
    .addNode("reflect", quietNode("reflect", reflectNode(dependencies)))
    .addNode("finalize", quietNode("finalize", finalizeNode(dependencies)))
    .addEdge(START, "plan")
    .addConditionalEdges("plan", quietRoute((state: RetrievalStateValue) => routeAfterPlan(state, views)), viewNames);
  // One edge per view (not a list join): merge runs once after whichever views were sent.
  for (const view of viewNames) graph.addEdge(view, "merge");
  return refusingNonObjectInput(
    graph
      .addEdge("merge", "reflect")
      .addConditionalEdges("reflect", quietRoute((state: RetrievalStateValue) => routeAfterReflect(state, views)), [...viewNames, "finalize"])
      .addEdge("finalize", END)
      .compile({ name: "recallgraph", ...(options.checkpointer ? { checkpointer: options.checkpointer } : {}) }),
  );
}

export type RetrievalGraph = ReturnType<typeof createRetrievalGraph>;
