/**
 * The graphs `langgraph.json` serves (LangGraph Studio, `langgraphjs dev`, a LangGraph server): the
 * retrieval graph as `recallgraph` and the write graph as `remember`. Both share one store, embedder and
 * model, opened from the environment on first use (docs/configuration.md), and both hold every run to its
 * caller's namespaces (access.ts).
 */
import { END, START, StateGraph } from "@langchain/langgraph";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { z } from "zod";
import { RetrievalContextSchema } from "../graph/configuration.js";
import { openedOnce } from "../runtime/dependencies.js";
import { createRetrievalGraph, type RetrievalGraph } from "../graph/graph.js";
import { createRememberGraph } from "../graph/remember-graph.js";
import { RetrievalGraphInput, RetrievalGraphOutput, RetrievalState } from "../graph/state.js";
import { openDependencies } from "../library/open-recallgraph.js";
import { namespaceGuard } from "./access.js";
import { refusingNonObjectInput } from "../graph/object-input.js";
import { serverSettings } from "./settings.js";

/** One set of dependencies for both graphs (one sqlite connection, not two), opened on first use. */
const sharedDependencies = openedOnce(() => openDependencies({ store: serverSettings.store, embedder: serverSettings.embedder }));

/** What a served retrieval thread keeps: the question and its answer, not the run's working state. */
const AnswerState = RetrievalState.pick({
  question: true,
  namespaces: true,
  now: true,
  asOf: true,
  filter: true,
  referenceTime: true,
  results: true,
  queryPlan: true,
  coverage: true,
  degraded: true,
  account: true,
});

/**
 * The retrieval graph as a subgraph of a graph whose state is the answer. The server streams and
 * returns a thread's whole state, so served this way a run answers with its results and how they were
 * found (the retrieval graph's working state stays in its own checkpoints). Input errors and refusals
 * surface unchanged.
 */
function answering(retrieval: RetrievalGraph) {
  const retrieve = async (state: z.output<typeof AnswerState>, config?: RunnableConfig) => {
    const input = { question: state.question, namespaces: state.namespaces, now: state.now ?? undefined, asOf: state.asOf ?? undefined, filter: state.filter ?? undefined };
    const answer = await retrieval.invoke(input, config);
    // The reference time and the filter belong to this run (see the retrieval state): a thread's next run starts without them.
    return { ...answer, now: null, asOf: null, filter: null };
  };
  const served = new StateGraph(AnswerState, {
    input: RetrievalGraphInput,
    output: RetrievalGraphOutput,
    context: RetrievalContextSchema,
  })
    .addNode("retrieve", retrieve, { subgraphs: [retrieval] })
    .addEdge(START, "retrieve")
    .addEdge("retrieve", END)
    .compile({ name: "recallgraph" });
  return refusingNonObjectInput(served);
}

const guard = namespaceGuard(serverSettings.policy);

export const graph = answering(createRetrievalGraph(sharedDependencies, { guard }));
export const remember = createRememberGraph(sharedDependencies, { guard });
