import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { sameSubject, subjectBefore, type Subject } from "../../src/ingest/statement-subjects.js";

/** The subject of `sentence`'s statement whose value is `value`. */
function subjectOf(sentence: string, value: string, persons: readonly string[] = []): Subject {
  const at = sentence.indexOf(value);
  assert.ok(at >= 0, `${value} is in ${sentence}`);
  return subjectBefore(sentence, at, persons);
}

const speaker: Subject = { kind: "speaker" };
const unnamed: Subject = { kind: "unnamed" };
const named = (...names: string[]): Subject => ({ kind: "named", names });

describe("the subject of a statement", () => {
  it("is the speaker when the statement says I or we, or names no one before its verb", () => {
    assert.deepEqual(subjectOf("I moved to Malmö last week.", "Malmö"), speaker);
    assert.deepEqual(subjectOf("Yesterday we finally moved to Malmö.", "Malmö"), speaker);
    assert.deepEqual(subjectOf("Finally moved to Malmö!", "Malmö"), speaker);
    assert.deepEqual(subjectOf("The first sprint deadline was moved to April 5.", "April 5"), speaker);
    assert.deepEqual(subjectOf("Setting a new milestone of 15,000 words is a great goal.", "15,000"), speaker);
    assert.deepEqual(subjectOf("I told my friend Ben that I moved to Malmö.", "Malmö", ["Ben"]), speaker, "the clause of the move");
    assert.deepEqual(subjectOf("I moved to Malmö with Anna.", "Malmö"), speaker, "named after the value");
  });

  it("is whom the words before the verb name, cued or not, at the start of a sentence or not", () => {
    assert.deepEqual(subjectOf("Dana moved to Malmö for her job at Spotify.", "Malmö"), named("Dana"));
    assert.deepEqual(subjectOf("Dana lives in Oslo.", "lives"), named("Dana"));
    assert.deepEqual(subjectOf("My sister Anna lives in Oslo.", "lives", ["Anna"]), named("Anna"));
    assert.deepEqual(subjectOf("Anna Berg and Ben have moved to Oslo.", "Oslo"), named("Anna Berg", "Ben"));
    assert.deepEqual(subjectOf("Big news: Dana's brother Erik moved to Oslo.", "Oslo"), named("Erik"));
  });

  it("is someone unnamed after he, she, they or a relation, and a name after a preposition is no subject", () => {
    assert.deepEqual(subjectOf("She moved to Lund after that.", "Lund"), unnamed);
    assert.deepEqual(subjectOf("They'd already moved to Lund.", "Lund"), unnamed);
    assert.deepEqual(subjectOf("My sister lives in Oslo.", "lives"), unnamed);
    assert.deepEqual(subjectOf("The mixing sessions with Jeremy got moved to July 16.", "July 16"), speaker);
    assert.deepEqual(subjectOf("The mixing sessions with my friend Jeremy got moved to July 16.", "July 16", ["Jeremy"]), named("Jeremy"), "a person the builder found still says whom");
  });

  it("matches a change to a statement about the same people only", () => {
    assert.equal(sameSubject(speaker, speaker), true);
    assert.equal(sameSubject(named("Dana"), named("Dana", "Ben")), true);
    assert.equal(sameSubject(named("dana"), named("Dana")), true);
    assert.equal(sameSubject(named("Dana"), speaker), false);
    assert.equal(sameSubject(speaker, named("Dana")), false);
    assert.equal(sameSubject(named("Dana", "Ben"), named("Dana")), false);
    assert.equal(sameSubject(unnamed, unnamed), false);
    assert.equal(sameSubject(speaker, unnamed), false);
  });
});
