import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { CallbackManager } from "@langchain/core/callbacks/manager";
import { awaitAllCallbacks } from "@langchain/core/callbacks/promises";
import type { Serialized } from "@langchain/core/load/serializable";
import { LangChainTracer } from "@langchain/core/tracers/tracer_langchain";
import { listened } from "../../src/runtime/quiet.js";
import { retrieve } from "../../src/library/retrieve.js";
import { teamMemory } from "../support/graph-fixture.js";
import { json, scriptedModel } from "../support/scripted-model.js";
import { NOW } from "../support/team-memory.js";

// The graph calls its nodes and routes directly when nothing listens to a run (src/runtime/quiet.ts);
// these tests hold that a run that is listened to still reports every node, route and model call,
// each model call under the node that made it, to a callback handler and to a LangSmith tracer.

const QUESTION = "Who did Alice talk to about product XYZ-100 in Shanghai last week?";
const NODES = ["plan", "semantic", "lexical", "symbolic", "merge", "reflect", "finalize"];
const PLAN = json({
  requiredInfo: ["who Alice talked to"],
  subQueries: ["Alice meeting Shanghai XYZ-100"],
  keywords: ["Alice", "XYZ-100", "Shanghai"],
  persons: ["Alice"],
  entities: ["XYZ-100"],
  locations: ["Shanghai"],
  timeExpression: "last week",
});
const INCOMPLETE = json({ complete: false, coveragePercent: 40, missing: ["who"], gapQueries: ["Alice meeting partner"] });
const COMPLETE = json({ complete: true, coveragePercent: 100, missing: [], gapQueries: [] });

type Run = { name: string; parent: string | undefined; kind: "chain" | "model" };

/** Every run a handler is told about, by id. */
class Recorder extends BaseCallbackHandler {
  name = "recorder";
  readonly runs = new Map<string, Run>();

  override handleChainStart(_chain: Serialized, _inputs: unknown, runId: string, parentRunId?: string, _tags?: string[], _metadata?: unknown, _runType?: string, runName?: string) {
    this.runs.set(runId, { name: runName ?? _chain.id?.at(-1) ?? "?", parent: parentRunId, kind: "chain" });
  }

  override handleChatModelStart(llm: Serialized, _messages: unknown, runId: string, parentRunId?: string) {
    this.runs.set(runId, { name: llm.id?.at(-1) ?? "model", parent: parentRunId, kind: "model" });
  }

  /** The nearest run above `runId` named like a node. */
  nodeAbove(runId: string): string | undefined {
    for (let parent = this.runs.get(runId)?.parent; parent !== undefined; parent = this.runs.get(parent)?.parent) {
      const run = this.runs.get(parent);
      if (run && NODES.includes(run.name)) return run.name;
    }
    return undefined;
  }
}

/** A scripted model that plans, asks for one more round, then finds the results complete. */
function twoRoundModel() {
  return scriptedModel({ plan: PLAN, reflect: (call) => (call === 1 ? INCOMPLETE : COMPLETE) });
}

describe("a retrieval run that something listens to", () => {
  it("tells a callback handler about every node, route and model call, each model call under its node", async () => {
    const { model } = twoRoundModel();
    const memory = await teamMemory({ model });
    const recorder = new Recorder();
    const output = await retrieve(memory.graph, { question: QUESTION, namespace: "team", now: NOW }, {}, { callbacks: [recorder] });
    assert.equal(output.rounds, 1);
    const names = new Set([...recorder.runs.values()].map((run) => run.name));
    for (const name of NODES) assert.ok(names.has(name), `no run named ${name}: ${[...names].join(", ")}`);
    // The routes, as LangChain names a function made a runnable: after plan, and after each reflect.
    const routes = [...recorder.runs.entries()].filter(([, run]) => run.name === "RunnableLambda");
    assert.deepEqual(routes.map(([id]) => recorder.nodeAbove(id)), ["plan", "reflect", "reflect"]);
    const modelRuns = [...recorder.runs.entries()].filter(([, run]) => run.kind === "model");
    assert.deepEqual(modelRuns.map(([id]) => recorder.nodeAbove(id)), ["plan", "reflect", "reflect"], "each model call is a child of the node that made it");
    await memory.close();
  });

  it("is traced by a LangSmith tracer: the graph, its nodes and the model calls inside them, in one tree", async () => {
    const { model } = twoRoundModel();
    const memory = await teamMemory({ model });
    const posted: Array<{ id: string; name: string; parent_run_id?: string; trace_id?: string; run_type: string }> = [];
    const client = { createRun: async (run: (typeof posted)[number]) => void posted.push(run), updateRun: async () => undefined };
    const tracer = new LangChainTracer({ client: client as never, projectName: "recallgraph-test" });
    await retrieve(memory.graph, { question: QUESTION, namespace: "team", now: NOW }, {}, { callbacks: [tracer] });
    await awaitAllCallbacks();
    const byId = new Map(posted.map((run) => [run.id, run]));
    const root = posted.find((run) => run.parent_run_id === undefined);
    assert.equal(root?.name, "recallgraph");
    for (const name of NODES) assert.ok(posted.some((run) => run.name === name), `no traced run named ${name}`);
    const llmRuns = posted.filter((run) => run.run_type === "llm");
    assert.equal(llmRuns.length, 3, "plan, and reflect twice");
    for (const run of llmRuns) {
      assert.equal(run.trace_id, root?.id, "in the run's trace");
      let node = byId.get(run.parent_run_id ?? "");
      while (node && !NODES.includes(node.name)) node = byId.get(node.parent_run_id ?? "");
      assert.ok(node && ["plan", "reflect"].includes(node.name), `model call under ${node?.name}`);
    }
    await memory.close();
  });

  it("answers the same as a run nothing listens to", async () => {
    const quiet = twoRoundModel();
    const heard = twoRoundModel();
    const quietMemory = await teamMemory({ model: quiet.model });
    const heardMemory = await teamMemory({ model: heard.model });
    const request = { question: QUESTION, namespace: "team", now: NOW };
    const withoutListener = await retrieve(quietMemory.graph, request);
    const withListener = await retrieve(heardMemory.graph, request, {}, { callbacks: [new Recorder()] });
    const answer = (output: typeof withListener) => ({ results: output.results, plan: output.plan, coverage: output.coverage, rounds: output.rounds });
    assert.deepEqual(answer(withListener), answer(withoutListener));
    assert.deepEqual(heard.calls, quiet.calls);
    await quietMemory.close();
    await heardMemory.close();
  });

  it("counts as listened to when its configuration carries a handler, not when it carries none", () => {
    assert.equal(listened(undefined), false);
    assert.equal(listened({}), false);
    assert.equal(listened({ callbacks: [] }), false);
    assert.equal(listened({ callbacks: new CallbackManager() }), false);
    assert.equal(listened({ callbacks: [new Recorder()] }), true);
    const manager = new CallbackManager();
    manager.addHandler(new Recorder(), true);
    assert.equal(listened({ callbacks: manager }), true);
  });
});
