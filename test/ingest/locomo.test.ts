import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { parseLocomo } from "../../src/ingest/locomo.js";
import { parseSessionDateTime, SESSION_DATE_SPELLINGS } from "../../src/ingest/session-date.js";

const LOCOMO_PATH = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../shared/data/locomo/locomo10.json");
const haveLocomo = existsSync(LOCOMO_PATH);

describe("LoCoMo importer", () => {
  it("reads LoCoMo's own spelling as before: UTC, the 12-hour clock, the comma optional", () => {
    assert.equal(parseSessionDateTime("1:56 pm on 8 May, 2023"), Date.UTC(2023, 4, 8, 13, 56));
    assert.equal(parseSessionDateTime("12:09 am on 13 September, 2023"), Date.UTC(2023, 8, 13, 0, 9));
    assert.equal(parseSessionDateTime("12:30 pm on 1 January 2024"), Date.UTC(2024, 0, 1, 12, 30));
    assert.equal(parseSessionDateTime("  10:05 AM on 29 february, 2024 "), Date.UTC(2024, 1, 29, 10, 5));
  });

  it("reads ISO 8601 session dates: without offset as UTC, like LoCoMo's own; with an offset kept", () => {
    const cases: Array<[string, number]> = [
      ["2023-05-08T13:56:00Z", Date.UTC(2023, 4, 8, 13, 56)],
      ["2023-05-08T13:56:00", Date.UTC(2023, 4, 8, 13, 56)],
      ["2023-05-08 13:56", Date.UTC(2023, 4, 8, 13, 56)],
      ["2023-05-08T13:56:00+02:00", Date.UTC(2023, 4, 8, 11, 56)],
      ["2023-05-08T13:56:00.250-05:30", Date.UTC(2023, 4, 8, 19, 26, 0, 250)],
      ["2023-05-08", Date.UTC(2023, 4, 8)],
    ];
    for (const [text, ms] of cases) assert.equal(parseSessionDateTime(text), ms, text);
  });

  it("reads day-first dotted dates, in UTC like LoCoMo's own", () => {
    const cases: Array<[string, number]> = [
      ["29.12.2023, 22:42:04", Date.UTC(2023, 11, 29, 22, 42, 4)],
      ["29.12.2023, 22:42", Date.UTC(2023, 11, 29, 22, 42)],
      ["29.12.2023 22:42:04", Date.UTC(2023, 11, 29, 22, 42, 4)],
      ["29.12.2023", Date.UTC(2023, 11, 29)],
      ["9.1.2024 8:05", Date.UTC(2024, 0, 9, 8, 5)],
      ["09.01.2024", Date.UTC(2024, 0, 9)],
      ["29.02.2024, 00:00:00", Date.UTC(2024, 1, 29)],
    ];
    for (const [text, ms] of cases) assert.equal(parseSessionDateTime(text), ms, text);
    assert.equal(parseSessionDateTime("8.5.2023 13:56"), parseSessionDateTime("1:56 pm on 8 May, 2023"));
  });

  it("refuses dates and times that do not exist instead of rolling them over, and other shapes", () => {
    const impossible = [
      "31.02.2024", "29.02.2023", "32.1.2024", "1.13.2024", "29.12.2023, 25:00", "29.12.2023, 22:60", "29.12.2023, 22:42:60",
      "2024-02-30", "2024-02-30T10:00:00Z", "2024-01-01T25:00", "2024-01-01T10:00+15:00",
      "1:56 pm on 31 April, 2023", "1:60 pm on 8 May, 2023", "0:30 pm on 8 May, 2023", "13:00 pm on 8 May, 2023",
    ];
    const otherShapes = ["yesterday", "8 May 2023", "12/29/2023", "29.12.23", "29.12.202322:42", "29.12.2023,", "2023-05-08T13:56:00+02:00 extra"];
    for (const text of [...impossible, ...otherShapes]) assert.equal(parseSessionDateTime(text), undefined, text);
  });

  it("refuses an impossible session date naming the field and listing each spelling with an example", () => {
    for (const dateText of ["31.02.2024", "2024-02-30", "29.12.2023, 25:00"]) {
      assert.throws(
        () => parseLocomo([{ sample_id: "conv-x", conversation: { speaker_a: "A", speaker_b: "B", session_2: [{ speaker: "A", dia_id: "D2:1", text: "hi" }], session_2_date_time: dateText } }]),
        (error: Error) => {
          assert.ok(error.message.startsWith("conv-x.conversation.session_2_date_time: expected a date that exists, written as one of: "), error.message);
          for (const { examples } of SESSION_DATE_SPELLINGS) for (const example of examples) assert.ok(error.message.includes(JSON.stringify(example)), example);
          assert.ok(error.message.endsWith(`got ${JSON.stringify(dateText)}`), error.message);
          return true;
        },
      );
    }
  });

  it("imports sessions dated in the new spellings", () => {
    const [conv] = parseLocomo([
      {
        sample_id: "conv-x",
        conversation: {
          speaker_a: "A",
          speaker_b: "B",
          session_1_date_time: "29.12.2023, 22:42:04",
          session_1: [{ speaker: "A", dia_id: "D1:1", text: "hi" }, { speaker: "B", dia_id: "D1:2", text: "hello" }],
          session_2_date_time: "2024-01-09T08:05:00+01:00",
          session_2: [{ speaker: "A", dia_id: "D2:1", text: "back again" }],
        },
      },
    ]);
    assert.deepEqual(conv?.dialogue.turns.map((turn) => turn.time), ["2023-12-29T22:42:04.000Z", "2023-12-29T22:42:05.000Z", "2024-01-09T07:05:00.000Z"]);
    assert.equal(conv?.lastSessionTime, "2024-01-09T07:05:00.000Z");
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
      /conv-x\.conversation\.session_1_date_time: expected a date that exists, written as one of: LoCoMo's own "1:56 pm on 8 May, 2023"; .*; got "yesterday"$/,
    );
    assert.throws(
      () => parseLocomo(sample({ session_1: [{ speaker: "A", text: "hi" }], session_1_date_time: "1:56 pm on 8 May, 2023" })),
      /conv-x\.conversation\.session_1\.0\.dia_id/,
    );
    assert.throws(() => parseLocomo(sample({})), /conv-x\.conversation: no session with turns/);
  });
});
