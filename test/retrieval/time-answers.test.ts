import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { RecallGraph } from "../../src/library/open-recallgraph.js";
import { asksForTime, statesTime, withTimeAnswerVotes } from "../../src/retrieval/time-answers.js";
import { chatMemory } from "../support/graph-fixture.js";

describe("asksForTime", () => {
  it("knows the questions that ask when, in English and Chinese", () => {
    for (const question of [
      "When did Melanie paint a sunrise?",
      "So when is my Zoom call with the creative director?",
      "When’s the final submission due?",
      "What year did Caroline move from Sweden?",
      "On which date was the contract signed?",
      "How long ago did Jon open his studio?",
      "他什么时候去的上海?",
      "该公司成立于哪一年?",
      "会议定在几月几号?",
    ])
      assert.ok(asksForTime(question), question);
  });

  it("leaves alone a question that only uses when as a condition, and questions about anything else", () => {
    for (const question of [
      "When I sign up for a new account, what security measures should I look for?",
      "When building an application that calls a REST API, what errors should I expect?",
      "What did Caroline paint?",
      "Where did Joanna travel to in July 2022?",
      "谁在上海见了Alice?",
    ])
      assert.ok(!asksForTime(question), question);
  });
});

describe("statesTime", () => {
  const context = { now: Date.parse("2026-03-20T00:00:00Z") };
  const memory = (text: string) => ({ namespace: "chat", id: text, updatedAt: "2026-03-19T00:00:00.000Z", text });
  it("is true of a text with a time expression the time module reads, in English or Chinese, and false otherwise", () => {
    for (const text of ["I went to a support group on 7 May 2023.", "We met last week at the café.", "我们上周五在上海见过面。"]) assert.ok(statesTime(memory(text), context), text);
    for (const text of ["Painting a sunrise over the lake calms me.", "I have three dogs and a cat.", "我喜欢画画。"]) assert.ok(!statesTime(memory(text), context), text);
  });
});

describe("withTimeAnswerVotes", () => {
  const options = { weight: 0.5, rrfK: 20 };
  const dated = new Set(["b", "d"]);
  const isDated = (key: string) => dated.has(key);

  it("lifts a hit that states a time over undated ones above it, and keeps the dated ones' own order", () => {
    // Two of five state a time, so their list votes 0.5 x (1 - 2 x 0.4): b (rank 2) passes a, d (rank 4) passes c only.
    assert.deepEqual(withTimeAnswerVotes(["a", "b", "c", "d", "e"], isDated, options), ["b", "a", "d", "c", "e"]);
  });

  it("weighs a time by how rare it is in the ranking: much where one hit states it, nothing where most do", () => {
    // One of six: its list votes 0.5 x (1 - 2 / 6), enough to carry b from the sixth place to the first.
    assert.deepEqual(withTimeAnswerVotes(["a", "c", "e", "f", "g", "b"], isDated, options), ["b", "a", "c", "e", "f", "g"]);
    // Three of four: the one undated hit keeps its first place.
    const mostlyDated = new Set(["b", "c", "e"]);
    assert.deepEqual(withTimeAnswerVotes(["d", "b", "c", "e"], (key) => mostlyDated.has(key), options), ["d", "b", "c", "e"]);
  });

  it("leaves the ranking as it is with no weight, or where nothing or everything states a time", () => {
    const ranking = ["a", "b", "c", "d"];
    assert.deepEqual(withTimeAnswerVotes(ranking, isDated, { ...options, weight: 0 }), ranking);
    assert.deepEqual(withTimeAnswerVotes(ranking, () => false, options), ranking);
    assert.deepEqual(withTimeAnswerVotes(ranking, () => true, options), ranking);
  });
});

describe("a question that asks when, asked of a conversation", () => {
  const now = "2026-03-20T00:00:00Z";
  let memory: RecallGraph;
  before(async () => {
    const at = (day: number) => `2026-03-${String(day).padStart(2, "0")}T10:00:00Z`;
    memory = await chatMemory([
      { id: "shows", text: "Melanie said: Look at the sunrise I painted! Painting a sunrise over the lake calms me.", speaker: "Melanie", persons: ["Melanie"], timestamp: at(2) },
      { id: "dated", text: "Melanie said: I painted that lake sunrise on 8 May 2022.", speaker: "Melanie", persons: ["Melanie"], timestamp: at(4) },
      { id: "museum", text: "Melanie said: The kids loved the museum.", speaker: "Melanie", persons: ["Melanie"], timestamp: at(6) },
      { id: "group", text: "Caroline said: The support group was so powerful.", speaker: "Caroline", persons: ["Caroline"], timestamp: at(8) },
      { id: "camping", text: "Melanie said: We went camping with the kids and roasted marshmallows.", speaker: "Melanie", persons: ["Melanie"], timestamp: at(10) },
      { id: "pottery", text: "Melanie said: My pottery class is a great way to relax.", speaker: "Melanie", persons: ["Melanie"], timestamp: at(12) },
    ]);
  });
  after(() => memory.close());

  it("answers with the memory that says when, ahead of one that only speaks of the same thing", async () => {
    // One memory of six states a time, so stating one sets it apart.
    const question = "When did Melanie paint a sunrise?";
    const ids = async (configurable: { timeAnswerVote?: number }) =>
      (await memory.retrieve({ question, namespace: "chat", now }, { finalK: 3, ...configurable })).results.map((result) => result.id);
    const without = await ids({ timeAnswerVote: 0 });
    assert.deepEqual(without.slice(0, 2), ["shows", "dated"], `the words alone put the painting first: ${without.join(", ")}`);
    const byDefault = await ids({});
    assert.deepEqual(byDefault.slice(0, 2), ["dated", "shows"], `the default puts the date first: ${byDefault.join(", ")}`);
  });

  it("keeps the order of a question that asks anything else", async () => {
    const question = "What did Melanie paint?";
    const order = async (timeAnswerVote: number) =>
      (await memory.retrieve({ question, namespace: "chat", now }, { finalK: 3, timeAnswerVote })).results.map((result) => result.id);
    assert.deepEqual(await order(0.5), await order(0));
  });
});
