import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { openRecallGraph } from "../../src/library/open-recallgraph.js";
import { openSqliteStore } from "../../src/stores/sqlite/store.js";
import { createEmbedder } from "../../src/text/embedders/create-embedder.js";

async function gardenMemory() {
  const embedder = createEmbedder({ provider: "hash", dimension: 128 });
  const store = await openSqliteStore({ path: ":memory:", embedding: embedder.spec });
  const memory = await openRecallGraph({ store, embedder, model: null });
  await memory.remember(
    "alice",
    Array.from({ length: 40 }, (_, i) => ({ id: `note-${i}`, text: `Alice fixed the garden shed roof, step ${i}, with Bob in Shanghai.` })),
  );
  return memory;
}

describe("the event loop while questions run", () => {
  // The embedded store and the hashing embedder answer synchronously: without a turn given back, a
  // burst of questions would hold every timer and socket of the host application until it ends.
  it("runs the host's due timers between the views of back-to-back questions", async () => {
    const memory = await gardenMemory();
    try {
      let timerRan = false;
      const timer = setTimeout(() => (timerRan = true), 0);
      const answeredBeforeTimer: number[] = [];
      for (let question = 0; question < 5; question += 1) {
        const answer = await memory.retrieve({ namespace: "alice", question: "Who helped Alice with the shed roof?" });
        assert.ok(answer.results.length > 0, "each question finds the notes");
        if (!timerRan) answeredBeforeTimer.push(question);
      }
      clearTimeout(timer);
      assert.equal(timerRan, true, "the timer ran while the questions were answered");
      assert.ok(answeredBeforeTimer.length < 5, `timer waited for all five questions`);
    } finally {
      await memory.close();
    }
  });

  it("lets a concurrent heartbeat tick while overlapping questions run", async () => {
    const memory = await gardenMemory();
    try {
      let beats = 0;
      const heartbeat = setInterval(() => (beats += 1), 1);
      const asked = Array.from({ length: 8 }, () => memory.retrieve({ namespace: "alice", question: "What did Alice fix in Shanghai?" }));
      const answers = await Promise.all(asked);
      clearInterval(heartbeat);
      assert.equal(answers.length, 8);
      assert.ok(beats > 0, "the heartbeat never ran while eight questions overlapped");
    } finally {
      await memory.close();
    }
  });
});
