/**
 * The speed benchmark's breakdown of a question's time (BreakdownSchema): the graph's wall and CPU time
 * beside the same node functions chained by hand, each node's own wall time (its run account) and CPU time.
 */
import { Overwrite, type Send } from "@langchain/langgraph";
import { schemaMetaRegistry } from "@langchain/langgraph/zod";
import type { z } from "zod";
import { roundTo as round } from "../src/eval/metrics.js";
import { dependencyAccessor } from "../src/runtime/dependencies.js";
import type { RetrievalGraph } from "../src/graph/graph.js";
import { routeAfterPlan, routeAfterReflect } from "../src/graph/routing.js";
import { RetrievalState, type RetrievalStateValue, type ViewTask } from "../src/graph/state.js";
import { retrieve } from "../src/library/retrieve.js";
import { finalizeNode } from "../src/nodes/finalize.js";
import { mergeNode } from "../src/nodes/merge.js";
import { planNode } from "../src/nodes/plan.js";
import { reflectNode } from "../src/nodes/reflect.js";
import { viewNode } from "../src/nodes/view-definition.js";
import { VIEWS } from "../src/graph/views.js";
import type { MemoryStore } from "../src/stores/port.js";
import type { Embedder } from "../src/text/embedder.js";
import { GRAPH_NODES, type Breakdown } from "./speed-results.js";
import { SYNTHETIC_NOW } from "./synthetic.js";

type GraphNode = (typeof GRAPH_NODES)[number];
type NodeTimes = Record<GraphNode, number>;

const zeroTimes = (): NodeTimes => Object.fromEntries(GRAPH_NODES.map((node) => [node, 0])) as NodeTimes;

type StoreCalls = Map<string, { calls: number; ms: number }>;

/**
 * The store with each operation counted and timed (wall, until its promise settles) into `calls`: the
 * index lookups and reads inside the views, told apart from the views' own work around them.
 */
function countedStore(store: MemoryStore, calls: StoreCalls): MemoryStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== "function" || typeof property !== "string") return value;
      return (...args: unknown[]) => {
        const started = performance.now();
        const settle = () => {
          const total = calls.get(property) ?? { calls: 0, ms: 0 };
          calls.set(property, { calls: total.calls + 1, ms: total.ms + performance.now() - started });
        };
        const result: unknown = Reflect.apply(value, target, args);
        if (result instanceof Promise) return result.finally(settle);
        settle();
        return result;
      };
    },
  });
}

/** CPU time (user + system, all threads) since `since`, in ms. */
function cpuMsSince(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
}

/**
 * Where the time of a question goes (see BreakdownSchema). Each question is asked twice in a row: once
 * through the graph (the invoke's wall time), once through the same node functions chained by hand,
 * one at a time (handChain), whose run account gives each node's own time; the graph first for every
 * other question, the chain first for the rest. The framework's share is the
 * difference. The two answers must be the same, or the breakdown would not describe the graph's run.
 */
export async function breakdownOf(
  graph: RetrievalGraph,
  dependencies: { store: MemoryStore; embedder: Embedder },
  namespace: string,
  questions: readonly string[],
): Promise<Breakdown> {
  const nodesCpu = zeroTimes();
  const storeCalls: StoreCalls = new Map();
  const chain = handChain({ ...dependencies, store: countedStore(dependencies.store, storeCalls) }, namespace, nodesCpu);
  const nodes = zeroTimes();
  let invokeMs = 0;
  let invokeCpuMs = 0;
  let chainCpuMs = 0;
  let rounds = 0;
  for (const [index, question] of questions.entries()) {
    const viaGraph = async () => {
      const asked = performance.now();
      const cpuBefore = process.cpuUsage();
      const answer = await retrieve(graph, { question, namespace, now: SYNTHETIC_NOW });
      invokeCpuMs += cpuMsSince(cpuBefore);
      invokeMs += performance.now() - asked;
      return answer;
    };
    const byHand = async () => {
      const cpuBefore = process.cpuUsage();
      const answer = await chain(question);
      chainCpuMs += cpuMsSince(cpuBefore);
      return answer;
    };
    // Whichever asks second finds the store's caches warm for this question (its parsed entries, its
    // speaker's filter matches, its terms' idf): each goes first for half of the questions.
    const graphFirst = index % 2 === 0;
    const output = graphFirst ? await viaGraph() : undefined;
    const chained = await byHand();
    const answered = output ?? (await viaGraph());
    const same = (results: ReadonlyArray<{ id: string; score: number }>) => JSON.stringify(results.map(({ id, score }) => [id, score]));
    if (same(chained.results) !== same(answered.results) || (chained.account?.rounds ?? -1) !== answered.rounds) {
      throw new Error(`the nodes chained by hand answered "${question}" differently from the graph: the breakdown would not describe its run`);
    }
    rounds += answered.rounds;
    for (const node of GRAPH_NODES) nodes[node] += chained.nodeMs[node] ?? 0;
  }
  const perQuestion = (total: number) => round(total / questions.length, 3);
  const perNode = (times: NodeTimes) => Object.fromEntries(GRAPH_NODES.map((node) => [node, perQuestion(times[node])])) as NodeTimes;
  const ownMs = GRAPH_NODES.reduce((sum, node) => sum + nodes[node], 0);
  return {
    invokeMs: perQuestion(invokeMs),
    nodesMs: perNode(nodes),
    nodesCpuMs: perNode(nodesCpu),
    storeCalls: Object.fromEntries(
      [...storeCalls].map(([operation, total]) => [operation, { calls: round(total.calls / questions.length, 2), ms: perQuestion(total.ms) }]),
    ),
    frameworkMs: perQuestion(invokeMs - ownMs),
    cpu: { invokeMs: perQuestion(invokeCpuMs), nodesMs: perQuestion(chainCpuMs), frameworkMs: perQuestion(invokeCpuMs - chainCpuMs) },
    rounds: round(rounds / questions.length, 2),
  };
}

/** Each call's CPU time added to its node's total in `cpu`. */
function cpuTimed(cpu: NodeTimes) {
  return async <T>(node: GraphNode, call: () => Promise<T>): Promise<T> => {
    const before = process.cpuUsage();
    try {
      return await call();
    } finally {
      cpu[node] += cpuMsSince(before);
    }
  };
}

/**
 * The retrieval graph's run without LangGraph: its node functions and routes (src/nodes, src/graph/routing)
 * called in the graph's order, each round's views one after the other, each update applied as the
 * graph's channels apply it (the state's reducers, Overwrite, last value otherwise). Each node call's
 * CPU time is added to `cpu` (one call at a time, so the CPU a call used is its own).
 */
function handChain(dependencies: { store: MemoryStore; embedder: Embedder }, namespace: string, cpu: NodeTimes) {
  const deps = dependencyAccessor(dependencies);
  const config = { configurable: {} };
  const timed = cpuTimed(cpu);
  const planCall = planNode(deps);
  const plan = (state: RetrievalStateValue) => timed("plan", () => planCall(state, config));
  const viewCalls = new Map(VIEWS.map((view) => [view.name, viewNode(view, deps)]));
  const view = (name: (typeof VIEWS)[number]["name"], task: ViewTask) => timed(name, async () => (await viewCalls.get(name)?.(task)) ?? {});
  const mergeCall = mergeNode();
  const merge = (state: RetrievalStateValue) => timed("merge", () => mergeCall(state));
  const reflectCall = reflectNode(deps);
  const reflect = (state: RetrievalStateValue) => timed("reflect", () => reflectCall(state, config));
  const finalizeCall = finalizeNode(deps);
  const finalize = (state: RetrievalStateValue) => timed("finalize", () => finalizeCall(state, config));
  const fields: Record<string, z.ZodType> = RetrievalState.shape;
  const reducers = new Map<string, (current: unknown, update: unknown) => unknown>();
  for (const [key, field] of Object.entries(fields)) {
    const reducer = schemaMetaRegistry.get(field)?.reducer?.fn;
    if (reducer) reducers.set(key, reducer);
  }
  const apply = (state: RetrievalStateValue, updates: ReadonlyArray<object>): RetrievalStateValue => {
    const next: Record<string, unknown> = { ...state };
    for (const update of updates) {
      for (const [key, value] of Object.entries(update)) {
        const reducer = reducers.get(key);
        if (Overwrite.isInstance(value)) next[key] = (value as Overwrite<unknown>).value;
        else next[key] = reducer ? reducer(next[key], value) : value;
      }
    }
    return next as RetrievalStateValue;
  };
  const runViews = async (state: RetrievalStateValue, sends: Send[]) => {
    const updates: object[] = [];
    for (const send of sends) updates.push(await view(send.node as (typeof VIEWS)[number]["name"], send.args as ViewTask));
    return apply(state, updates);
  };
  return async (question: string): Promise<RetrievalStateValue> => {
    const initial = { question, namespaces: [namespace], now: SYNTHETIC_NOW, round: 0, viewHits: [], entries: {}, fused: [], results: [], degraded: [], llmCalls: [], nodeMs: {} };
    let state = apply(initial as unknown as RetrievalStateValue, [await plan(initial as unknown as RetrievalStateValue)]);
    let sends: Send[] | "finalize" = routeAfterPlan(state);
    while (sends !== "finalize") {
      state = await runViews(state, sends);
      state = apply(state, [await merge(state)]);
      state = apply(state, [await reflect(state)]);
      sends = routeAfterReflect(state);
    }
    return apply(state, [await finalize(state)]);
  };
}

