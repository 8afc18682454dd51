import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Annotation, END, getStore, START, StateGraph } from "@langchain/langgraph";
import { RecallGraphStore } from "../../src/integrations/langgraph-store.js";
import { openRecallGraph, type RecallGraph } from "../../src/library/open-recallgraph.js";

describe("recallgraph as LangGraph's store", () => {
  let memory: RecallGraph;
  let store: RecallGraphStore;
  before(async () => {
    memory = await openRecallGraph({ store: { kind: "sqlite", path: ":memory:" }, embedder: { provider: "hash", dimension: 128 }, model: null });
    store = new RecallGraphStore(memory);
  });
  after(() => memory.close());

  it("serves a graph compiled with it: a node puts, then searches through getStore()", async () => {
    const State = Annotation.Root({ question: Annotation<string>, found: Annotation<string[]> });
    const graph = new StateGraph(State)
      .addNode("learn", async () => {
        const own = getStore();
        await own?.put(["alice", "notes"], "kettle", { text: "Alice keeps the spare kettle in the garage.", persons: ["Alice"] });
        await own?.put(["alice", "notes"], "bike", { text: "Alice rides a green bike to work." });
        return {};
      })
      .addNode("ask", async (state) => {
        const items = (await getStore()?.search(["alice"], { query: state.question, limit: 1 })) ?? [];
        return { found: items.map((item) => `${item.namespace.join("/")}:${item.key}:${typeof item.score}`) };
      })
      .addEdge(START, "learn")
      .addEdge("learn", "ask")
      .addEdge("ask", END)
      .compile({ store });
    const result = await graph.invoke({ question: "Where is the spare kettle?" });
    assert.deepEqual(result.found, ["alice/notes:kettle:number"]);
  });

  it("gets, lists, filters and deletes the way BaseStore callers expect", async () => {
    const item = await store.get(["alice", "notes"], "kettle");
    assert.equal(item?.value.text, "Alice keeps the spare kettle in the garage.");
    assert.deepEqual(item?.value.persons, ["Alice"]);
    assert.equal(await store.get(["alice", "notes"], "nothing"), null);
    const listed = await store.search(["alice"], { limit: 10 });
    assert.deepEqual(listed.map((i) => i.key).sort(), ["bike", "kettle"]);
    const filtered = await store.search(["alice"], { filter: { persons: ["Alice"] } });
    assert.deepEqual(filtered.map((i) => i.key), ["kettle"]);
    assert.deepEqual(await store.listNamespaces({ prefix: ["alice"] }), [["alice", "notes"]]);
    assert.deepEqual(await store.listNamespaces({ maxDepth: 1 }), [["alice"]]);
    await store.delete(["alice", "notes"], "bike");
    await store.delete(["alice", "notes"], "bike");
    assert.equal(await store.get(["alice", "notes"], "bike"), null);
  });

  it("refuses a value it cannot index and a bad namespace, naming them, and writes nothing", async () => {
    await assert.rejects(store.put(["alice"], "x", { content: "no text field" }), /value/);
    await assert.rejects(store.put(["alice", "a/b"], "x", { text: "slash" }), /namespace\.1/);
    assert.equal(await store.get(["alice"], "x"), null);
  });
});
