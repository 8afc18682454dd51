import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MAX_SUPERSEDES, normalizeEntry } from "../../src/memory/entry.js";

const NOW = Date.parse("2026-06-01T12:00:00Z");

describe("normalizeEntry: validFrom, validUntil, supersedes", () => {
  it("stores validity bounds in UTC, whatever form they were given in, and either one alone", () => {
    const entry = normalizeEntry("ns", { text: "Dana lives in Malmö", validFrom: "2026-03-01T01:00:00+01:00", validUntil: Date.parse("2026-09-01T00:00:00Z") }, { now: NOW });
    assert.equal(entry.validFrom, "2026-03-01T00:00:00.000Z");
    assert.equal(entry.validUntil, "2026-09-01T00:00:00.000Z");
    assert.equal(normalizeEntry("ns", { text: "x", validUntil: "2020-01-01" }, { now: NOW }).validUntil, "2020-01-01T00:00:00.000Z", "a past end is history, not an error");
    const plain = normalizeEntry("ns", { text: "x" }, { now: NOW });
    for (const field of ["validFrom", "validUntil", "supersedes"]) assert.equal(field in plain, false, field);
  });

  it("refuses a validUntil at or before validFrom, naming validUntil under the entry's path", () => {
    for (const validUntil of ["2026-03-01", "2026-02-28"]) {
      assert.throws(() => normalizeEntry("ns", { text: "x", validFrom: "2026-03-01", validUntil }, { field: "entries.2", now: NOW }), {
        name: "ValidationError",
        field: "entries.2.validUntil",
        message: /validUntil must be after validFrom/,
      });
    }
  });

  it("refuses a validity bound that does not exist or cannot be stored, naming it", () => {
    assert.throws(() => normalizeEntry("ns", { text: "x", validFrom: "2026-02-30" }, { now: NOW }), { name: "ValidationError", field: "validFrom" });
    assert.throws(() => normalizeEntry("ns", { text: "x", validUntil: 9e15 }, { now: NOW }), { name: "ValidationError", field: "validUntil" });
  });

  it("keeps supersedes ids distinct, in order, and drops an empty list", () => {
    assert.deepEqual(normalizeEntry("ns", { text: "x", supersedes: ["a", " b ", "a"] }, { now: NOW }).supersedes, ["a", "b"]);
    assert.equal("supersedes" in normalizeEntry("ns", { text: "x", supersedes: [] }, { now: NOW }), false);
  });

  it("refuses a memory superseding itself, too many ids, or an empty id, naming the field", () => {
    assert.throws(() => normalizeEntry("ns", { id: "m1", text: "x", supersedes: ["m0", "m1"] }, { now: NOW }), { name: "ValidationError", field: "supersedes" });
    const many = Array.from({ length: MAX_SUPERSEDES + 1 }, (_, i) => `m${i}`);
    assert.throws(() => normalizeEntry("ns", { text: "x", supersedes: many }, { now: NOW }), { name: "ValidationError", field: "supersedes" });
    assert.throws(() => normalizeEntry("ns", { text: "x", supersedes: [" "] }, { now: NOW }), { name: "ValidationError", field: "supersedes.0" });
  });
});
