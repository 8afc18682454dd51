/**
 * Writing what a memory supersedes, through every surface that writes memories: the library's
 * remember, the agent tools (the same save action MCP serves) and LangGraph's BaseStore. The ids are
 * kept as written and read only inside the memory's own namespace.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { toJsonSchema } from "@langchain/core/utils/json_schema";
import { RecallGraphStore } from "../../src/integrations/langgraph-store.js";
import { createMemoryTools } from "../../src/integrations/memory-tools.js";
import { openRecallGraph, type RecallGraph } from "../../src/library/open-recallgraph.js";

const NOW = Date.parse("2026-05-01T12:00:00Z");

describe("writing supersessions", () => {
  let memory: RecallGraph;
  before(async () => {
    memory = await openRecallGraph({ store: { kind: "sqlite", path: ":memory:" }, embedder: { provider: "hash", dimension: 128 }, model: null });
  });
  after(() => memory.close());

  it("remember keeps supersedes as written; an id held only by another namespace links nothing there, and a later write of it links here", async () => {
    await memory.remember("bob", [{ id: "address", text: "Bob lives in Lisbon.", timestamp: NOW - 1000 }]);
    const [moved] = await memory.remember("alice", [{ id: "moved", text: "Alice moved to Malmö.", timestamp: NOW, supersedes: ["address"], validFrom: "2026-04-01" }]);
    assert.deepEqual(moved?.supersedes, ["address"]);
    assert.equal(moved?.validFrom, "2026-04-01T00:00:00.000Z");
    assert.deepEqual(await memory.store.supersedersOf("bob", ["address"]), [], "Bob's memory is not superseded by Alice's");
    assert.equal((await memory.get("bob", ["address"]))[0]?.text, "Bob lives in Lisbon.");
    await memory.remember("alice", [{ id: "address", text: "Alice lives in Lund.", timestamp: NOW - 5000 }]);
    assert.deepEqual((await memory.store.supersedersOf("alice", ["address"])).map((entry) => entry.id), ["moved"]);
    assert.deepEqual(await memory.store.supersedersOf("bob", ["address"]), []);
  });

  it("refuses a write whose validity ends before it starts, or that supersedes itself, naming the field, and writes nothing", async () => {
    await assert.rejects(memory.remember("alice", [{ text: "x", validFrom: "2026-04-02", validUntil: "2026-04-01" }]), {
      name: "ValidationError",
      field: "entries.0.validUntil",
    });
    await assert.rejects(memory.remember("alice", [{ id: "loop", text: "x", supersedes: ["loop"] }]), { name: "ValidationError", field: "entries.0.supersedes" });
    assert.deepEqual(await memory.get("alice", ["loop"]), []);
  });

  it("the save tool (MCP's save action too) takes supersedes and validity as JSON, and its schema describes them", async () => {
    const [, save] = createMemoryTools({ memory, namespace: "tools" });
    const schema = toJsonSchema(save!.schema) as { properties: Record<string, { description?: string }> };
    for (const field of ["supersedes", "validFrom", "validUntil"]) assert.ok((schema.properties[field]?.description ?? "").length > 20, field);
    await save!.invoke({ id: "deadline-1", text: "The first sprint ends on April 1.", timestamp: "2026-03-01" });
    assert.equal(await save!.invoke({ id: "deadline-2", text: "The first sprint now ends on April 5.", timestamp: "2026-03-10", supersedes: ["deadline-1"], validUntil: "2026-04-05" }), "Saved memory deadline-2.");
    const [stored] = await memory.get("tools", ["deadline-2"]);
    assert.deepEqual([stored?.supersedes, stored?.validUntil], [["deadline-1"], "2026-04-05T00:00:00.000Z"]);
    await assert.rejects(save!.invoke({ text: "x", validFrom: "2026-04-05", validUntil: "2026-04-05" }), /validUntil/);
  });

  it("the recall tool (MCP's recall action too) marks history, puts the present first, and answers as of a time", async () => {
    const [recall] = createMemoryTools({ memory, namespace: "tools", now: () => new Date(NOW) });
    const lines = String(await recall!.invoke({ question: "What is the deadline for the first sprint?" })).split("\n");
    const at = (id: string) => lines.findIndex((line) => line.includes(`(id: ${id})`));
    assert.ok(at("deadline-2") >= 0 && at("deadline-2") < at("deadline-1"), lines.join("\n"));
    assert.match(lines[at("deadline-1")] ?? "", /\[history: superseded by deadline-2\]$/);
    const then = String(await recall!.invoke({ question: "What is the deadline for the first sprint?", asOf: "2026-03-05" }));
    assert.match(then, /\(id: deadline-1\) The first sprint ends on April 1\.$/m);
    assert.doesNotMatch(then, /deadline-2|history/);
    await assert.rejects(recall!.invoke({ question: "x", asOf: "2026-02-30" }), /asOf/);
  });

  it("BaseStore's put takes them in the value, and get gives the value back as it was put", async () => {
    const store = new RecallGraphStore(memory);
    const value = { text: "Carol now works at Tiller.", supersedes: ["job-1"], validFrom: "2026-02-01T00:00:00.000Z" };
    await store.put(["carol"], "job-2", value);
    assert.deepEqual((await store.get(["carol"], "job-2"))?.value, value);
  });
});
