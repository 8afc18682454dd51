import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MemorySaver } from "@langchain/langgraph";
import { AccessDeniedError } from "../../src/core/errors.js";
import { createRememberGraph } from "../../src/graph/remember-graph.js";
import { openRecallGraph } from "../../src/library/open-recallgraph.js";

async function emptyMemory() {
  return openRecallGraph({ store: { kind: "sqlite", path: ":memory:" }, embedder: { provider: "hash", dimension: 128 }, model: null });
}

const dialogue = {
  turns: [
    { turnId: "t1", speaker: "Mia", text: "I made a blue vase in pottery class today.", time: "2026-11-02T18:00:00Z" },
    { turnId: "t2", speaker: "Theo", text: "That sounds lovely, Mia!", time: "2026-11-02T18:01:00Z" },
  ],
};

describe("the write graph", () => {
  it("writes memories and a dialogue, forgets by id, and answers with what it did", async () => {
    const memory = await emptyMemory();
    const remember = createRememberGraph({ store: memory.store, embedder: memory.embedder });
    const first = await remember.invoke({ namespace: "me", memories: [{ id: "a", text: "The boiler was serviced on 3 November 2026." }, { text: "The bins go out on Tuesdays." }], dialogue });
    assert.equal(first.written.length, 4);
    assert.equal(first.written[0], "a");
    assert.equal((await memory.store.get("me", first.written)).length, 4);
    const found = await memory.retrieve({ question: "What did Mia make in pottery class?", namespace: "me" });
    assert.equal(found.results[0]?.speaker, "Mia");
    await assert.rejects(remember.invoke({ namespace: "me", memories: [{ text: "not written" }], forget: ["a", "never-there"] }), /input\.forget\.1: no memory "never-there" in namespace "me"/);
    assert.equal((await memory.store.get("me", ["a"])).length, 1, "an unknown id refuses the whole call");
    assert.equal((await memory.store.stats()).namespaces.me, 4);
    const forgot = await remember.invoke({ namespace: "me", forget: ["a"] });
    assert.deepEqual({ written: forgot.written, deleted: forgot.deleted }, { written: [], deleted: 1 });
    assert.equal((await memory.store.get("me", ["a"])).length, 0);
    await memory.close();
  });

  it("refuses bad input naming the field and writes nothing of it", async () => {
    const memory = await emptyMemory();
    const remember = createRememberGraph({ store: memory.store, embedder: memory.embedder });
    await assert.rejects(remember.invoke({ namespace: "me" }), /^ValidationError: input\.memories: give memories, a dialogue or ids to forget/);
    await assert.rejects(remember.invoke({ namespace: "me", memories: [{ text: "fine" }, { text: "" }] }), /entries\.1\.text: text must not be empty/);
    await assert.rejects(remember.invoke({ memories: [{ text: "x" }] } as never), /input\.namespace/);
    assert.deepEqual((await memory.store.stats()).namespaces, {});
    await memory.close();
  });

  it("refuses a dialogue whose turn id names another stored turn before it writes the call's memories", async () => {
    const memory = await emptyMemory();
    const remember = createRememberGraph({ store: memory.store, embedder: memory.embedder });
    await remember.invoke({ namespace: "me", dialogue });
    const another = { turns: [{ turnId: "t1", speaker: "Mia", text: "The kiln broke this morning.", time: "2026-11-09T09:00:00Z" }] };
    await assert.rejects(remember.invoke({ namespace: "me", memories: [{ id: "b", text: "Not written either." }], dialogue: another }), /turns\.0\.turnId: turn id "t1" already names another turn/);
    assert.equal((await memory.store.get("me", ["b"])).length, 0, "the call wrote nothing");
    assert.equal((await memory.store.stats()).namespaces.me, 2);
    await memory.close();
  });

  it("holds writes to the guard's namespaces", async () => {
    const memory = await emptyMemory();
    const remember = createRememberGraph(
      { store: memory.store, embedder: memory.embedder },
      { guard: ({ namespaces, mode }) => { if (namespaces.some((ns) => ns !== "mine")) throw new AccessDeniedError("me", namespaces[0] ?? "", mode); } },
    );
    await assert.rejects(remember.invoke({ namespace: "theirs", memories: [{ text: "x" }] }), AccessDeniedError);
    assert.deepEqual((await memory.store.stats()).namespaces, {});
    await memory.close();
  });

  it("does not write a previous run's memories again on a reused thread", async () => {
    const memory = await emptyMemory();
    const graph = createRememberGraph({ store: memory.store, embedder: memory.embedder }, { checkpointer: new MemorySaver() });
    const thread = { configurable: { thread_id: "w" } };
    await graph.invoke({ namespace: "me", memories: [{ text: "first" }] }, thread);
    const first = (await memory.store.stats()).namespaces.me;
    assert.equal(first, 1);
    const [written] = (await memory.list("me")).entries;
    const second = await graph.invoke({ namespace: "me", forget: [written?.id ?? ""] }, thread);
    assert.deepEqual(second.written, []);
    assert.equal((await memory.store.stats()).namespaces.me ?? 0, 0, "the first run's memory was not written again");
    await memory.close();
  });

  it("continues a dialogue an agent saves a turn at a time: its turns are one exchange, as saved whole", async () => {
    const memory = await emptyMemory();
    const remember = createRememberGraph({ store: memory.store, embedder: memory.embedder });
    for (const turn of dialogue.turns) await remember.invoke({ namespace: "me", dialogue: { turns: [turn] } });
    const [first, second] = await Promise.all(["t1", "t2"].map(async (turnId) => (await memory.store.list("me", { limit: 10 })).entries.find((entry) => entry.source?.turnIds?.[0] === turnId)));
    assert.deepEqual(second?.source?.contextTurnIds, ["t1"]);
    assert.deepEqual(first?.source?.contextTurnIds, ["t2"], "the earlier turn's memory names the turn saved after it");
    assert.ok(first?.keywords.includes("lovely"), "and carries its words");
    await memory.close();
  });

  it("links the turns of runs that save them at the same moment, as runs one after another do", async () => {
    const memory = await emptyMemory();
    const remember = createRememberGraph({ store: memory.store, embedder: memory.embedder });
    await Promise.all(dialogue.turns.map((turn) => remember.invoke({ namespace: "me", dialogue: { turns: [turn] } })));
    const entries = (await memory.store.list("me", { limit: 10 })).entries;
    const contextOf = (turnId: string) => entries.find((entry) => entry.source?.turnIds?.[0] === turnId)?.source?.contextTurnIds;
    assert.deepEqual([contextOf("t1"), contextOf("t2")], [["t2"], ["t1"]]);
    await memory.close();
  });
});
