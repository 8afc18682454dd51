/**
 * The framework's floor for the retrieval graph's shape: what LangGraph costs per question when the
 * nodes do nothing. The speed benchmark measures it once per run, beside the peers, so that a target
 * below it (a p50 under another library's whole query) can be seen to be out of reach of any graph of
 * this shape, whatever its nodes do.
 */
import type { Runnable } from "@langchain/core/runnables";
import { END, Send, START, StateGraph } from "@langchain/langgraph";
import { loadavg } from "node:os";
import { latencySummary as latency, roundTo as round } from "../src/eval/metrics.js";
import { asStateSchema } from "../src/graph/channels.js";
import { configurationFor } from "../src/graph/configuration.js";
import { RetrievalGraphInput, RetrievalGraphOutput, RetrievalState } from "../src/graph/state.js";
import { VIEWS } from "../src/graph/views.js";
import { quietNode, quietRoute } from "../src/runtime/quiet.js";
import type { FloorSide } from "./speed-results.js";

type NoUpdate = Record<string, never>;
const doNothing = async (): Promise<NoUpdate> => ({});

/**
 * The graph of graph.ts (the same state channels, node and route wrappers, `Send` fan-out to every
 * registered view, edges and one round) with nodes that return no update: START -> plan -> views ->
 * merge -> reflect -> finalize -> END.
 */
export function floorGraph() {
  const viewNames = VIEWS.map((view) => view.name);
  const graph = new StateGraph(asStateSchema(RetrievalState), {
    input: asStateSchema(RetrievalGraphInput),
    output: asStateSchema(RetrievalGraphOutput),
    context: configurationFor(VIEWS).RetrievalContextSchema,
  })
    .addNode("plan", quietNode("plan", doNothing))
    .addNode(viewNames.map((name): [string, Runnable<unknown, NoUpdate>] => [name, quietNode(name, doNothing)]))
    .addNode("merge", quietNode("merge", doNothing))
    .addNode("reflect", quietNode("reflect", doNothing))
    .addNode("finalize", quietNode("finalize", doNothing))
    .addEdge(START, "plan")
    .addConditionalEdges(
      "plan",
      quietRoute(() => viewNames.map((name) => new Send(name, {}))),
      viewNames,
    );
  for (const name of viewNames) graph.addEdge(name, "merge");
  return graph
    .addEdge("merge", "reflect")
    .addConditionalEdges("reflect", quietRoute((): "finalize" => "finalize"), ["finalize"])
    .addEdge("finalize", END)
    .compile({ name: "recallgraph-floor" });
}

/** The floor graph asked `questions` after `warmup` more: wall time per invoke and its mean CPU time. */
export async function floorSide(questions: readonly string[], warmup: number): Promise<FloorSide> {
  const before = loadavg();
  const graph = floorGraph();
  const ask = (question: string) => graph.invoke({ question, namespaces: ["bench"] });
  for (const question of questions.slice(0, warmup)) await ask(question);
  const timed = questions.slice(warmup);
  const times: number[] = [];
  const cpuBefore = process.cpuUsage();
  for (const question of timed) {
    const asked = performance.now();
    await ask(question);
    times.push(performance.now() - asked);
  }
  const cpu = process.cpuUsage(cpuBefore);
  return {
    side: "floor",
    invokeMs: latency(times),
    cpuMean: round((cpu.user + cpu.system) / 1000 / Math.max(1, timed.length), 2),
    load: { before, after: loadavg() },
  };
}
