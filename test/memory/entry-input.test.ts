import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { entryInput, MemoryInputSchema, normalizeEntry, type MemoryEntry, type MemoryInput } from "../../src/memory/entry.js";

const WRITTEN = Date.parse("2026-11-01T09:00:00Z");
const REWRITTEN = Date.parse("2026-12-01T09:00:00Z");

/** Everything but the times a store keeps of its own. */
function withoutStoreTimes(entry: MemoryEntry): Omit<MemoryEntry, "createdAt" | "updatedAt"> {
  const { createdAt: _created, updatedAt: _updated, ...rest } = entry;
  return rest;
}

const INPUTS: Record<string, MemoryInput> = {
  "text alone": { text: "The launch moved to Friday" },
  "every field": {
    id: "turn-7",
    text: "Alice met Bob in Shanghai about XYZ-100",
    keywords: ["Alice", "Shanghai", "XYZ-100", "xyz-100"],
    timestamp: "2026-10-20T18:30:00+08:00",
    location: "Shanghai",
    persons: ["Bob"],
    speaker: "Alice",
    entities: ["XYZ-100"],
    topic: "product",
    source: { documentId: "notes/trip.md", version: 2, turnIds: ["D1:7"], headingPath: ["Trip", "Day 1"], origin: "/home/alice/notes" },
    expiresAt: "2030-01-01T00:00:00Z",
    validFrom: "2026-10-01",
    validUntil: "2026-12-31T23:00:00-01:00",
    supersedes: ["turn-3", "turn-5"],
  },
  "epoch-ms times": { id: "ms", text: "Paid the invoice", timestamp: 1_790_000_000_000, expiresAt: 1_900_000_000_000 },
};

describe("entryInput: what writes an entry again", () => {
  for (const [name, input] of Object.entries(INPUTS)) {
    it(`${name}: writing it again gives the same entry, but for the store's own times`, () => {
      const entry = normalizeEntry("team", input, { now: WRITTEN });
      const again = entryInput(entry);
      assert.ok(MemoryInputSchema.safeParse(again).success, "an input the schema accepts, as an ingest line must be");
      const rewritten = normalizeEntry("team", again, { now: REWRITTEN });
      assert.deepEqual(withoutStoreTimes(rewritten), withoutStoreTimes(entry));
      assert.equal(rewritten.createdAt, new Date(REWRITTEN).toISOString());
    });
  }

  it("survives JSON, as an export line does", () => {
    const entry = normalizeEntry("team", INPUTS["every field"], { now: WRITTEN });
    const line = JSON.parse(JSON.stringify(entryInput(entry))) as unknown;
    assert.deepEqual(withoutStoreTimes(normalizeEntry("team", line, { now: REWRITTEN })), withoutStoreTimes(entry));
  });

  it("leaves out what the entry does not have", () => {
    const input = entryInput(normalizeEntry("team", { text: "plain" }, { now: WRITTEN }));
    for (const field of ["location", "speaker", "topic", "source", "expiresAt", "validFrom", "validUntil", "supersedes"]) assert.ok(!(field in input), field);
  });
});
