/**
 * Notes that say a change: memories written one at a time (the library's remember, the save tool, the
 * write graph) supersede the earlier note they replace, by the rule builder's forms, unless their
 * writer says what they supersede; a BaseStore's values and a file's import are never linked.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ingestDialogue } from "../../src/ingest/dialogue-ingest.js";
import { parseDialogue } from "../../src/ingest/dialogue.js";
import { writeMemories } from "../../src/ingest/write-memories.js";
import { createMemoryTools } from "../../src/integrations/memory-tools.js";
import { RecallGraphStore } from "../../src/integrations/langgraph-store.js";
import { openRecallGraph, type RecallGraph } from "../../src/library/open-recallgraph.js";
import { createHashEmbedder } from "../../src/text/embedders/hashing.js";

const day = (n: number): string => new Date(Date.UTC(2026, 0, n, 9)).toISOString();

describe("notes that say a change", () => {
  let memory: RecallGraph;
  const supersedesOf = async (namespace: string, id: string) => (await memory.get(namespace, [id]))[0]?.supersedes;

  before(async () => {
    memory = await openRecallGraph({ store: { kind: "sqlite", path: ":memory:" }, embedder: createHashEmbedder({ dimension: 64 }), model: null });
  });
  after(() => memory.close());

  it("replace the earlier note about the same people, in a later write or the same one", async () => {
    await memory.remember("home", [
      { id: "dana-oslo", text: "Dana lives in Oslo with her two cats.", timestamp: day(1) },
      { id: "me-bergen", text: "I live in Bergen and work at Equinor.", timestamp: day(2) },
    ]);
    const [moved] = await memory.remember("home", [{ id: "dana-malmo", text: "Dana moved to Malmö for her job.", timestamp: day(3) }]);
    assert.deepEqual(moved?.supersedes, ["dana-oslo"], "Dana's move replaces Dana's home, not the writer's");
    assert.match(moved?.supersessionReason ?? "", /"moved to": Malmö replaces Oslo \(memory dana-oslo\)/);
    const written = await memory.remember("home", [
      { id: "me-trondheim", text: "I moved to Trondheim in March.", timestamp: day(5) },
      { id: "sprint-1", text: "The deadline for the first sprint is April 1.", timestamp: day(6) },
      { id: "sprint-2", text: "The first sprint deadline was moved to April 5.", timestamp: day(7) },
    ]);
    assert.deepEqual(written.map((entry) => entry.supersedes), [["me-bergen"], undefined, ["sprint-1"]]);
    const answer = await memory.retrieve({ question: "Where does Dana live?", namespace: "home", now: day(10) });
    const ids = answer.results.map((result) => result.id);
    assert.ok(ids.indexOf("dana-malmo") < ids.indexOf("dana-oslo"), ids.join(" "));
    assert.deepEqual(answer.results.find((result) => result.id === "dana-oslo")?.provenance.supersededBy, ["dana-malmo"]);
  });

  it("leave what the writer said, a change that does not say whose, and other namespaces", async () => {
    await memory.remember("given", [{ id: "old", text: "Dana lives in Oslo.", timestamp: day(1) }]);
    await memory.remember("other", [{ id: "elsewhere", text: "Dana lives in Lund.", timestamp: day(1) }]);
    const written = await memory.remember("given", [
      { id: "said-none", text: "Dana moved to Malmö.", timestamp: day(2), supersedes: [] },
      { id: "unnamed", text: "She moved to Lund.", timestamp: day(3) },
    ]);
    assert.deepEqual(written.map((entry) => entry.supersedes), [undefined, undefined]);
    const [off] = await memory.remember("given", [{ id: "off", text: "Dana moved to Bergen.", timestamp: day(4) }], { linkChanges: false });
    assert.equal(off?.supersedes, undefined);
    const [linked] = await memory.remember("other", [{ id: "later", text: "Dana moved to Malmö.", timestamp: day(5) }]);
    assert.deepEqual(linked?.supersedes, ["elsewhere"], "only its own namespace's note");
  });

  it("are not compared with a dialogue's turns, and a file's import links nothing", async () => {
    await ingestDialogue(memory.store, memory.embedder, "mixed", parseDialogue({ turns: [{ turnId: "T1", speaker: "Dana", text: "I live in Berlin.", time: day(1) }] }));
    const [note] = await memory.remember("mixed", [{ id: "note", text: "I moved to Malmö.", timestamp: day(2) }]);
    assert.equal(note?.supersedes, undefined);
    await memory.remember("import", [{ id: "a", text: "Dana lives in Oslo.", timestamp: day(1) }]);
    const [imported] = await writeMemories(memory.store, memory.embedder, "import", [{ id: "b", text: "Dana moved to Malmö.", timestamp: day(2) }]);
    assert.equal(imported?.supersedes, undefined);
  });

  it("are linked through the save tool, also two at once; never through a BaseStore put", async () => {
    const [, save] = createMemoryTools({ memory, namespace: "agent" });
    // An agent's tool calls of one step run side by side: the later save still sees the earlier one.
    await Promise.all([
      save!.invoke({ id: "city", text: "The user lives in Paris.", timestamp: day(1) }),
      save!.invoke({ id: "moved", text: "The user moved to Lyon.", timestamp: day(3) }),
    ]);
    assert.deepEqual(await supersedesOf("agent", "moved"), ["city"]);
    const store = new RecallGraphStore(memory);
    await store.put(["kv"], "home", { text: "Dana lives in Oslo.", timestamp: day(1) });
    await store.put(["kv"], "move", { text: "Dana moved to Malmö.", timestamp: day(2) });
    assert.equal((await memory.get("kv", ["move"]))[0]?.supersedes, undefined);
  });
});
