import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ValidationError } from "../../src/core/errors.js";
import { normalizeEntry } from "../../src/memory/entry.js";

describe("an entry's speaker", () => {
  const now = Date.parse("2026-03-01T00:00:00Z");

  it("is kept, trimmed, and is one of the entry's persons, listed once", () => {
    const entry = normalizeEntry("ns", { text: "Mia said: I made a bowl.", speaker: " Mia ", persons: ["Theo", "mia"] }, { now });
    assert.equal(entry.speaker, "Mia");
    assert.deepEqual(entry.persons, ["Mia", "Theo"]);
    assert.deepEqual(normalizeEntry("ns", { text: "Theo said: hi.", speaker: "Theo" }, { now }).persons, ["Theo"]);
  });

  it("is absent unless given", () => {
    const entry = normalizeEntry("ns", { text: "The office moved to Berlin.", persons: ["Alice"] }, { now });
    assert.equal("speaker" in entry, false);
    assert.deepEqual(entry.persons, ["Alice"]);
  });

  it("refuses a blank speaker, naming the field", () => {
    assert.throws(
      () => normalizeEntry("ns", { text: "x", speaker: "  " }, { now, field: "entries.0" }),
      (error: unknown) => error instanceof ValidationError && error.field.startsWith("entries.0") && /speaker/.test(error.message),
    );
  });
});
