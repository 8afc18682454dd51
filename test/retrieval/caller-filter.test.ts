import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ValidationError } from "../../src/core/errors.js";
import type { RecallGraph } from "../../src/library/open-recallgraph.js";
import { normalizeEntry } from "../../src/memory/entry.js";
import { bothFilters, matchesFilter, RecallFilterSchema, toMemoryFilter } from "../../src/stores/caller-filter.js";
import { teamMemory } from "../support/graph-fixture.js";
import { NOW } from "../support/team-memory.js";

const entry = normalizeEntry("ns", {
  text: "Alice met Bob in Shanghai.",
  persons: ["Alice", "Bob"],
  entities: ["XYZ-100"],
  location: "Shanghai Pudong",
  timestamp: "2026-11-10T09:00:00Z",
  source: { documentId: "notes.md", version: 1 },
});

describe("a caller's filter", () => {
  it("matches as the stores do: any of the names, folded; the place as a substring; [since, until)", () => {
    assert.ok(matchesFilter(entry, { persons: ["carol", "ALICE"] }));
    assert.ok(!matchesFilter(entry, { persons: ["Ali"] }), "whole names, not parts");
    assert.ok(matchesFilter(entry, { location: "pudong" }));
    assert.ok(matchesFilter(entry, { documentId: "notes.md" }) && !matchesFilter(entry, { documentId: "other.md" }));
    assert.ok(matchesFilter(entry, { timeRange: { startMs: Date.parse("2026-11-10T09:00:00Z") } }));
    assert.ok(!matchesFilter(entry, { timeRange: { endMs: Date.parse("2026-11-10T09:00:00Z") } }), "until is exclusive");
    assert.ok(matchesFilter(entry, undefined));
  });

  it("merges with a view's own conditions: time ranges intersect, the caller's names go to the store", () => {
    const merged = bothFilters({ persons: ["Alice"], timeRange: { startMs: 10 } }, { entities: ["XYZ-100"], persons: ["Bob"], timeRange: { startMs: 5, endMs: 20 } });
    assert.deepEqual(merged, { persons: ["Alice"], entities: ["XYZ-100"], timeRange: { startMs: 10, endMs: 20 } });
    assert.equal(bothFilters(undefined, undefined), undefined);
  });

  it("refuses since after until and bad times, naming the field", () => {
    const bad = (filter: unknown) => RecallFilterSchema.safeParse(filter).error?.issues[0]?.path.join(".");
    assert.equal(bad({ since: "2026-11-12", until: "2026-11-10" }), "until");
    assert.equal(bad({ since: "last tuesday" }), "since");
    assert.equal(bad({ persons: [] }), "persons");
    assert.equal(bad({ speaker: "Alice" }), "", "unknown fields are refused");
    assert.deepEqual(toMemoryFilter(RecallFilterSchema.parse({ since: "2026-11-01", persons: ["Alice"] })), { persons: ["Alice"], timeRange: { startMs: Date.parse("2026-11-01T00:00:00Z") } });
  });
});

describe("retrieve with a caller's filter", () => {
  let memory: RecallGraph;
  before(async () => {
    memory = await teamMemory();
  });
  after(() => memory.close());

  const ids = async (question: string, filter: Record<string, unknown>) =>
    (await memory.retrieve({ question, namespace: "team", now: NOW, filter })).results.map((result) => result.id);

  it("keeps only memories that meet it, in every view and round", async () => {
    const carol = await memory.retrieve({ question: "What did Alice discuss about product XYZ-100?", namespace: "team", now: NOW, filter: { persons: ["Carol"] } });
    assert.equal(carol.results[0]?.id, "berlin-call", "the plan asks about Alice and XYZ-100; the caller only wants Carol's");
    assert.ok(carol.results.every((r) => r.persons.includes("Carol")), JSON.stringify(carol.results.map((r) => r.id)));
    assert.ok(carol.rounds >= 0);
    const early = await memory.retrieve({ question: "What errors did Dave see?", namespace: "team", now: NOW, filter: { until: "2026-11-03T00:00:00Z" } });
    assert.equal(early.results[0]?.id, "err-1024");
    assert.ok(early.results.every((r) => Date.parse(r.timestamp) < Date.parse("2026-11-03T00:00:00Z")), "nothing at or after until");
    assert.deepEqual(await ids("Who did Alice meet?", { location: "berlin" }), ["berlin-call"]);
    assert.deepEqual(await ids("Who did Alice meet last week?", { persons: ["Alice"], since: "2026-11-11" }), ["berlin-call"], "the plan's window and the caller's range intersect");
  });

  it("returns nothing, not an error, for a name the namespace does not have", async () => {
    assert.deepEqual(await ids("Who did Alice meet?", { persons: ["Nobody"] }), []);
  });

  it("refuses a bad filter with a ValidationError naming the field", async () => {
    await assert.rejects(memory.retrieve({ question: "x", namespace: "team", filter: { since: "2026-11-12", until: "2026-11-10" } }), (error: unknown) => error instanceof ValidationError && error.field === "request.filter.until");
  });
});
