/**
 * The fields a memory's text gives (keywords, persons, entities) are filled by the one write path, so
 * the same text is stored alike whichever surface writes it, and a long word in it never has the
 * memory refused over a field its writer did not give.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { ingestDocumentText } from "../../src/ingest/documents.js";
import { ingestFile } from "../../src/ingest/ingest-file.js";
import { derivedList, fillMissingFields } from "../../src/ingest/text-fields.js";
import { RecallGraphStore } from "../../src/integrations/langgraph-store.js";
import { saveAction } from "../../src/library/memory-actions.js";
import { openRecallGraph, type RecallGraph } from "../../src/library/open-recallgraph.js";
import { MAX_ID_CHARS, type MemoryEntry } from "../../src/memory/entry.js";
import { createEmbedder } from "../../src/text/embedders/create-embedder.js";

const TEXT = "Alice Chen met my colleague Wang about XYZ-100 at NASA in Shanghai.";
const LONG_WORD = `https://example.com/${"a".repeat(300)}`;

const derivedFields = (entry: MemoryEntry | undefined) => ({ keywords: entry?.keywords, persons: entry?.persons, entities: entry?.entities });

describe("fields from a memory's text", () => {
  it("fills absent keywords, persons and entities, and respects given ones, an empty list included", () => {
    const filled = fillMissingFields({ text: TEXT });
    assert.ok(filled.keywords?.includes("XYZ-100") && filled.keywords.includes("XYZ"), "a code and its family");
    assert.deepEqual(filled.persons, ["Wang"], "a person the name rules find by its cue");
    assert.ok(filled.entities?.includes("XYZ-100") && filled.entities.includes("Shanghai"));
    const kept = fillMissingFields({ text: "Alice met Bob.", keywords: [], persons: ["Alice"], entities: [] });
    assert.deepEqual([kept.keywords, kept.persons, kept.entities], [[], ["Alice"], []]);
  });

  it("cuts a word too long for a stored name, and drops a repeat in another case", () => {
    const list = derivedList([LONG_WORD, "Oslo", "oslo"], 10);
    assert.deepEqual(list.map((name) => name.length), [MAX_ID_CHARS, 4]);
    assert.equal(derivedList(["a", "b", "c"], 2).length, 2);
  });
});

describe("every surface stores the same text alike", () => {
  let memory: RecallGraph;
  let folder: string;
  before(async () => {
    memory = await openRecallGraph({ store: { kind: "sqlite", path: ":memory:" }, embedder: createEmbedder({ provider: "hash", dimension: 64 }), model: null });
    folder = await mkdtemp(path.join(tmpdir(), "recallgraph-text-fields-"));
  });
  after(async () => {
    await memory.close();
    await rm(folder, { recursive: true, force: true });
  });

  it("the library, the save tool, LangGraph's store and a JSON Lines file", async () => {
    await memory.remember("library", [{ id: "m", text: TEXT }]);
    await saveAction({ memory, namespace: "tool" }, { id: "m", text: TEXT });
    await new RecallGraphStore(memory).put(["store"], "m", { text: TEXT });
    const file = path.join(folder, "m.jsonl");
    await writeFile(file, `${JSON.stringify({ id: "m", text: TEXT })}\n`);
    await ingestFile(file, { store: memory.store, embedder: memory.embedder, namespace: "file" });

    const expected = fillMissingFields({ text: TEXT });
    for (const namespace of ["library", "tool", "store", "file"]) {
      const [entry] = await memory.get(namespace, ["m"]);
      assert.deepEqual(derivedFields(entry), { keywords: expected.keywords, persons: expected.persons, entities: expected.entities }, namespace);
    }
  });

  it("LangGraph's store gives a value back as it was put, and putting it again writes the same memory", async () => {
    const store = new RecallGraphStore(memory);
    await store.put(["values"], "plain", { text: TEXT });
    await store.put(["values"], "given", { text: TEXT, keywords: [], persons: ["Alice Chen"] });
    assert.deepEqual((await store.get(["values"], "plain"))?.value, { text: TEXT });
    const given = await store.get(["values"], "given");
    assert.deepEqual(given?.value, { text: TEXT, keywords: [], persons: ["Alice Chen"] }, "the given lists; entities came from the text");
    const [before] = await memory.get("values", ["given"]);
    await store.put(["values"], "given", given?.value ?? {});
    const [again] = await memory.get("values", ["given"]);
    assert.deepEqual(derivedFields(again), derivedFields(before));
  });

  it("a word longer than a stored name is written, from a JSON Lines line and from a document", async () => {
    const text = `See ${LONG_WORD} for the details of XYZ-100.`;
    const file = path.join(folder, "long.jsonl");
    await writeFile(file, `${JSON.stringify({ id: "long", text })}\n`);
    await ingestFile(file, { store: memory.store, embedder: memory.embedder, namespace: "long" });
    const [line] = await memory.get("long", ["long"]);
    assert.equal(line?.text, text);
    assert.ok(line?.keywords.some((word) => word.length === MAX_ID_CHARS), "the long word, cut");

    const { document } = await ingestDocumentText(memory.store, memory.embedder, "long-doc", "notes.md", `# Notes\n\n${text}\n`);
    assert.equal(document.chunks, 1);
  });

  it("a plain memory's capitalised names are entities the planner can ask about", async () => {
    await memory.remember("notes", [
      { id: "moved", text: "Dana moved to Malmö for her job at Spotify" },
      { id: "erik", text: "Erik moved to Stockholm for a new job" },
    ]);
    const output = await memory.retrieve({ question: "Who took a job at Spotify?", namespace: "notes" });
    assert.deepEqual(output.plan?.entities, ["Spotify"]);
    assert.equal(output.results[0]?.id, "moved");
    assert.ok(output.results[0]?.provenance.views.includes("symbolic"));
  });
});
