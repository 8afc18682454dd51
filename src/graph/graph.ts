import { END, START, StateGraph, type BaseCheckpointSaver } from "@langchain/langgraph";
import { asStateSchema } from "./channels.js";
import { RetrievalContextSchema } from "./configuration.js";
import { dependencyAccessor, type DependencySource, type NamespaceGuard } from "./dependencies.js";
import { quietNode, quietRoute } from "./quiet.js";
import { routeAfterPlan, routeAfterReflect } from "./routing.js";
import { RetrievalGraphInput, RetrievalGraphOutput, RetrievalState } from "./state.js";
import { planNode } from "../nodes/plan.js";
import { semanticNode } from "../nodes/semantic.js";
import { lexicalNode } from "../nodes/lexical.js";
import { symbolicNode } from "../nodes/symbolic.js";
import { mergeNode } from "../nodes/merge.js";
import { reflectNode } from "../nodes/reflect.js";
import { refusingNonObjectInput } from "./object-input.js";
import { finalizeNode } from "../nodes/finalize.js";

/**
 * START -> plan -> [Send] semantic | lexical | symbolic -> merge -> reflect --complete or cap--> finalize -> END
 *                         ^                                            |
 *                         +------------- gap queries -----------------+
 */
export interface RetrievalGraphOptions {
  checkpointer?: BaseCheckpointSaver;
  /** Checked before anything is read: may this run's caller read the namespaces it asks for? */
  guard?: NamespaceGuard;
}

/** The state's channels as LangGraph runs them (see asStateSchema): built once, shared by every graph. */
const STATE = asStateSchema(RetrievalState);
const INPUT = asStateSchema(RetrievalGraphInput);
const OUTPUT = asStateSchema(RetrievalGraphOutput);

export function createRetrievalGraph(source: DependencySource, options: RetrievalGraphOptions = {}) {
  const dependencies = dependencyAccessor(source);
  const graph = new StateGraph(STATE, { input: INPUT, output: OUTPUT, context: RetrievalContextSchema })
    .addNode("plan", quietNode("plan", planNode(dependencies, options.guard)))
    .addNode("semantic", quietNode("semantic", semanticNode(dependencies)))
    .addNode("lexical", quietNode("lexical", lexicalNode(dependencies)))
    .addNode("symbolic", quietNode("symbolic", symbolicNode(dependencies)))
    .addNode("merge", quietNode("merge", mergeNode()))
    .addNode("reflect", quietNode("reflect", reflectNode(dependencies)))
    .addNode("finalize", quietNode("finalize", finalizeNode(dependencies)))
    .addEdge(START, "plan")
    .addConditionalEdges("plan", quietRoute(routeAfterPlan), ["semantic", "lexical", "symbolic"])
    // One edge per view (not a list join): merge runs once after whichever views were sent.
    .addEdge("semantic", "merge")
    .addEdge("lexical", "merge")
    .addEdge("symbolic", "merge")
    .addEdge("merge", "reflect")
    .addConditionalEdges("reflect", quietRoute(routeAfterReflect), ["semantic", "lexical", "symbolic", "finalize"])
    .addEdge("finalize", END)
    .compile({ name: "recallgraph", ...(options.checkpointer ? { checkpointer: options.checkpointer } : {}) });
  return refusingNonObjectInput(graph);
}

export type RetrievalGraph = ReturnType<typeof createRetrievalGraph>;
