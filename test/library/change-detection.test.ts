/**
 * Change found by the rule builder and contradictions marked at retrieval, end to end: a dialogue
 * ingested with the product's defaults, then asked through the library's retrieve.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ingestDialogue } from "../../src/ingest/dialogue-ingest.js";
import { parseDialogue } from "../../src/ingest/dialogue.js";
import { turnEntryId } from "../../src/ingest/dialogue-rules.js";
import { openRecallGraph, type RecallGraph } from "../../src/library/open-recallgraph.js";
import { createHashEmbedder } from "../../src/text/embedders/hashing.js";
import { openSqliteStore } from "../../src/stores/sqlite/store.js";

const NOW = "2026-02-01T12:00:00Z";

/** A dialogue of (speaker, text) turns T1, T2... a day apart. */
function dialogueOf(turns: ReadonlyArray<[string, string]>) {
  return parseDialogue({
    turns: turns.map(([speaker, text], i) => ({ turnId: `T${i + 1}`, speaker, text, time: new Date(Date.UTC(2026, 0, 5 + i, 9)).toISOString() })),
  });
}

describe("change detected by the rule builder, contradictions marked, through retrieve", () => {
  let memory: RecallGraph;
  const ask = (namespace: string, question: string) => memory.retrieve({ question, namespace, now: NOW }, { finalK: 5 }).then((output) => output.results);

  before(async () => {
    const embedder = createHashEmbedder({ dimension: 256 });
    const store = await openSqliteStore({ path: ":memory:", embedding: embedder.spec });
    await ingestDialogue(
      store,
      embedder,
      "dana",
      dialogueOf([
        ["Dana", "I live in Berlin with my cat."],
        ["Sam", "Nice city! How is the cat?"],
        ["Dana", "Big news: I moved to Malmö last week."],
      ]),
    );
    await ingestDialogue(
      store,
      embedder,
      "ana",
      dialogueOf([
        ["Ana", "My deadline is April 1."],
        ["Bo", "Good luck with it."],
        ["Ana", "My deadline is April 9."],
      ]),
    );
    memory = await openRecallGraph({ store, embedder, model: null });
    // Written as they are, not linked by what they say (as a file's import writes them).
    await memory.remember(
      "ana-notes",
      [
        { id: "early", text: "My deadline is April 1.", speaker: "Ana", timestamp: "2026-01-05T09:00:00Z" },
        { id: "late", text: "My deadline is April 9.", speaker: "Ana", timestamp: "2026-01-07T09:00:00Z" },
        { id: "luck", text: "Good luck with the deadline.", speaker: "Bo", timestamp: "2026-01-06T09:00:00Z" },
      ],
      { linkChanges: false },
    );
  });
  after(() => memory.close());

  it("puts the move before where Dana lived, each hit saying how it stands and why", async () => {
    const results = await ask("dana", "Where does Dana live?");
    const [moved, lived] = [turnEntryId("dana", "T3"), turnEntryId("dana", "T1")];
    const order = results.map((result) => result.id).filter((id) => id === moved || id === lived);
    assert.deepEqual(order, [moved, lived]);
    const [current, old] = [results.find((result) => result.id === moved), results.find((result) => result.id === lived)];
    assert.deepEqual(current?.provenance.supersedes, [lived]);
    assert.match(current?.provenance.supersessionReason ?? "", /moved to.*Malmö.*Berlin/);
    assert.deepEqual([old?.provenance.supersededBy, old?.provenance.history], [[moved], "superseded"]);
  });

  it("reads a restated attribute in a dialogue as a change, not a contradiction", async () => {
    const results = await ask("ana", "What is Ana's deadline?");
    const [first, restated] = [turnEntryId("ana", "T1"), turnEntryId("ana", "T3")];
    assert.deepEqual(results.find((result) => result.id === restated)?.provenance.supersedes, [first]);
    assert.ok(results.every((result) => result.provenance.conflictsWith === undefined));
  });

  it("returns two statements nothing resolves, each marked as conflicting with the other", async () => {
    const results = await ask("ana-notes", "What is Ana's deadline?");
    const byId = (id: string) => results.find((result) => result.id === id);
    assert.deepEqual([byId("early")?.provenance.conflictsWith, byId("late")?.provenance.conflictsWith], [["late"], ["early"]]);
    assert.equal(byId("luck")?.provenance.conflictsWith, undefined);
    assert.equal(byId("early")?.provenance.history, undefined, "a conflict is not history: neither replaces the other");
  });
});
