import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseDialogue, type Dialogue } from "../../src/ingest/dialogue.js";
import { DialogueBuilderSettingsSchema, ingestDialogue } from "../../src/ingest/dialogue-ingest.js";
import { parseOrThrow } from "../../src/core/errors.js";
import { buildRuleMemories, turnEntryId } from "../../src/ingest/dialogue-rules.js";
import { RecordingStore, testEmbedder } from "./helpers.js";

const dialogue: Dialogue = parseDialogue({
  participants: ["Caroline", "Melanie"],
  turns: [
    { turnId: "D1:1", speaker: "Caroline", text: "Hey Mel! How was the pottery workshop?", time: "2023-05-08T13:56:00Z", sessionId: "s1" },
    { turnId: "D1:2", speaker: "Melanie", text: "Yes, it was amazing!", time: "2023-05-08T13:56:01Z", sessionId: "s1" },
    {
      turnId: "D1:3",
      speaker: "Caroline",
      text: "I went to a LGBTQ support group yesterday and it was so powerful.",
      time: "2023-05-08T13:56:02Z",
      sessionId: "s1",
    },
    {
      turnId: "D1:4",
      speaker: "Melanie",
      text: "Here is what I painted.",
      imageCaption: "a photo of a sunset over a lake",
      time: "2023-05-08T13:56:03Z",
      sessionId: "s1",
    },
    { turnId: "D2:1", speaker: "Melanie", text: "The XYZ-100 raised ERR_1024 after 10 km with my friend Anna in Shanghai.", time: "2023-06-01T09:00:00Z", sessionId: "s2" },
  ],
});

describe("rule memory builder", () => {
  const memories = buildRuleMemories(dialogue, { namespace: "ns" });
  const byTurn = new Map(memories.map((memory) => [memory.source?.turnIds?.[0], memory]));

  it("writes one self-contained restatement per turn, with the turn as source and time", () => {
    assert.equal(memories.length, 5);
    assert.equal(byTurn.get("D1:2")?.text, "Melanie said: Yes, it was amazing!");
    assert.deepEqual(byTurn.get("D1:2")?.source, { turnIds: ["D1:2"], sessionId: "s1" });
    assert.equal(byTurn.get("D1:2")?.timestamp, "2023-05-08T13:56:01Z");
  });

  it("rewrites relative dates as absolute ones against the turn's time", () => {
    const text = byTurn.get("D1:3")?.text ?? "";
    assert.match(text, /^Caroline said: /);
    assert.match(text, /7 May 2023/);
    assert.doesNotMatch(text, /yesterday/);
  });

  it("restates Chinese turns in Chinese, with 上周 made absolute", () => {
    const chinese = parseDialogue({
      turns: [{ turnId: "c1", speaker: "王磊", text: "上周在上海开会，讨论了报销标准。", time: "2026-03-16T09:00:00Z", imageCaption: "会议室的照片" }],
    });
    const [memory] = buildRuleMemories(chinese, { namespace: "ns" });
    assert.match(memory?.text ?? "", /^王磊说：.*2026年3月9日.*在上海开会，讨论了报销标准。［分享了一张图片：会议室的照片］$/);
    assert.doesNotMatch(memory?.text ?? "", /上周/);
    assert.equal(memory?.location, "上海");
    assert.ok(memory?.keywords?.includes("报销"));
    assert.deepEqual(memory?.entities, []);
  });

  it("appends the image caption", () => {
    assert.equal(byTurn.get("D1:4")?.text, "Melanie said: Here is what I painted. [shared an image: a photo of a sunset over a lake]");
    assert.ok(byTurn.get("D1:4")?.keywords?.includes("sunset"));
  });

  it("finds persons (speaker, nickname of a participant, named friends), entities, codes, quantities and a place", () => {
    assert.deepEqual(byTurn.get("D1:1")?.persons, ["Caroline", "Melanie"]);
    assert.equal(byTurn.get("D1:1")?.speaker, "Caroline");
    const d2 = byTurn.get("D2:1");
    assert.deepEqual(d2?.persons, ["Melanie", "Anna"]);
    for (const entity of ["XYZ-100", "ERR_1024", "10 km"]) assert.ok(d2?.entities?.includes(entity), entity);
    assert.equal(d2?.location, "Shanghai");
    assert.ok(d2?.keywords?.includes("XYZ"), "code family is a keyword");
  });

  it("derives ids from (namespace, turnId) only", () => {
    const again = buildRuleMemories(dialogue, { namespace: "ns", contextTurns: 0 });
    assert.deepEqual(again.map((m) => m.id), memories.map((m) => m.id));
    assert.equal(byTurn.get("D1:1")?.id, turnEntryId("ns", "D1:1"));
    assert.notEqual(turnEntryId("other", "D1:1"), turnEntryId("ns", "D1:1"));
  });

  it("adds the neighbouring turns' words as keywords by default, keeping the text faithful", () => {
    const reply = byTurn.get("D1:2");
    assert.ok(reply?.keywords?.includes("pottery"), JSON.stringify(reply?.keywords));
    assert.ok(reply?.keywords?.includes("support"), "one turn after by default");
    assert.ok(!reply?.keywords?.includes("Hey"), "fillers are not keywords");
    assert.equal(reply?.text, "Melanie said: Yes, it was amazing!");
    const none = buildRuleMemories(dialogue, { namespace: "ns", contextTurns: 0, contextTurnsAfter: 0 }).find((m) => m.source?.turnIds?.[0] === "D1:2");
    assert.deepEqual(none?.keywords, ["amazing"]);
  });

  it("takes only the opening of a neighbour longer than an entry's keywords, so the turn's other neighbours still have their say", () => {
    // 80 distinct content words: more than an entry carries.
    const essay = Array.from({ length: 80 }, (_, i) => `topic${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`).join(" ");
    const chat = parseDialogue({
      turns: [
        { turnId: "t1", speaker: "assistant", text: essay, time: "2024-01-01T10:00:00Z", sessionId: "s" },
        { turnId: "t2", speaker: "user", text: "Thanks, noted.", time: "2024-01-01T10:00:01Z", sessionId: "s" },
        { turnId: "t3", speaker: "assistant", text: "Glad the sourdough schedule helps.", time: "2024-01-01T10:00:02Z", sessionId: "s" },
      ],
    });
    const reply = buildRuleMemories(chat, { namespace: "ns" }).find((m) => m.source?.turnIds?.[0] === "t2");
    const lent = (reply?.keywords ?? []).filter((word) => word.startsWith("topic"));
    assert.deepEqual(lent, essay.split(" ").slice(0, 16), "the long neighbour lends its first quarter of an entry's keywords");
    assert.ok(reply?.keywords?.includes("sourdough"), `the reply after it is still heard: ${JSON.stringify(reply?.keywords)}`);
  });

  it("can place the context in the text, and never crosses a session", () => {
    const inText = buildRuleMemories(dialogue, { namespace: "ns", contextPlacement: "text", contextTurnsAfter: 1 });
    const reply = inText.find((m) => m.source?.turnIds?.[0] === "D1:2");
    assert.match(reply?.text ?? "", /\(replying to Caroline: "Hey Mel! How was the pottery workshop\?"\)/);
    assert.match(reply?.text ?? "", /\(answered by Caroline: /);
    const firstOfSession = inText.find((m) => m.source?.turnIds?.[0] === "D2:1");
    assert.doesNotMatch(firstOfSession?.text ?? "", /replying to/);
    const lastOfSession = inText.find((m) => m.source?.turnIds?.[0] === "D1:4");
    assert.doesNotMatch(lastOfSession?.text ?? "", /answered by/);
  });

  it("refuses unknown builder settings and duplicate turn ids", () => {
    assert.throws(() => parseOrThrow(DialogueBuilderSettingsSchema, { contextTurn: 1 }, "builder"), /builder/);
    assert.throws(
      () => parseDialogue({ turns: [dialogue.turns[0], dialogue.turns[0]] }),
      /turns\.1\.turnId: duplicate turnId "D1:1"/,
    );
  });

  it("re-ingesting the same dialogue replaces, never duplicates", async () => {
    const store = new RecordingStore();
    const first = await ingestDialogue(store, testEmbedder, "ns", dialogue, { now: 1 });
    const second = await ingestDialogue(store, testEmbedder, "ns", dialogue, { now: 2 });
    assert.equal(first.entries, 5);
    assert.equal(second.entries, 5);
    assert.equal(store.all("ns").length, 5);
    const entry = store.all("ns")[0];
    assert.equal(entry?.createdAt, new Date(1).toISOString());
    assert.equal(entry?.updatedAt, new Date(2).toISOString());
  });
});
