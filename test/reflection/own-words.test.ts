import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Coverage } from "../../src/domain/coverage.js";
import { asksOwnWords, withoutGapQueries } from "../../src/reflection/coverage.js";

const open = (gapConditions: Coverage["gapConditions"], gapQueries = Object.keys(gapConditions ?? {})): Coverage => ({
  complete: false,
  percent: 50,
  missing: [],
  gapQueries,
  gapConditions,
  judge: "rules",
});

describe("asksOwnWords", () => {
  it("is true when a gap query of the next round must be the named speaker's words", () => {
    assert.equal(asksOwnWords(open({ "What did Caroline paint?": { spokenBy: "Caroline" }, "Caroline brush": { mentions: "Caroline brush" } })), true);
  });

  it("is false for gap queries without a speaker, a model's free gap queries, and a run that stops", () => {
    assert.equal(asksOwnWords(open({ "Caroline brush": { mentions: "Caroline brush" } })), false);
    assert.equal(asksOwnWords(open(undefined, ["what Caroline painted"])), false);
    assert.equal(asksOwnWords(withoutGapQueries(open({ "What did Caroline paint?": { spokenBy: "Caroline" } }))), false);
    assert.equal(asksOwnWords({ ...open({ "What did Caroline paint?": { spokenBy: "Caroline" } }), complete: true }), false);
    assert.equal(asksOwnWords(undefined), false);
  });
});
