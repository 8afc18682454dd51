import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { RecallGraph } from "../../src/library/open-recallgraph.js";
import { NO_CONTEXT_VOTES } from "../../src/graph/presets.js";
import { chatMemory } from "../support/graph-fixture.js";

describe("a question that names the wrong speaker", () => {
  // Melanie painted; the question asks what Caroline painted (LoCoMo's adversarial questions are made so).
  const question = "What did Caroline paint?";
  const now = "2026-03-20T00:00:00Z";
  let memory: RecallGraph;
  before(async () => {
    const at = (minute: number) => `2026-03-14T10:0${minute}:00Z`;
    memory = await chatMemory([
      { id: "mel-painted", text: "Melanie said: Caroline, I painted a sunset over the lake last weekend.", speaker: "Melanie", persons: ["Melanie", "Caroline"], timestamp: at(1) },
      { id: "caro-lovely", text: "Caroline said: Melanie, your painting is lovely! I wish I could paint.", speaker: "Caroline", persons: ["Caroline", "Melanie"], timestamp: at(2) },
      { id: "caro-someday", text: "Caroline said: Painting sounds relaxing, maybe I will paint someday.", speaker: "Caroline", persons: ["Caroline"], timestamp: at(3) },
      { id: "caro-brushes", text: "Caroline said: I bought paint brushes for my niece.", speaker: "Caroline", persons: ["Caroline"], timestamp: at(4) },
      { id: "caro-group", text: "Caroline said: I went to the support group on Tuesday.", speaker: "Caroline", persons: ["Caroline"], timestamp: at(5) },
      { id: "mel-museum", text: "Melanie said: The kids loved the museum.", speaker: "Melanie", persons: ["Melanie"], timestamp: at(6) },
    ]);
  });
  after(() => memory.close());

  it("answers with the named speaker's own words first and keeps the other speaker's painting in the top results", async () => {
    // Equal turns between the two readings: the words reading's best unseen hit takes the 2nd and 4th places.
    const output = await memory.retrieve({ question, namespace: "chat", now }, { finalK: 4, readingTurns: 2 });
    const ids = output.results.map((result) => result.id);
    const ownRound = output.results.filter((result) => result.provenance.ranks.some((rank) => rank.round === 1));
    assert.ok(ownRound.length > 0 && ownRound.every((result) => result.speaker === "Caroline"), `the own-words round ran: ${ids.join(", ")}`);
    assert.equal(output.results[0]?.speaker, "Caroline", `the named speaker's words first: ${ids.join(", ")}`);
    assert.ok(ids.includes("mel-painted"), `what Melanie painted is still among the top 4: ${ids.join(", ")}`);
  });

  it("searches the named speaker's own words by the question's other words, not by the name each of them has", async () => {
    const output = await memory.retrieve({ question, namespace: "chat", now }, { finalK: 6 });
    const ids = output.results.map((result) => result.id);
    // "I went to the support group on Tuesday" shares only Caroline's name with the question.
    const group = output.results.find((result) => result.id === "caro-group");
    assert.ok(group && !group.provenance.ranks.some((rank) => rank.view === "lexical" && rank.round === 1), `not found by words in the own-words round: ${ids.join(", ")}`);
    assert.ok(ids.slice(0, 4).includes("mel-painted"), `so what Melanie painted keeps a place in the top 4: ${ids.join(", ")}`);
  });
});

describe("a question that names the wrong speaker, asked of one exchange", () => {
  // The same words, said one after the other as a dialogue's turns are: Caroline's reply is Melanie's painting's neighbour.
  const now = "2026-03-20T00:00:00Z";
  let memory: RecallGraph;
  before(async () => {
    const at = (minute: number) => `2026-03-14T10:0${minute}:00Z`;
    memory = await chatMemory([
      {
        id: "mel-painted",
        text: "Melanie said: Caroline, I painted a sunset over the lake last weekend.",
        speaker: "Melanie",
        persons: ["Melanie", "Caroline"],
        timestamp: at(1),
        source: { turnIds: ["d1"], contextTurnIds: ["d2"] },
      },
      {
        id: "caro-lovely",
        text: "Caroline said: Melanie, your painting is lovely! I wish I could paint.",
        speaker: "Caroline",
        persons: ["Caroline", "Melanie"],
        timestamp: at(5),
        source: { turnIds: ["d2"], contextTurnIds: ["d1"] },
      },
    ]);
    await memory.remember("chat", [
      { id: "caro-someday", text: "Caroline said: Painting sounds relaxing, maybe I will paint someday.", speaker: "Caroline", persons: ["Caroline"], timestamp: "2026-03-10T10:00:00Z" },
      { id: "caro-brushes", text: "Caroline said: I bought paint brushes for my niece.", speaker: "Caroline", persons: ["Caroline"], timestamp: "2026-03-11T10:00:00Z" },
      { id: "caro-group", text: "Caroline said: I went to the support group on Tuesday.", speaker: "Caroline", persons: ["Caroline"], timestamp: "2026-03-12T10:00:00Z" },
      { id: "mel-museum", text: "Melanie said: The kids loved the museum.", speaker: "Melanie", persons: ["Melanie"], timestamp: "2026-03-13T10:00:00Z" },
    ]);
  });
  after(() => memory.close());

  it("lifts what the other speaker said next to the named one's words into the words reading's first place", async () => {
    const output = await memory.retrieve({ question: "What did Caroline paint?", namespace: "chat", now }, { finalK: 4 });
    const ids = output.results.map((result) => result.id);
    assert.equal(output.results[0]?.speaker, "Caroline", `the named speaker's words first: ${ids.join(", ")}`);
    assert.ok(ids.slice(0, 3).includes("mel-painted"), `Melanie's painting, said beside Caroline's reply, within the top 3: ${ids.join(", ")}`);
    const without = await memory.retrieve({ question: "What did Caroline paint?", namespace: "chat", now }, { finalK: 4, contextVotes: NO_CONTEXT_VOTES });
    assert.ok(!without.results.slice(0, 3).some((result) => result.id === "mel-painted"), `without context votes it is not: ${without.results.map((r) => r.id).join(", ")}`);
  });

  it("lends votes in the named speaker's reading too, by default", async () => {
    // Nearly all places from the final reading, and none of the words reading's votes: only the speaker reading's share moves Melanie's painting.
    const ids = async (speakerReading?: number) => {
      // Unset, the share is the default's.
      const contextVotes = { ranking: 0, wordsReading: 0, ...(speakerReading === undefined ? {} : { speakerReading }) };
      const output = await memory.retrieve({ question: "What did Caroline paint?", namespace: "chat", now }, { finalK: 6, readingTurns: 10, contextVotes });
      return output.results.map((result) => result.id);
    };
    const lent = await ids();
    const unlent = await ids(0);
    assert.ok(lent.indexOf("mel-painted") < unlent.indexOf("mel-painted"), `Melanie's painting, beside Caroline's reply, rises: ${lent.join(", ")} against ${unlent.join(", ")}`);
  });
});
