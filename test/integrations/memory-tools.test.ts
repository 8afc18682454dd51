import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { toJsonSchema } from "@langchain/core/utils/json_schema";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { createMemoryTools } from "../../src/integrations/memory-tools.js";
import type { RecallGraph } from "../../src/library/open-recallgraph.js";
import { teamMemory } from "../support/graph-fixture.js";
import { NOW } from "../support/team-memory.js";

const toolReplies = (messages: readonly BaseMessage[]) => messages.filter((message) => ToolMessage.isInstance(message)).map((message) => String(message.content));

describe("an agent's memory tools", () => {
  let memory: RecallGraph;
  before(async () => {
    memory = await teamMemory();
  });
  after(() => memory.close());

  it("are made for one namespace: recall, save, save a dialogue, forget, list", () => {
    const tools = createMemoryTools({ memory, namespace: "team" });
    assert.deepEqual(tools.map((t) => t.name), ["recall_memories", "save_memory", "save_dialogue", "forget_memories", "list_memories"]);
    for (const t of tools) {
      assert.ok(t.description.length > 20, `${t.name} has a description to guide a model`);
      // What a chat model's bindTools sends: the arguments as JSON Schema (a Date-typed field would throw here).
      assert.equal((toJsonSchema(t.schema) as { type?: string }).type, "object", t.name);
    }
  });

  it("let an agent save a memory, recall it and forget it through the real store", async () => {
    const tools = createMemoryTools({ memory, namespace: "mine", now: () => new Date(NOW) });
    const model = fakeModel()
      .respondWithTools([{ name: "save_memory", args: { id: "kettle", text: "Ana keeps the spare kettle in the garage.", persons: ["Ana"] } }])
      .respondWithTools([{ name: "recall_memories", args: { question: "Where is the spare kettle?" } }])
      .respondWithTools([{ name: "forget_memories", args: { ids: ["kettle"] } }])
      .respondWithTools([{ name: "recall_memories", args: { question: "Where is the spare kettle?", filter: { persons: ["Ana"] } } }])
      .respond(new AIMessage("Done."));
    const agent = createReactAgent({ llm: model, tools });
    const state = await agent.invoke({ messages: [new HumanMessage("Remember where the kettle is, check, then forget it.")] });
    const [saved, recalled, forgot, again] = toolReplies(state.messages);
    assert.equal(saved, "Saved memory kettle.");
    assert.match(recalled ?? "", /\(id: kettle\) Ana keeps the spare kettle in the garage\./);
    assert.equal(forgot, "Forgot 1 memory.");
    assert.equal(again, "No stored memory matches.");
    assert.deepEqual(await memory.get("mine", ["kettle"]), []);
    assert.equal(state.messages.at(-1)?.content, "Done.");
  });

  it("never reach another namespace, whatever the model writes", async () => {
    const [recall, , , forget] = createMemoryTools({ memory, namespace: "team", now: () => new Date(NOW) });
    const answer = String(await recall!.invoke({ question: "Who did Alice meet in Shanghai?" }));
    assert.doesNotMatch(answer, /rival/);
    await assert.rejects(forget!.invoke({ ids: ["shanghai-meeting"], namespace: "rivals" } as never), /namespace|Unrecognized|unrecognized/);
    assert.equal((await memory.get("rivals", ["shanghai-meeting"])).length, 1);
  });

  it("refuse bad arguments naming the field, and change nothing", async () => {
    const [, save, , forget, list] = createMemoryTools({ memory, namespace: "team" });
    const before = (await memory.store.stats()).namespaces.team;
    await assert.rejects(save!.invoke({ text: "" }), /text/);
    await assert.rejects(forget!.invoke({ ids: ["err-1024", "no-such-memory"] }), /ids\.1: no memory "no-such-memory" in namespace "team"/);
    await assert.rejects(list!.invoke({ filter: { since: "2026-11-12", until: "2026-11-01" } }), /until/);
    await assert.rejects(save!.invoke({ text: "Too late.", expiresAt: "2020-01-01T00:00:00Z" }), /expiresAt/);
    assert.equal((await memory.store.stats()).namespaces.team, before);
    assert.equal((await memory.get("team", ["err-1024"])).length, 1);
  });

  it("list a namespace newest first, a page at a time, with filters", async () => {
    const [, , , , list] = createMemoryTools({ memory, namespace: "team" });
    const firstPage = String(await list!.invoke({ limit: 2 }));
    assert.match(firstPage, /^- \[2026-11-12\] \(id: berlin-call\)/);
    assert.match(firstPage, /\(more: pass cursor /);
    const dave = String(await list!.invoke({ filter: { persons: ["Dave"] } }));
    assert.deepEqual([...dave.matchAll(/\(id: ([^)]+)\)/g)].map((m) => m[1]), ["err-2048", "err-1024"]);
  });
});
