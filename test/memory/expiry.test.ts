import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { normalizeEntry } from "../../src/memory/entry.js";

const NOW = Date.parse("2024-06-01T12:00:00Z");

/** Asserts `call` throws a ValidationError with this field and message. */
function assertRefused(call: () => unknown, field: string, message: string): void {
  assert.throws(call, { name: "ValidationError", field, message });
}

describe("normalizeEntry: expiresAt", () => {
  it("stores the expiry as UTC ISO 8601 and epoch ms, from any timestamp form", () => {
    const expected = { expiresAt: "2024-06-02T10:00:00.000Z", expiresAtMs: Date.parse("2024-06-02T10:00:00Z") };
    for (const expiresAt of ["2024-06-02T12:00:00+02:00", "2024-06-02 10:00", expected.expiresAtMs, new Date(expected.expiresAtMs)]) {
      const entry = normalizeEntry("ns", { text: "soon gone", expiresAt }, { now: NOW });
      assert.deepEqual({ expiresAt: entry.expiresAt, expiresAtMs: entry.expiresAtMs }, expected, String(expiresAt));
    }
    assert.equal(normalizeEntry("ns", { text: "a millisecond left", expiresAt: NOW + 1 }, { now: NOW }).expiresAtMs, NOW + 1);
  });

  it("leaves both fields out when no expiry is given", () => {
    const entry = normalizeEntry("ns", { text: "lasting" }, { now: NOW });
    assert.equal("expiresAt" in entry, false);
    assert.equal("expiresAtMs" in entry, false);
  });

  it("refuses an expiry at or before now, naming the field", () => {
    assertRefused(
      () => normalizeEntry("ns", { text: "already over", expiresAt: NOW }, { field: "entries.3", now: NOW }),
      "entries.3.expiresAt",
      "entries.3.expiresAt: expiresAt must be in the future",
    );
    assertRefused(() => normalizeEntry("ns", { text: "long over", expiresAt: "2024-05-01" }, { now: NOW }), "expiresAt", "expiresAt: expiresAt must be in the future");
  });

  it("checks against the real clock when no now is given", () => {
    assertRefused(() => normalizeEntry("ns", { text: "past", expiresAt: Date.now() - 1000 }), "expiresAt", "expiresAt: expiresAt must be in the future");
    assert.ok(normalizeEntry("ns", { text: "future", expiresAt: Date.now() + 60_000 }).expiresAtMs !== undefined);
  });

  it("refuses what is not a timestamp or lies outside a Date's range", () => {
    assert.throws(() => normalizeEntry("ns", { text: "x", expiresAt: "next week" }, { field: "entries.0", now: NOW }), {
      name: "ValidationError",
      field: "entries.0.expiresAt",
    });
    assertRefused(() => normalizeEntry("ns", { text: "x", expiresAt: 9e15 }, { field: "entries.1", now: NOW }), "entries.1.expiresAt", "entries.1.expiresAt: expiresAt is out of range");
    assertRefused(() => normalizeEntry("ns", { text: "x", timestamp: -9e15 }, { now: NOW }), "timestamp", "timestamp: timestamp is out of range");
  });
});
