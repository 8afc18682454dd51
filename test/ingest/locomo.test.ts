import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { parseLocomo, parseLocomoDateTime } from "../../src/ingest/locomo.js";

const LOCOMO_PATH = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../shared/data/locomo/locomo10.json");
const haveLocomo = existsSync(LOCOMO_PATH);

describe("LoCoMo importer", () => {
  it("parses session date-times as UTC and refuses other shapes", () => {
    assert.equal(new Date(parseLocomoDateTime("1:56 pm on 8 May, 2023") ?? 0).toISOString(), "2023-05-08T13:56:00.000Z");
    assert.equal(new Date(parseLocomoDateTime("12:09 am on 13 September, 2023") ?? 0).toISOString(), "2023-09-13T00:09:00.000Z");
    assert.equal(new Date(parseLocomoDateTime("12:30 pm on 1 January 2024") ?? 0).toISOString(), "2024-01-01T12:30:00.000Z");
    assert.equal(parseLocomoDateTime("8 May 2023"), undefined);
    assert.equal(parseLocomoDateTime("1:56 pm on 31 April, 2023"), undefined);
  });

  it(
    "reads conversation conv-26: dia_ids as turn ids, session times (+1 s per turn), captions",
    { skip: haveLocomo ? false : `LoCoMo data not found at ${LOCOMO_PATH}` },
    () => {
      const conversations = parseLocomo(JSON.parse(readFileSync(LOCOMO_PATH, "utf8")));
      assert.equal(conversations.length, 10);
      const conv = conversations.find((c) => c.sampleId === "conv-26");
      assert.ok(conv);
      assert.deepEqual(conv.speakers, ["Caroline", "Melanie"]);
      assert.equal(conv.dialogue.turns.length, 419);
      const [first, second] = conv.dialogue.turns;
      assert.deepEqual(first, {
        turnId: "D1:1",
        speaker: "Caroline",
        text: "Hey Mel! Good to see you! How have you been?",
        time: "2023-05-08T13:56:00.000Z",
        sessionId: "session_1",
      });
      assert.equal(second?.time, "2023-05-08T13:56:01.000Z");
      const withCaption = conv.dialogue.turns.find((turn) => turn.turnId === "D1:5");
      assert.equal(withCaption?.imageCaption, "a photo of a dog walking past a wall with a painting of a woman");
      // Turn times never go backwards, so sorting by time keeps the conversation's order.
      const times = conv.dialogue.turns.map((turn) => Date.parse(turn.time));
      assert.ok(times.every((t, i) => i === 0 || t > (times[i - 1] ?? 0)));
      assert.equal(conv.lastSessionTime, "2023-10-22T09:55:00.000Z");
      assert.ok(conv.questions.length > 100);
      assert.deepEqual(Object.keys(conv.questions[0] ?? {}).sort(), ["category", "evidence", "question"], "answers are not imported");
    },
  );

  it("names the sample and field of a bad file", () => {
    const sample = (conversation: Record<string, unknown>) => [{ sample_id: "conv-x", conversation: { speaker_a: "A", speaker_b: "B", ...conversation } }];
    assert.throws(() => parseLocomo({}), /expected array/);
    assert.throws(() => parseLocomo([]), /at least one sample/);
    assert.throws(
      () => parseLocomo(sample({ session_1: [{ speaker: "A", dia_id: "D1:1", text: "hi" }], session_1_date_time: "yesterday" })),
      /conv-x\.conversation\.session_1_date_time: expected a date like "1:56 pm on 8 May, 2023", got "yesterday"/,
    );
    assert.throws(
      () => parseLocomo(sample({ session_1: [{ speaker: "A", text: "hi" }], session_1_date_time: "1:56 pm on 8 May, 2023" })),
      /conv-x\.conversation\.session_1\.0\.dia_id/,
    );
    assert.throws(() => parseLocomo(sample({})), /conv-x\.conversation: no session with turns/);
  });
});
