import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Plan } from "../../src/graph/state.js";
import { judgeWithRules } from "../../src/llm/rules/reflect-rules.js";
import { normalizeEntry, type MemoryInput } from "../../src/memory/entry.js";
import { openRecallGraph, type RecallGraph } from "../../src/recallgraph.js";
import type { RetrievalOutput } from "../../src/retrieve.js";
import { createEmbedder } from "../../src/text/embedders/index.js";

const NOW = "2026-11-18T10:00:00.000Z";

/**
 * Seven memories about Alice, one a day. Only the oldest mentions the kayak; the others repeat the
 * question's other words, so similarity and recency both put the kayak memory last.
 */
const ALICE: Array<MemoryInput & { id: string }> = [
  { id: "kayak", text: "Alice bought a red kayak for the lake.", persons: ["Alice"], timestamp: "2026-11-01T09:00:00Z" },
  ...[2, 3, 4, 5, 6, 7].map((day) => ({
    id: `chat-${day}`,
    text: `What did Alice say about it? Alice did say what she thought about the day ${day}.`,
    persons: ["Alice"],
    timestamp: `2026-11-0${day}T09:00:00Z`,
  })),
  { id: "launch", text: "Bob moved the launch to August.", persons: ["Bob"], timestamp: "2026-03-02T09:00:00Z" },
];

const lexicalQueries = (output: RetrievalOutput): string[] => [
  ...new Set(output.results.flatMap((result) => result.provenance.ranks.filter((rank) => rank.view === "lexical").map((rank) => rank.query))),
];

describe("the rule-based views", () => {
  let memory: RecallGraph;
  before(async () => {
    memory = await openRecallGraph({ store: { kind: "sqlite", path: ":memory:" }, embedder: createEmbedder({ provider: "hash", dimension: 256 }), model: null });
    await memory.remember("people", ALICE);
  });
  after(() => memory.close());

  it("symbolic: ranks the matches of its conditions by the question's words before similarity or recency", async () => {
    const output = await memory.retrieve({ question: "What did Alice say about the kayak?", namespace: "people", now: NOW }, { preset: "symbolic" });
    assert.deepEqual(output.plan?.persons, ["Alice"]);
    assert.equal(output.results[0]?.id, "kayak");
    assert.equal(output.results.length, 5, "symbolicTopK matches");
    assert.ok(output.results.every((result) => result.persons.includes("Alice")));
  });

  it("symbolic: still returns the matches when the question shares no word with them", async () => {
    const output = await memory.retrieve({ question: "Anything from Alice?", namespace: "people", now: NOW }, { preset: "symbolic" });
    assert.equal(output.results.length, 5);
    assert.ok(output.results.every((result) => result.persons.includes("Alice")));
  });

  it("lexical: keeps a month name, which stored dates spell, and leaves a relative expression to the time window", async () => {
    const month = await memory.retrieve({ question: "What did Bob move to August?", namespace: "people", now: NOW });
    assert.equal(month.plan?.timeExpression, "August");
    assert.ok(lexicalQueries(month).some((query) => query.includes("August")), lexicalQueries(month).join(" | "));
    assert.equal(month.results[0]?.id, "launch");

    const relative = await memory.retrieve({ question: "What did Alice buy last week?", namespace: "people", now: NOW });
    assert.equal(relative.plan?.timeExpression, "last week");
    const queries = lexicalQueries(relative);
    assert.ok(queries.length > 0);
    assert.ok(queries.every((query) => !query.includes("last week")), queries.join(" | "));
  });
});

describe("the rule-based judge", () => {
  const plan = (extra: Partial<Plan>): Plan => ({
    requiredInfo: [],
    subQueries: ["q"],
    keywords: ["kind", "event", "attend"],
    persons: ["John"],
    entities: [],
    locations: [],
    planner: "rules",
    ...extra,
  });
  const found = [normalizeEntry("ns", { text: "John said: we went to the fair.", persons: ["John"] }, { now: Date.parse(NOW) })];

  it("judges only what it can verify: names and the time window, not the question's other words", () => {
    const coverage = judgeWithRules(plan({}), found, 3);
    assert.equal(coverage.complete, true);
    assert.deepEqual(coverage.missing, []);
    assert.equal(coverage.percent, 100);
  });

  it("asks for a missing name, anchored on the names it has", () => {
    const coverage = judgeWithRules(plan({ entities: ["Pride"] }), found, 3);
    assert.equal(coverage.complete, false);
    assert.deepEqual(coverage.missing, ["Pride"]);
    assert.deepEqual(coverage.gapQueries, ["John Pride"]);
    assert.equal(coverage.percent, 50);
  });

  it("counts a time window as covered only by a result inside it", () => {
    const window = { startMs: Date.parse("2026-12-01T00:00:00Z"), endMs: Date.parse("2027-01-01T00:00:00Z") };
    const coverage = judgeWithRules(plan({ timeExpression: "December", timeWindow: window }), found, 3);
    assert.deepEqual(coverage.missing, ["December"]);
    // The window is the symbolic view's to search: no gap query re-asks it, so the round ends.
    assert.equal(coverage.complete, true);
    assert.deepEqual(coverage.gapQueries, []);
  });
});
