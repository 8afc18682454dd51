import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { Annotation, END, START, StateGraph } from "@langchain/langgraph";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { RecallGraphRetriever } from "../../src/integrations/retriever.js";
import { createRecallTool } from "../../src/integrations/tool.js";
import type { RecallGraph } from "../../src/library/open-recallgraph.js";
import type { RetrievalResult } from "../../src/domain/results.js";
import { teamMemory } from "../support/graph-fixture.js";
import { NOW } from "../support/team-memory.js";

describe("recallgraph inside LangChain and LangGraph", () => {
  let memory: RecallGraph;
  before(async () => {
    memory = await teamMemory();
  });
  after(() => memory.close());

  it("is a retriever whose documents carry the entry's metadata", async () => {
    const retriever = new RecallGraphRetriever({ graph: memory.graph, namespace: "team", now: () => new Date(NOW) });
    const documents = await retriever.invoke("What happened with ERR_1024?");
    assert.equal(documents[0]?.metadata.id, "err-1024");
    assert.match(documents[0]?.pageContent ?? "", /ERR_1024/);
    assert.ok(documents.every((document) => document.metadata.namespace === "team"));
  });

  it("is a tool an agent calls, bound to its namespace", async () => {
    const recall = createRecallTool({ graph: memory.graph, namespace: "team", now: () => new Date(NOW) });
    const model = fakeModel()
      .respondWithTools([{ name: "recall_memories", args: { question: "Who did Alice meet in Shanghai last week?" } }])
      .respond(new AIMessage("Alice met Bob."));
    const agent = createReactAgent({ llm: model, tools: [recall] });
    const state = await agent.invoke({ messages: [new HumanMessage("Who did Alice meet in Shanghai last week?")] });
    const toolReply = state.messages.find((message) => ToolMessage.isInstance(message));
    assert.ok(toolReply, "the agent called the tool");
    assert.match(String(toolReply.content), /Alice met Bob in Shanghai/);
    assert.doesNotMatch(String(toolReply.content), /rival/);
    assert.equal(state.messages.at(-1)?.content, "Alice met Bob.");
  });

  it("runs as a subgraph node of a parent graph", async () => {
    const Parent = Annotation.Root({
      question: Annotation<string>,
      namespaces: Annotation<string[]>,
      now: Annotation<string | undefined>,
      /** Shared with the retrieval graph's state, so the subgraph's results flow into the parent. */
      results: Annotation<RetrievalResult[]>,
      answer: Annotation<string | undefined>,
    });
    const parent = new StateGraph(Parent)
      .addNode("recall", memory.graph)
      .addNode("respond", (state: typeof Parent.State) => ({ answer: state.results[0]?.text ?? "" }))
      .addEdge(START, "recall")
      .addEdge("recall", "respond")
      .addEdge("respond", END)
      .compile();
    const result = await parent.invoke({ question: "What happened with ERR_1024?", namespaces: ["team"], now: NOW });
    assert.match(result.answer ?? "", /ERR_1024/);
  });
});
