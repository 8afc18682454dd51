/**
 * A source replaces itself: re-ingesting a changed file or folder into a namespace retires what its new
 * version no longer holds, and touches nothing else (other namespaces, other origins, refused input).
 */
import assert from "node:assert/strict";
import { cp, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { ValidationError } from "../../src/core/errors.js";
import { ingestDocuments } from "../../src/ingest/documents.js";
import { ingestFile } from "../../src/ingest/ingest-file.js";
import { openRecallGraph, type RecallGraph } from "../../src/library/open-recallgraph.js";
import type { MemoryEntry } from "../../src/memory/entry.js";
import type { MemoryStore } from "../../src/stores/port.js";
import { openTestSqliteStore, testEmbedder } from "./helpers.js";

const T1 = Date.UTC(2026, 2, 1);
const T2 = Date.UTC(2026, 2, 2);

const jsonl = (...texts: readonly string[]): string => `${texts.map((text) => JSON.stringify({ text })).join("\n")}\n`;

/** Every entry of the namespace (all pages). */
async function everything(store: MemoryStore, namespace: string): Promise<MemoryEntry[]> {
  const entries: MemoryEntry[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.list(namespace, { limit: 1000, ...(cursor ? { cursor } : {}) });
    entries.push(...page.entries);
    cursor = page.nextCursor;
  } while (cursor);
  return entries;
}

const texts = async (store: MemoryStore, namespace: string): Promise<string[]> => (await everything(store, namespace)).map((entry) => entry.text).sort();

describe("a source replaces itself", () => {
  let folder = "";
  let memory: RecallGraph;
  const file = (name: string) => path.join(folder, name);
  const ingest = (input: string, options: { namespace?: string; origin?: string; now?: number; format?: "jsonl" | "docs" | "dialogue" | "locomo" } = {}) =>
    ingestFile(input, { store: memory.store, embedder: testEmbedder, ...options });
  /** The texts the retrieval graph (lexical view) answers `question` with in `namespace`. */
  const retrieved = async (namespace: string, question: string) =>
    (await memory.retrieve({ question, namespace }, { preset: "lexical" })).results.map((result) => result.text);

  before(async () => {
    folder = await mkdtemp(path.join(tmpdir(), "recallgraph-replace-"));
  });
  after(async () => {
    await memory?.close();
    await rm(folder, { recursive: true, force: true });
  });

  it("an edited JSON Lines file without ids: edited and deleted lines are gone, unchanged ones keep createdAt", async () => {
    memory = await openRecallGraph({ store: await openTestSqliteStore(), embedder: testEmbedder, model: null });
    const v1 = jsonl("Alice moved to Lisbon.", "Bob adopted a beagle named Pixel.", "Carol sold her kayak.");
    await writeFile(file("notes.jsonl"), v1);
    await ingest(file("notes.jsonl"), { namespace: "team", now: T1 });
    // The same file in another namespace, and another file in this one: neither may change.
    await ingest(file("notes.jsonl"), { namespace: "other", now: T1 });
    await writeFile(file("more.jsonl"), jsonl("Dave sold his kayak too."));
    await ingest(file("more.jsonl"), { namespace: "team", now: T1 });
    assert.deepEqual(await retrieved("team", "beagle"), ["Bob adopted a beagle named Pixel."], "the old line is found before the edit");

    await writeFile(file("notes.jsonl"), jsonl("Alice moved to Lisbon.", "Bob adopted a poodle named Pixel."));
    const summary = await ingest(file("notes.jsonl"), { namespace: "team", now: T2 });

    assert.deepEqual(await texts(memory.store, "team"), ["Alice moved to Lisbon.", "Bob adopted a poodle named Pixel.", "Dave sold his kayak too."]);
    assert.deepEqual(await retrieved("team", "beagle"), []);
    assert.deepEqual(await retrieved("team", "Carol kayak"), ["Dave sold his kayak too."]);
    assert.equal(summary.retired, 2, "the edited line's old version and the deleted line");
    const alice = (await everything(memory.store, "team")).find((entry) => entry.text.startsWith("Alice"));
    assert.equal(alice?.createdAt, new Date(T1).toISOString(), "an unchanged line keeps its createdAt");
    assert.equal(alice?.updatedAt, new Date(T2).toISOString());
    assert.deepEqual(await texts(memory.store, "other"), ["Alice moved to Lisbon.", "Bob adopted a beagle named Pixel.", "Carol sold her kayak."]);
    assert.ok((await everything(memory.store, "team")).every((entry) => entry.source?.origin === file("notes.jsonl") || entry.source?.origin === file("more.jsonl")));
  });

  it("a refused re-ingest (a bad line) writes nothing and retires nothing", async () => {
    const before = await everything(memory.store, "team");
    await writeFile(file("notes.jsonl"), `${JSON.stringify({ text: "Alice moved to Porto." })}\n${JSON.stringify({ text: "" })}\n`);
    await assert.rejects(ingest(file("notes.jsonl"), { namespace: "team", now: T2 + 1 }), (error: unknown) => error instanceof ValidationError && /^line 2: text/.test(error.message));
    assert.deepEqual(await everything(memory.store, "team"), before);
  });

  it("a folder with a removed document: its chunks are gone; other namespaces and other origins keep theirs", async () => {
    const docs = file("kb");
    await mkdir(path.join(docs, "guide"), { recursive: true });
    await writeFile(path.join(docs, "a.md"), "# Alpha\n\nThe alpha service runs on port 8080.");
    await writeFile(path.join(docs, "b.md"), "# Beta\n\nThe beta service is retired in June.\n\n## Notes\n\nBeta used the zephyr queue.");
    await writeFile(path.join(docs, "guide", "c.md"), "# Gamma\n\nGamma needs a restart every Monday.");
    const elsewhere = file("elsewhere");
    await mkdir(elsewhere);
    await writeFile(path.join(elsewhere, "z.md"), "# Zeta\n\nAnother team's zeta notes.");
    await ingest(docs, { namespace: "kb" });
    await ingest(docs, { namespace: "kb-copy" });
    await ingest(elsewhere, { namespace: "kb" });
    const betaChunks = (await memory.store.documentEntryIds("kb", "b.md")).length;
    assert.ok(betaChunks >= 2);

    await rm(path.join(docs, "b.md"));
    const summary = await ingest(docs, { namespace: "kb" });

    assert.equal(summary.entries, 0, "the unchanged documents are not written again");
    assert.deepEqual(await retrieved("kb", "zephyr queue"), []);
    const documents = new Set((await everything(memory.store, "kb")).map((entry) => `${entry.source?.origin === docs ? "kb" : "elsewhere"}:${entry.source?.documentId}`));
    assert.deepEqual([...documents].sort(), ["elsewhere:z.md", "kb:a.md", "kb:guide/c.md"]);
    assert.equal(summary.retired, betaChunks, "b.md's chunks");
    assert.ok((await memory.store.documentEntryIds("kb-copy", "b.md")).length >= 2, "the same folder in another namespace is untouched");
  });

  it("documents ingested before origins were recorded are taken over, then retired when removed", async () => {
    const docs = file("legacy");
    await mkdir(docs);
    await writeFile(path.join(docs, "keep.md"), "# Keep\n\nKept notes about the orchid greenhouse.");
    await writeFile(path.join(docs, "drop.md"), "# Drop\n\nDropped notes about the walrus exhibit.");
    await ingestDocuments(memory.store, testEmbedder, "legacy", docs);
    const first = await ingest(docs, { namespace: "legacy" });
    assert.equal(first.entries, 2, "unchanged, but written again to carry the origin");
    assert.ok((await everything(memory.store, "legacy")).every((entry) => entry.source?.origin === docs && entry.source.version === 1));

    await rm(path.join(docs, "drop.md"));
    const second = await ingest(docs, { namespace: "legacy" });
    assert.deepEqual(await retrieved("legacy", "walrus"), []);
    assert.equal(second.retired, 1);
  });

  it("a moved folder keeps replacing under a name given as its origin", async () => {
    const old = file("shelf");
    await mkdir(old);
    await writeFile(path.join(old, "one.md"), "# One\n\nThe first shelf note.");
    await writeFile(path.join(old, "two.md"), "# Two\n\nThe second shelf note about marmots.");
    await ingest(old, { namespace: "shelf", origin: "shelf-notes" });
    const moved = file("shelf-moved");
    await cp(old, moved, { recursive: true });
    await rm(old, { recursive: true });
    await rm(path.join(moved, "two.md"));
    const summary = await ingest(moved, { namespace: "shelf", origin: "shelf-notes" });
    assert.deepEqual(await retrieved("shelf", "marmots"), []);
    assert.equal(summary.retired, 1);
  });

  it("an edited dialogue: removed turns are retired, an edited one replaced, nothing of the old version stays", async () => {
    const turn = (turnId: string, text: string, minute: number) => ({ turnId, speaker: minute % 2 ? "Ben" : "Ann", text, time: new Date(Date.UTC(2026, 2, 10, 9, minute)).toISOString() });
    await writeFile(
      file("chat.json"),
      JSON.stringify({ turns: [turn("t1", "I bought a red canoe.", 0), turn("t2", "Nice, where will you paddle?", 1), turn("t3", "On Lake Tahoe next week.", 2)] }),
    );
    await ingest(file("chat.json"), { namespace: "chat" });
    await writeFile(file("chat.json"), JSON.stringify({ turns: [turn("t1", "I bought a green canoe.", 0), turn("t2", "Nice, where will you paddle?", 1)] }));
    const summary = await ingest(file("chat.json"), { namespace: "chat" });
    const entries = await everything(memory.store, "chat");
    assert.deepEqual(entries.map((entry) => entry.source?.turnIds).sort(), [["t1"], ["t2"]]);
    assert.ok(entries.some((entry) => entry.text.includes("green canoe")));
    assert.deepEqual(await retrieved("chat", "Lake Tahoe"), []);
    assert.equal(summary.retired, 1, "t3's entry");
  });

  it("an edited LoCoMo file: turns removed from a sample are retired from its namespace, other samples untouched", async () => {
    const sample = (id: string, turns: readonly string[]) => ({
      sample_id: id,
      conversation: {
        speaker_a: "Ann",
        speaker_b: "Ben",
        session_1_date_time: "1:56 pm on 8 May, 2023",
        session_1: turns.map((text, index) => ({ speaker: index % 2 ? "Ben" : "Ann", dia_id: `D1:${index + 1}`, text })),
      },
      qa: [],
    });
    const both = [sample("s1", ["I planted tulips.", "Which colour?", "Yellow ones by the fence."]), sample("s2", ["We visited Oslo.", "How was it?"])];
    await writeFile(file("locomo.json"), JSON.stringify(both));
    await ingest(file("locomo.json"), { format: "locomo" });
    await writeFile(file("locomo.json"), JSON.stringify([sample("s1", ["I planted tulips.", "Which colour?"]), both[1]]));
    const summary = await ingest(file("locomo.json"), { format: "locomo" });
    assert.deepEqual((await everything(memory.store, "s1")).map((entry) => entry.source?.turnIds?.[0]).sort(), ["D1:1", "D1:2"]);
    assert.equal((await everything(memory.store, "s2")).length, 2);
    assert.equal(summary.retired, 1);
  });

  it("text has no origin unless given one: two pipes never retire each other; a named one replaces itself", async () => {
    const text = (body: string, origin?: string) =>
      ingestFile({ text: body, name: "standard input" }, { store: memory.store, embedder: testEmbedder, namespace: "piped", ...(origin ? { origin } : {}) });
    await text(jsonl("Piped note one."));
    await text(jsonl("Piped note two."));
    assert.deepEqual(await texts(memory.store, "piped"), ["Piped note one.", "Piped note two."]);
    await text(jsonl("Named note A.", "Named note B."), "feed");
    const summary = await text(jsonl("Named note A."), "feed");
    assert.equal(summary.retired, 1);
    assert.deepEqual(await texts(memory.store, "piped"), ["Named note A.", "Piped note one.", "Piped note two."]);
    assert.ok((await everything(memory.store, "piped")).filter((entry) => entry.text.startsWith("Piped")).every((entry) => entry.source?.origin === undefined));
  });
});
