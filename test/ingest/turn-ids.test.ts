import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ValidationError } from "../../src/core/errors.js";
import type { Dialogue } from "../../src/ingest/dialogue.js";
import { ingestDialogue } from "../../src/ingest/dialogue-ingest.js";
import { saveDialogueAction, type ActionContext } from "../../src/library/memory-actions.js";
import { openRecallGraph, type RecallGraph } from "../../src/library/open-recallgraph.js";

/** A conversation as a model numbers it: turn ids from "1", whatever was saved before. */
const conversation = (day: number, ...texts: string[]): Dialogue => ({
  turns: texts.map((text, index) => ({ turnId: String(index + 1), speaker: index % 2 ? "assistant" : "user", text, time: `2026-12-0${day}T10:00:0${index}Z` })),
});

describe("a turn id names one turn in its namespace", () => {
  let memory: RecallGraph;
  const texts = async () => (await memory.store.list("me", { limit: 20 })).entries.map((entry) => entry.text).sort();
  before(async () => {
    memory = await openRecallGraph({ store: { kind: "sqlite", path: ":memory:" }, embedder: { provider: "hash", dimension: 64 }, model: null });
    await ingestDialogue(memory.store, memory.embedder, "me", conversation(1, "My sister Anna lives in Oslo.", "Oslo is lovely in spring."));
  });
  after(() => memory.close());

  it("refuses a turn of another conversation given a stored turn's id, naming it, and keeps what was saved", async () => {
    const before = await texts();
    await assert.rejects(
      ingestDialogue(memory.store, memory.embedder, "me", conversation(2, "I start a new job at Spotify on Monday.")),
      (error: unknown) => error instanceof ValidationError && error.field === "turns.0.turnId" && /turn id "1" already names another turn, said at 2026-12-01T10:00:00.000Z/.test(error.message),
    );
    assert.deepEqual(await texts(), before);
  });

  it("says so to a model through save_dialogue, which can save the turn again under an id of its own", async () => {
    const context: ActionContext = { memory, namespace: "me" };
    await assert.rejects(saveDialogueAction(context, conversation(2, "I start a new job at Spotify on Monday.")), /turns\.0\.turnId: turn id "1"/);
    const renamed = conversation(2, "I start a new job at Spotify on Monday.");
    renamed.turns[0] = { ...renamed.turns[0]!, turnId: "2026-12-02/1" };
    assert.equal(await saveDialogueAction(context, renamed), "Saved 1 memories from 1 turns.");
    assert.ok((await texts()).includes("user said: My sister Anna lives in Oslo."));
  });

  it("replaces the memories of a conversation saved again as it grew, its times given anew", async () => {
    await ingestDialogue(memory.store, memory.embedder, "grown", conversation(1, "I adopted a cat.", "What is its name?"));
    await ingestDialogue(memory.store, memory.embedder, "grown", conversation(4, "I adopted a cat.", "What is its name?", "Her name is Miso."));
    const entries = (await memory.store.list("grown", { limit: 10 })).entries;
    assert.deepEqual(entries.map((entry) => entry.text).sort(), ["assistant said: What is its name?", "user said: Her name is Miso.", "user said: I adopted a cat."]);
    assert.ok(entries.every((entry) => entry.timestamp.startsWith("2026-12-04")), "at the times given last");
  });

  it("replaces the memories of the same turns saved again, and of the same origin read again", async () => {
    await ingestDialogue(memory.store, memory.embedder, "me", conversation(1, "My sister Anna lives in Bergen.", "Oslo is lovely in spring."));
    const saved = await texts();
    assert.ok(saved.includes("user said: My sister Anna lives in Bergen.") && !saved.includes("user said: My sister Anna lives in Oslo."), saved.join(" | "));
    await ingestDialogue(memory.store, memory.embedder, "file", conversation(1, "Standup moved to 9:30."), { origin: "notes.json" });
    await ingestDialogue(memory.store, memory.embedder, "file", conversation(3, "Standup moved to 9:45."), { origin: "notes.json" });
    assert.deepEqual((await memory.store.list("file", { limit: 5 })).entries.map((entry) => entry.text), ["user said: Standup moved to 9:45."]);
  });
});
