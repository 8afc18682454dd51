import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { RecallGraph } from "../../src/library/open-recallgraph.js";
import { NO_CONTEXT_VOTES } from "../../src/graph/presets.js";
import { ingestDialogue } from "../../src/ingest/dialogue-ingest.js";
import { chatMemory } from "../support/graph-fixture.js";

describe("context votes over notes written together", () => {
  // One note written on its own, then a dozen in one call a minute later: the batch shares one moment.
  const batchAt = "2026-03-14T10:01:00Z";
  const batch = [
    "The billing team meets every Tuesday.",
    "Database migrations run on Sunday nights.",
    "The server room badge is kept at reception.",
    "Billing invoices go out on the first of the month.",
    "The staging database is refreshed weekly.",
    "Our main server uses 64 GB of RAM.",
    "Backups of laptops are optional.",
    "The data center contract renews in March.",
    "Billing questions go to Priya.",
    "The database admin is on call this week.",
    "The server was patched on Monday.",
    "The backup policy is reviewed yearly.",
  ];
  let memory: RecallGraph;
  before(async () => {
    memory = await chatMemory([{ id: "alone", text: "The backup server for the billing database is in the Frankfurt data center.", timestamp: "2026-03-14T10:00:00Z" }]);
    await memory.remember(
      "chat",
      batch.map((text, i) => ({ id: `batch-${i}`, text, timestamp: batchAt })),
    );
  });
  after(() => memory.close());

  // A question read one way lends nothing in its answer by default; these runs give it a share, as a caller who wants a hit's neighbours would.
  const IN_THE_ANSWER = { contextVotes: { ranking: 0.05, wordsReading: 0.5 } };

  for (const question of ["Where is the backup server?", "Frankfurt", "Which data center?", "What about billing?"]) {
    it(`lend no votes, so the note written alone keeps its place: "${question}"`, async () => {
      const ids = async (settings: object) => (await memory.retrieve({ question, namespace: "chat" }, { finalK: 8, ...settings })).results.map((result) => result.id);
      const withVotes = await ids(IN_THE_ANSWER);
      assert.ok(withVotes.includes("alone"), `the note written alone is among the top 8: ${withVotes.join(", ")}`);
      assert.deepEqual(withVotes, await ids({ contextVotes: NO_CONTEXT_VOTES }));
    });
  }

  it("still lend votes between the turns of a dialogue, however far apart their times", async () => {
    // The same words as a dialogue's turns, ten minutes apart: the turns said around each other lend, and the order is not the one found.
    const chat = await chatMemory([]);
    try {
      const turns = batch.map((text, i) => ({ turnId: `t${i}`, speaker: i % 2 ? "Ana" : "Ben", text, time: new Date(Date.parse(batchAt) + i * 600_000).toISOString() }));
      await ingestDialogue(chat.store, chat.embedder, "chat", { turns });
      const ids = async (settings: object) => (await chat.retrieve({ question: "Where is the backup server?", namespace: "chat" }, { finalK: 8, ...settings })).results.map((result) => result.id);
      assert.notDeepEqual(await ids(IN_THE_ANSWER), await ids({ contextVotes: NO_CONTEXT_VOTES }));
      assert.deepEqual(await ids({}), await ids({ contextVotes: NO_CONTEXT_VOTES }), "by default the answer keeps the fused order");
    } finally {
      await chat.close();
    }
  });
});
