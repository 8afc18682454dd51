import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { RecallGraph } from "../../src/library/open-recallgraph.js";
import { openRecallGraph } from "../../src/library/open-recallgraph.js";
import { chatMemory } from "../support/graph-fixture.js";

describe("a word every memory holds", () => {
  // A person's notes, each naming her: "dana" is in every one, so BM25 weighs it at its idf floor.
  const notes = [
    "The user's name is Dana Kowalski and she works as a nurse in Leeds.",
    "Dana is allergic to penicillin.",
    "Dana prefers replies in short bullet points.",
    "Dana's night shifts are Tuesday and Wednesday.",
    "Dana runs the Leeds half marathon every May.",
    "Dana's brother Tom lives in Toronto and visits at Christmas.",
  ];
  let memory: RecallGraph;
  before(async () => {
    memory = await chatMemory(notes.map((text, i) => ({ id: `note-${i}`, text, timestamp: `2026-10-0${i + 1}T09:00:00Z` })));
  });
  after(() => memory.close());

  const lexical = (question: string, settings: object = {}) =>
    memory.retrieve({ question, namespace: "chat" }, { preset: "lexical", finalK: 10, ...settings }).then((output) => output.results);

  it("keeps a BM25 hit that matched only that word, without a vote, while another hit matched a rarer word", async () => {
    const results = await lexical("Where does Dana work?");
    assert.equal(results[0]?.id, "note-0");
    assert.ok(results[0] && results[0].score > 0);
    assert.equal(results.length, notes.length, "every note that holds the word is still returned");
    for (const result of results.slice(1)) {
      assert.equal(result.score, 0, `${result.id} casts no vote`);
      assert.ok(result.provenance.ranks.some((rank) => rank.view === "lexical"), `${result.id} keeps where BM25 found it`);
    }
  });

  it("lets every hit vote with the threshold at 0, or when none matched a rarer word", async () => {
    const everyVote = await lexical("Where does Dana work?", { lexicalVoteMinRelative: 0 });
    assert.ok(everyVote.every((result) => result.score > 0));
    const commonOnly = await lexical("Tell me about Dana");
    assert.equal(commonOnly.length, notes.length);
    assert.ok(commonOnly.every((result) => result.score > 0));
  });
});

describe("a word nearly every memory holds, with the default embedder", () => {
  // A new user's notes, as an assistant would write them: all but one name Dana.
  const notes = [
    "The user's name is Dana Kowalski and she works as a nurse in Leeds.",
    "Dana is allergic to penicillin.",
    "Dana's daughter Mia starts primary school in September 2027.",
    "Dana prefers replies in short bullet points.",
    "Dana's car is a 2019 Toyota Yaris hybrid; its MOT is due on 14 January 2027.",
    "Dana runs the Leeds half marathon every May.",
    "Dana's manager at St James's hospital is Dr. Okafor.",
    "Dana asked for vegetarian recipes without mushrooms.",
    "Dana moved her savings to a Nationwide ISA in October.",
    "Dana's brother Tom lives in Toronto and visits at Christmas.",
    "Dana started learning Spanish on Duolingo; her streak is 40 days.",
    "Dana's night shifts are Tuesday and Wednesday.",
    "Dana's dentist appointment is on 3 December 2026 at 4pm.",
    "Dana wants to book a holiday to Lisbon in April 2027.",
    "Mia is learning the violin with a teacher called Mrs. Patel.",
  ];
  let memory: RecallGraph;
  before(async () => {
    memory = await openRecallGraph({ store: { kind: "sqlite", path: ":memory:" }, embedder: { provider: "use-lite" }, model: null });
    await memory.remember("dana", notes.map((text, i) => ({ id: `note-${i}`, text, timestamp: `2026-10-${String(i + 1).padStart(2, "0")}T09:00:00Z` })));
  });
  after(() => memory.close());

  it("puts the note that answers first; with BM25's ranks by the name alone voting, notes that only name her crowd the answer", async () => {
    const ask = (settings: object) =>
      memory.retrieve({ question: "Where does Dana work?", namespace: "dana" }, { finalK: 3, ...settings }).then((output) => output.results.map((result) => result.id));
    const answer = await ask({});
    assert.equal(answer[0], "note-0");
    assert.ok(!answer.includes("note-1"), answer.join(" "));
    assert.ok((await ask({ lexicalVoteMinRelative: 0 })).includes("note-1"), "with every BM25 hit voting, 'Dana is allergic to penicillin' is among the three");
  });
});
