import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import type { BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { messageText } from "../../src/llm/structured.js";
import { parseDialogue } from "../../src/ingest/dialogue.js";
import { ingestDialogue } from "../../src/ingest/dialogue-ingest.js";
import { buildLlmMemories, llmEntryId } from "../../src/ingest/dialogue-llm.js";
import { turnEntryId } from "../../src/ingest/dialogue-rules.js";
import { saveDialogueAction } from "../../src/library/memory-actions.js";
import { openRecallGraph } from "../../src/library/open-recallgraph.js";
import { RecordingStore, testEmbedder } from "./helpers.js";

// The fallback warnings are expected here; keep the test output clean.
process.env.RECALLGRAPH_LOG_LEVEL ??= "error";

const dialogue = parseDialogue({
  participants: ["Alice", "Bob"],
  turns: Array.from({ length: 14 }, (_, i) => ({
    turnId: `T${i + 1}`,
    speaker: i % 2 === 0 ? "Alice" : "Bob",
    text: i === 0 ? "I met Wang Lei in Shanghai yesterday about the XYZ-100." : `Turn number ${i + 1} about topic ${i + 1}.`,
    time: new Date(Date.UTC(2026, 2, 10, 9, 0, i)).toISOString(),
  })),
});

const firstWindow = JSON.stringify({
  memories: [
    {
      text: "Alice met Wang Lei in Shanghai on 9 March 2026 about the XYZ-100.",
      turnIds: ["[T1]"],
      persons: ["Alice", "Wang Lei"],
      entities: ["XYZ-100"],
      location: "Shanghai",
      topic: "XYZ-100 meeting",
      keywords: ["meeting"],
    },
    { text: "Bob talked about topics 2 to 10.", turnIds: ["T2", "T3", "T4", "T5", "T6", "T7", "T8", "T9", "T10"] },
    { text: "A memory citing only a turn outside the window.", turnIds: ["T99"] },
  ],
});

/** A FakeListChatModel that also keeps the user prompt of every call. */
class PromptRecordingModel extends FakeListChatModel {
  readonly prompts: string[] = [];
  override async _generate(messages: BaseMessage[], options?: this["ParsedCallOptions"], runManager?: CallbackManagerForLLMRun): Promise<ChatResult> {
    this.prompts.push(messages.map((message) => messageText(message)).join("\n---\n"));
    return super._generate(messages, options, runManager);
  }
}

describe("LLM memory builder", () => {
  describe("supersession proposals", () => {
    const changing = parseDialogue({
      turns: [
        ["Alice", "My deadline is April 1."],
        ["Bob", "Noted."],
        ["Alice", "The deadline moved to April 5."],
        ["Bob", "Noted again."],
      ].map(([speaker, text], i) => ({ turnId: `T${i + 1}`, speaker, text, time: new Date(Date.UTC(2026, 2, 10, 9, i)).toISOString() })),
    });
    const replies = () => [
      JSON.stringify({ memories: [{ text: "Alice's deadline is 1 April.", turnIds: ["T1"] }, { text: "Bob noted it.", turnIds: ["T2"], operation: "no-op" }] }),
      JSON.stringify({
        memories: [
          { text: "Alice's deadline is 5 April.", turnIds: ["T3"], operation: "supersede", supersedes: ["E1", "E7"], reason: "deadline moved" },
          { text: "Bob noted it again.", turnIds: ["T4"], operation: "no-op" },
        ],
      }),
    ];
    const settings = { namespace: "ns", windowTurns: 2, overlapTurns: 0 };

    it("links a supersede to the shown entries it names (unknown handles ignored) and writes nothing for a no-op", async () => {
      const model = new PromptRecordingModel({ responses: replies() });
      const result = await buildLlmMemories(changing, model, settings);
      assert.deepEqual(
        result.memories.map((memory) => [memory.text, memory.supersedes, memory.supersessionReason]),
        [
          ["Alice's deadline is 1 April.", undefined, undefined],
          ["Alice's deadline is 5 April.", [llmEntryId("ns", "T1", 0)], "model: deadline moved"],
        ],
      );
      assert.match(model.prompts[1] ?? "", /\[E1\] Alice's deadline is 1 April\./);
      assert.equal(result.coveredByRules, 0);
    });

    it("keeps every proposal an add with supersession off", async () => {
      const result = await buildLlmMemories(changing, new FakeListChatModel({ responses: replies() }), { ...settings, supersession: false });
      assert.ok(result.memories.every((memory) => memory.supersedes === undefined));
    });
  });

  it("turns valid model output into entries with source turn ids, covering skipped turns by rules", async () => {
    // Window 1: T1-T10; window 2: T9-T14 with T9, T10 as context. The second reply is garbage twice (one retry).
    const model = new FakeListChatModel({ responses: [firstWindow, "not json", "still not json"] });
    const result = await buildLlmMemories(dialogue, model, { namespace: "ns" });
    assert.equal(result.windows, 2);
    assert.equal(result.calls.length, 2);
    const first = result.memories[0];
    assert.equal(first?.text, "Alice met Wang Lei in Shanghai on 9 March 2026 about the XYZ-100.");
    assert.deepEqual(first?.source, { turnIds: ["T1"] });
    assert.equal(first?.id, llmEntryId("ns", "T1", 0));
    assert.equal(first?.location, "Shanghai");
    assert.equal(first?.topic, "XYZ-100 meeting");
    assert.equal(first?.timestamp, dialogue.turns[0]?.time);
    assert.ok(first?.persons?.includes("Wang Lei"));
    assert.equal(first?.speaker, "Alice", "a memory of one speaker's turn is theirs");
    assert.equal(result.memories[1]?.speaker, undefined, "a memory of an exchange has no single speaker");
    assert.ok(first?.keywords?.includes("meeting") && first.keywords.includes("Shanghai"));
    // The out-of-window citation was dropped.
    assert.ok(!result.memories.some((memory) => memory.text.includes("outside the window")));
    // Window 2 failed: its NEW turns (T11-T14) come from the rules; nothing for the overlap turns T9, T10.
    assert.equal(result.fallbackWindows, 1);
    const ruleTurns = result.memories.filter((memory) => memory.id?.startsWith("turn-")).map((memory) => memory.source?.turnIds?.[0]);
    assert.deepEqual(ruleTurns, ["T11", "T12", "T13", "T14"]);
    assert.equal(result.memories.length, 2 + 4);
  });

  it("covers NEW turns the model skipped with rule entries (coverAllTurns)", async () => {
    const onlyFirst = JSON.stringify({ memories: [{ text: "Alice met Wang Lei in Shanghai on 9 March 2026.", turnIds: ["T1"] }] });
    const model = new FakeListChatModel({ responses: [onlyFirst, JSON.stringify({ memories: [{ text: "Bob closed the talk.", turnIds: ["T14"] }] })] });
    const result = await buildLlmMemories(dialogue, model, { namespace: "ns" });
    assert.equal(result.fallbackWindows, 0);
    assert.equal(result.coveredByRules, 9 + 3); // T2-T10, then T11-T13
    const off = await buildLlmMemories(dialogue, new FakeListChatModel({ responses: [onlyFirst, onlyFirst] }), {
      namespace: "ns",
      coverAllTurns: false,
    });
    // The second window's reply cites T1, which is outside it: no usable entry, so that window falls back.
    assert.equal(off.coveredByRules, 0);
    assert.equal(off.fallbackWindows, 1);
  });

  it("passes the previous window's entries to the model and drops repeats of them", async () => {
    const repeat = JSON.stringify({
      memories: [
        { text: "Alice met Wang Lei in Shanghai on 9 March 2026 about the XYZ-100.", turnIds: ["T11"] },
        { text: "Bob mentioned topic 12.", turnIds: ["T12"] },
      ],
    });
    const model = new PromptRecordingModel({ responses: [firstWindow, repeat] });
    const result = await buildLlmMemories(dialogue, model, { namespace: "ns", coverAllTurns: false });
    assert.equal(result.memories.filter((memory) => memory.text.startsWith("Alice met Wang Lei")).length, 1);
    assert.ok(result.memories.some((memory) => memory.text === "Bob mentioned topic 12."));
    assert.equal(model.prompts.length, 2);
    assert.match(model.prompts[0] ?? "", /Entries already written for earlier turns:\n\(none\)/);
    assert.match(model.prompts[0] ?? "", /\[T1\] NEW 10 March 2026 at 09:00 \(UTC\) Alice: I met Wang Lei in Shanghai on 9 March 2026/);
    assert.match(model.prompts[1] ?? "", /\[E1\] Alice met Wang Lei in Shanghai on 9 March 2026 about the XYZ-100\./);
    assert.match(model.prompts[1] ?? "", /\[T9\] CONTEXT /);
    assert.match(model.prompts[1] ?? "", /\[T11\] NEW /);
  });

  it("garbage from the model for every window gives exactly the rule entries", async () => {
    const model = new FakeListChatModel({ responses: ["{oops"] });
    const result = await buildLlmMemories(dialogue, model, { namespace: "ns", retries: 0 });
    assert.equal(result.fallbackWindows, 2);
    assert.deepEqual(
      result.memories.map((memory) => memory.id),
      dialogue.turns.map((turn) => turnEntryId("ns", turn.turnId)),
    );
  });

  it("re-ingesting in another mode retires the entries the earlier run made", async () => {
    const store = new RecordingStore();
    const rules = await ingestDialogue(store, testEmbedder, "ns", dialogue);
    assert.equal(store.all("ns").length, 14);
    assert.equal(rules.mode, "rules");
    const model = new FakeListChatModel({ responses: [firstWindow, JSON.stringify({ memories: [{ text: "Bob wrapped up topics 11 to 14.", turnIds: ["T11", "T12", "T13", "T14"] }] })] });
    const llm = await ingestDialogue(store, testEmbedder, "ns", dialogue, { model });
    assert.equal(llm.mode, "llm");
    // T1-T10 and T11-T14 are each cited by a model entry: every rule entry is retired.
    assert.equal(llm.retired, 14);
    assert.equal(store.all("ns").length, 3);
    const back = await ingestDialogue(store, testEmbedder, "ns", dialogue);
    assert.equal(back.retired, 3);
    assert.equal(store.all("ns").length, 14);
  });

  describe("a save that continues its session", () => {
    const said = (turnId: string, speaker: string, text: string, minute: number, sessionId = "s1") => ({
      turnId,
      speaker,
      text,
      time: new Date(Date.UTC(2026, 2, 10, 9, minute)).toISOString(),
      sessionId,
    });
    const firstSave = parseDialogue({ turns: [said("T1", "Alice", "My deadline is April 1.", 0), said("T2", "Bob", "Noted.", 1)] });
    const nextSave = parseDialogue({ turns: [said("T3", "Alice", "The deadline moved to April 5.", 3)] });
    const firstReply = JSON.stringify({
      memories: [
        { text: "Alice's deadline is 1 April.", turnIds: ["T1"] },
        { text: "Bob noted it.", turnIds: ["T2"], operation: "no-op" },
      ],
    });
    const nextReply = JSON.stringify({
      memories: [
        { text: "Alice's deadline is 5 April.", turnIds: ["T3"], operation: "supersede", supersedes: ["E1"], reason: "deadline moved" },
        { text: "Alice's deadline is 1 April.", turnIds: ["T3"] },
      ],
    });

    it("shows the first window what the model wrote of the session before, so a later turn supersedes it and repeats are dropped", async () => {
      const model = new PromptRecordingModel({ responses: [firstReply, nextReply] });
      const memory = await openRecallGraph({ store: { kind: "sqlite", path: ":memory:" }, embedder: { provider: "hash", dimension: 64 }, model });
      try {
        const { store, embedder } = memory;
        // What the save must not be shown (written by the rules): another session's memory, another namespace's of the same session id, a note.
        await ingestDialogue(store, embedder, "me", parseDialogue({ turns: [said("S2-1", "Alice", "My deadline for the garden is May 2.", 0, "s2")] }));
        await ingestDialogue(store, embedder, "other", parseDialogue({ turns: [said("O1", "Eve", "My deadline is June 9.", 0)] }));
        // The agent's tool saves the session a few turns at a time; the model writes its memories.
        await saveDialogueAction({ memory, namespace: "me" }, firstSave);
        await memory.remember("me", [{ text: "Alice's deadline is a note.", timestamp: "2026-03-10T09:02:00Z" }]);
        await saveDialogueAction({ memory, namespace: "me" }, nextSave);

        assert.equal(model.prompts.length, 2);
        const shown = /Entries already written for earlier turns:\n([\s\S]*?)\n\n/.exec(model.prompts[1] ?? "")?.[1] ?? "";
        assert.equal(shown, "[E1] Alice's deadline is 1 April.");
        const first = (await store.get("me", [llmEntryId("me", "T1", 0)]))[0];
        assert.equal(first?.text, "Alice's deadline is 1 April.");
        assert.equal(first?.source?.sessionId, "s1");
        // The supersede is written; the repeat of the shown memory is not.
        const stored = await store.get("me", [llmEntryId("me", "T3", 0), llmEntryId("me", "T3", 1)]);
        assert.deepEqual(
          stored.map((entry) => [entry.text, entry.supersedes, entry.source?.sessionId]),
          [["Alice's deadline is 5 April.", [first?.id], "s1"]],
        );
      } finally {
        await memory.close();
      }
    });
  });
});
