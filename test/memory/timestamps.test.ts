import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { parseIsoTimestamp, toEpochMs } from "../../src/memory/entry.js";

describe("ISO timestamps", () => {
  // A machine zone far from UTC: a time without offset must still be read as UTC.
  const machineZone = process.env.TZ;
  before(() => {
    process.env.TZ = "America/New_York";
  });
  after(() => {
    if (machineZone === undefined) delete process.env.TZ;
    else process.env.TZ = machineZone;
  });

  it("reads a time without offset as UTC, with 'T' or a space between date and time", () => {
    const utc = Date.parse("2024-01-01T10:00:00Z");
    assert.equal(parseIsoTimestamp("2024-01-01T10:00"), utc);
    assert.equal(parseIsoTimestamp("2024-01-01 10:00"), utc);
    assert.equal(parseIsoTimestamp("  2024-01-01 10:00:00  "), utc);
    assert.equal(parseIsoTimestamp("2024-01-01"), Date.parse("2024-01-01T00:00:00Z"));
  });

  it("keeps a given offset", () => {
    assert.equal(parseIsoTimestamp("2024-01-01 10:00+02:00"), Date.parse("2024-01-01T08:00:00Z"));
    assert.equal(toEpochMs("2024-01-01T10:00:00.5Z"), Date.parse("2024-01-01T10:00:00.500Z"));
  });

  it("refuses what is not an ISO date-time", () => {
    for (const text of ["last week", "2024-13-01", "2024-01-01T25:00", "01/02/2024"]) assert.equal(parseIsoTimestamp(text), undefined, text);
    assert.throws(() => toEpochMs("yesterday"), /timestamp: not an ISO 8601 date-time: yesterday/);
  });
});
