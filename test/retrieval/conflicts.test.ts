import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { hitKey, type AnswerHit } from "../../src/domain/hits.js";
import { normalizeEntry, type MemoryInput } from "../../src/memory/entry.js";
import { withConflicts } from "../../src/retrieval/conflicts.js";
import { noLinks } from "../../src/retrieval/supersession.js";

function answer(input: MemoryInput): AnswerHit {
  const entry = normalizeEntry("ns", input, { now: Date.UTC(2026, 0, 1) });
  return { entry, hit: { key: hitKey("ns", entry.id), score: 1, provenance: { views: ["lexical"], subQueries: [], ranks: [], fusedScore: 1 } } };
}

const conflictsOf = (answers: AnswerHit[]) => withConflicts(answers, noLinks()).map(({ hit }) => hit.provenance.conflictsWith);

describe("conflict marking", () => {
  it("marks two memories restating one attribute with different values, each naming the other", () => {
    const [a, b, c] = [
      answer({ id: "a", text: "My deadline is April 1.", speaker: "Ana" }),
      answer({ id: "b", text: "The weather is nice.", speaker: "Ana" }),
      answer({ id: "c", text: "My deadline is April 9.", speaker: "Ana" }),
    ];
    assert.deepEqual(conflictsOf([a, b, c]), [["c"], undefined, ["a"]]);
  });

  it("marks a memory saying what another denies", () => {
    const denied = answer({ id: "never", text: "I have never used Flask-Login in this project.", speaker: "user" });
    const said = answer({ id: "used", text: "Flask-Login v0.6.2 is used for sessions now.", speaker: "user" });
    assert.deepEqual(conflictsOf([denied, said]), [["used"], ["never"]]);
  });

  it("marks nothing between speakers, the same value, unrelated denials, or memories a supersession links", () => {
    assert.deepEqual(conflictsOf([answer({ id: "a", text: "My deadline is April 1.", speaker: "Ana" }), answer({ id: "b", text: "My deadline is April 9.", speaker: "Bo" })]), [undefined, undefined]);
    assert.deepEqual(conflictsOf([answer({ id: "a", text: "My deadline is April 1.", speaker: "Ana" }), answer({ id: "b", text: "My deadline is April 1.", speaker: "Ana" })]), [undefined, undefined]);
    assert.deepEqual(conflictsOf([answer({ id: "a", text: "I never mind the rain.", speaker: "Ana" }), answer({ id: "b", text: "The rain in Bergen is heavy.", speaker: "Ana" })]), [undefined, undefined]);
    const old = answer({ id: "old", text: "My deadline is April 1.", speaker: "Ana" });
    const replacing = answer({ id: "new", text: "My deadline is April 9.", speaker: "Ana", supersedes: ["old"] });
    assert.deepEqual(conflictsOf([replacing, old]), [undefined, undefined]);
  });
});
