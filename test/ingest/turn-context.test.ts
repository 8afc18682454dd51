import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { buildDialogue } from "../../src/ingest/dialogue-ingest.js";
import type { DialogueTurn } from "../../src/ingest/dialogue.js";
import { withContextTurnIds } from "../../src/ingest/turn-context.js";

const turn = (turnId: string, minute: number, sessionId?: string): DialogueTurn => ({
  turnId,
  speaker: minute % 2 ? "Ana" : "Ben",
  text: `Turn ${turnId} about the garden.`,
  time: new Date(Date.UTC(2026, 2, 14, 10, minute)).toISOString(),
  ...(sessionId ? { sessionId } : {}),
});

describe("the turns said around a memory's own", () => {
  const turns = [turn("a", 0, "s1"), turn("b", 1, "s1"), turn("c", 2, "s1"), turn("d", 3, "s1"), turn("e", 4, "s2"), turn("f", 5, "s2")];

  it("are two either side, in the turn's own session, whatever the minutes between them", async () => {
    const built = await buildDialogue("ns", { turns });
    const around = Object.fromEntries(built.memories.map((memory) => [memory.source?.turnIds?.[0], memory.source?.contextTurnIds]));
    assert.deepEqual(around, { a: ["b", "c"], b: ["a", "c", "d"], c: ["a", "b", "d"], d: ["b", "c"], e: ["f"], f: ["e"] });
  });

  it("of a memory built from several turns are those around any of them, its own left out", () => {
    const [memory] = withContextTurnIds([{ text: "Ana and Ben planned the garden.", source: { turnIds: ["b", "c"] } }], turns);
    assert.deepEqual(memory?.source?.contextTurnIds, ["a", "d"]);
  });

  it("are left as a memory gives them, and not made up for one of no turn or a turn alone", () => {
    const given = { text: "x", source: { turnIds: ["a"], contextTurnIds: ["z"] } };
    const note = { text: "A note of no dialogue." };
    const alone = { text: "y", source: { turnIds: ["solo"] } };
    assert.deepEqual(withContextTurnIds([given, note, alone], [...turns, turn("solo", 9, "s3")]), [given, note, alone]);
  });
});
