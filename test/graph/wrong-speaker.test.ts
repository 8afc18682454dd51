import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { openRecallGraph, type RecallGraph } from "../../src/library/open-recallgraph.js";

describe("a question that names the wrong speaker", () => {
  // Melanie painted; the question asks what Caroline painted (LoCoMo's adversarial questions are made so).
  const question = "What did Caroline paint?";
  const now = "2026-03-20T00:00:00Z";
  let memory: RecallGraph;
  before(async () => {
    memory = await openRecallGraph({ store: { kind: "sqlite", path: ":memory:" }, embedder: { provider: "hash", dimension: 256 }, model: null });
    const at = (minute: number) => `2026-03-14T10:0${minute}:00Z`;
    await memory.remember("chat", [
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
    const output = await memory.retrieve({ question, namespace: "chat", now }, { finalK: 4 });
    const ids = output.results.map((result) => result.id);
    const ownRound = output.results.filter((result) => result.provenance.ranks.some((rank) => rank.round === 1));
    assert.ok(ownRound.length > 0 && ownRound.every((result) => result.speaker === "Caroline"), `the own-words round ran: ${ids.join(", ")}`);
    assert.equal(output.results[0]?.speaker, "Caroline", `the named speaker's words first: ${ids.join(", ")}`);
    assert.ok(ids.includes("mel-painted"), `what Melanie painted is still among the top 4: ${ids.join(", ")}`);
  });
});
