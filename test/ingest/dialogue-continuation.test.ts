import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Dialogue, DialogueTurn } from "../../src/ingest/dialogue.js";
import { ingestDialogue } from "../../src/ingest/dialogue-ingest.js";
import { restate, unstate } from "../../src/ingest/dialogue-rules.js";
import { saveDialogueAction } from "../../src/library/memory-actions.js";
import { openRecallGraph, type RecallGraph } from "../../src/library/open-recallgraph.js";
import type { MemoryEntry } from "../../src/memory/entry.js";
import { openQdrantStore } from "../../src/stores/qdrant.js";
import { QDRANT_SPEC_PATH, qdrantSpecAvailable } from "../stores/qdrant-spec.js";
import { SpecCheckingQdrantStub } from "../stores/qdrant-stub.js";
import { testEmbedder } from "./helpers.js";

/** Two sessions of a chat, minutes apart within each: an image, a relative date, a Chinese line. */
const TURNS: DialogueTurn[] = [
  ["s1", "Caroline", "Hey Mel! I went to the LGBTQ support group yesterday and it was so powerful."],
  ["s1", "Melanie", "That sounds amazing, Caroline. What stood out to you?"],
  ["s1", "Caroline", "The transgender stories. I felt accepted. I live in Boston, and I plan my counseling career here."],
  ["s1", "Melanie", "Wow, counseling suits you. I painted a lake sunrise last week.", "a painting of a sunrise over a lake"],
  ["s1", "Caroline", "Gorgeous colours! Did you paint it at the cabin?"],
  ["s1", "Melanie", "Yes, on the porch at dawn, with my kids asleep inside."],
  ["s2", "Caroline", "我上周末去了北京，参加了一个心理咨询的讲座。"],
  ["s2", "Melanie", "太棒了！讲座讲了什么？"],
  ["s2", "Caroline", "Mostly how to listen. I moved to Denver last month and adopted a puppy. His name is Oscar."],
  ["s2", "Melanie", "Oscar! My kids would love him. We went camping at the lake again."],
  ["s2", "Caroline", "Send me pictures of the camping trip!"],
].map(([sessionId, speaker, text, imageCaption], index) => ({
  turnId: `t${index + 1}`,
  speaker: speaker ?? "",
  text: text ?? "",
  time: new Date(Date.parse(sessionId === "s1" ? "2023-05-08T13:56:00Z" : "2023-05-25T13:14:00Z") + index * 137_000).toISOString(),
  sessionId,
  ...(imageCaption ? { imageCaption } : {}),
}));

const PARTICIPANTS = ["Caroline", "Melanie"];

const turnOf = (entry: MemoryEntry | undefined): string => entry?.source?.turnIds?.[0] ?? "";

/** The stored fields a save decides (createdAt and updatedAt are each write's own), memories named by their turns (ids are the namespace's). */
function saved(entries: readonly MemoryEntry[]): unknown[] {
  const byId = new Map(entries.map((entry) => [entry.id, entry]));
  return [...entries]
    .sort((a, b) => turnOf(a).localeCompare(turnOf(b), "en", { numeric: true }))
    .map(({ createdAt: _created, updatedAt: _updated, namespace: _namespace, id: _id, supersedes, ...fields }) => ({
      ...fields,
      supersedes: supersedes?.map((id) => turnOf(byId.get(id))),
    }));
}

describe("a dialogue saved a few turns at a time", () => {
  let memory: RecallGraph;
  const stored = async (namespace: string) => (await memory.store.list(namespace, { limit: 100 })).entries;
  const savedInPieces = async (namespace: string, size: number) => {
    for (let start = 0; start < TURNS.length; start += size) {
      await ingestDialogue(memory.store, memory.embedder, namespace, { participants: PARTICIPANTS, turns: TURNS.slice(start, start + size) });
    }
  };
  before(async () => {
    memory = await openRecallGraph({ store: { kind: "sqlite", path: ":memory:" }, embedder: { provider: "hash", dimension: 64 }, model: null });
    await ingestDialogue(memory.store, memory.embedder, "whole", { participants: PARTICIPANTS, turns: TURNS });
  });
  after(() => memory.close());

  it("is stored as the whole dialogue saved at once, in pieces of one, two or three turns", async () => {
    const whole = await stored("whole");
    assert.equal(whole.length, TURNS.length);
    assert.ok(whole.some((entry) => (entry.source?.contextTurnIds?.length ?? 0) > 0));
    const moved = whole.find((entry) => turnOf(entry) === "t9");
    assert.equal(turnOf(whole.find((entry) => entry.id === moved?.supersedes?.[0])), "t3", "the move replaces where she lived, a session before");
    for (const size of [1, 2, 3]) {
      await savedInPieces(`pieces-${size}`, size);
      assert.deepEqual(saved(await stored(`pieces-${size}`)), saved(whole), `saved ${size} at a time`);
    }
  });

  it("continues its own session only, past notes and other sessions' turns saved between", async () => {
    const namespace = "interleaved";
    await ingestDialogue(memory.store, memory.embedder, namespace, { participants: PARTICIPANTS, turns: TURNS.slice(0, 3) });
    await memory.remember(namespace, [{ text: "Buy paint for Melanie's birthday.", timestamp: TURNS[2]?.time ?? "" }]);
    const other: Dialogue = { turns: [{ turnId: "o1", speaker: "Bob", text: "Unrelated chat about football.", time: TURNS[2]?.time ?? "", sessionId: "other" }] };
    await ingestDialogue(memory.store, memory.embedder, namespace, other);
    await ingestDialogue(memory.store, memory.embedder, namespace, { participants: PARTICIPANTS, turns: TURNS.slice(3, 6) });
    const turnsOfS1 = (await stored(namespace)).filter((entry) => entry.source?.sessionId === "s1");
    const wholeS1 = (await stored("whole")).filter((entry) => entry.source?.sessionId === "s1");
    assert.deepEqual(saved(turnsOfS1), saved(wholeS1));
    const football = (await stored(namespace)).find((entry) => entry.source?.turnIds?.[0] === "o1");
    assert.equal(football?.source?.contextTurnIds, undefined, "another session's turn is no neighbour");
  });

  it("does not take a new session's first turn as said after the last one's", async () => {
    const [lastOfS1] = (await stored("pieces-1")).filter((entry) => entry.source?.turnIds?.[0] === "t6");
    assert.ok(lastOfS1);
    assert.ok(!(lastOfS1.source?.contextTurnIds ?? []).includes("t7"));
  });

  it("reaches a dialogue saved through save_dialogue a turn at a time", async () => {
    for (const turn of TURNS) await saveDialogueAction({ memory, namespace: "tool" }, { participants: PARTICIPANTS, turns: [turn] });
    assert.deepEqual(saved(await stored("tool")), saved(await stored("whole")));
  });

  it("is stored as the whole when an agent saves its turns at the same moment, each by a call of its own", async () => {
    await Promise.all(TURNS.map((turn) => saveDialogueAction({ memory, namespace: "parallel" }, { participants: PARTICIPANTS, turns: [turn] })));
    assert.deepEqual(saved(await stored("parallel")), saved(await stored("whole")));
  });

  it("leaves out what a file read again wrote before", async () => {
    const namespace = "file";
    await ingestDialogue(memory.store, memory.embedder, namespace, { turns: TURNS.slice(0, 2) }, { origin: "chat.json" });
    await ingestDialogue(memory.store, memory.embedder, namespace, { turns: TURNS.slice(2, 3) }, { origin: "chat.json" });
    const entries = await stored(namespace);
    assert.deepEqual(entries.map((entry) => entry.source?.turnIds?.[0]), ["t3"], "the file's earlier turns are retired");
    assert.equal(entries[0]?.source?.contextTurnIds, undefined, "and lend it no context");
  });
});

describe("a dialogue saved a turn at a time into Qdrant (SpecCheckingQdrantStub, not a real Qdrant)", { skip: qdrantSpecAvailable() ? false : `Qdrant OpenAPI spec not found at ${QDRANT_SPEC_PATH}: skipped` }, () => {
  it("is stored as the whole saved at once, as in sqlite", async () => {
    const stub = await SpecCheckingQdrantStub.start();
    try {
      const store = await openQdrantStore({ url: stub.url, collection: "rg_continuation", embedding: testEmbedder.spec });
      await ingestDialogue(store, testEmbedder, "whole", { participants: PARTICIPANTS, turns: TURNS });
      for (const turn of TURNS) await ingestDialogue(store, testEmbedder, "pieces", { participants: PARTICIPANTS, turns: [turn] });
      const list = async (namespace: string) => (await store.list(namespace, { limit: 100 })).entries;
      assert.deepEqual(saved(await list("pieces")), saved(await list("whole")));
      assert.deepEqual(stub.violations, []);
      await store.close();
    } finally {
      await stub.close();
    }
  });
});

describe("a rule-built memory's text read back", () => {
  it("gives what was restated, in English, in Chinese, with and without an image", () => {
    for (const [speaker, said, caption] of [
      ["Caroline", "I went to the support group.", undefined],
      ["Caroline", "Look at this! [shared an image: not a caption]", "a lake"],
      ["Melanie", "我上周末去了北京。", "一幅画"],
      ["Melanie", "", "a painting of a sunrise"],
      ["A said: B", "said: twice", undefined],
    ] as const) {
      const text = restate(speaker, said, caption);
      assert.deepEqual(unstate(speaker, text), { said, ...(caption !== undefined ? { imageCaption: caption } : {}) }, text);
    }
  });

  it("gives nothing for a text not in that form, and no caption that was not one", () => {
    assert.equal(unstate("Caroline", "Caroline went to the support group."), undefined);
    assert.deepEqual(unstate("Caroline", "Caroline said: Hi [shared an image: a lake"), { said: "Hi [shared an image: a lake" }, "an unclosed bracket is words said");
    assert.equal(unstate("Melanie", "Caroline said: hi"), undefined);
  });
});
