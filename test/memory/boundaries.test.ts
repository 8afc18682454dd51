/**
 * Inputs at the edge of what a caller may give: a namespace that differs from another only by
 * surrounding whitespace, a calendar date that does not exist, a retrieval configuration out of range.
 * Each is refused with a ValidationError naming its field, never silently turned into something else.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ValidationError } from "../../src/core/errors.js";
import { createRememberGraph } from "../../src/graph/remember-graph.js";
import { openRecallGraph, type RecallGraph } from "../../src/library/open-recallgraph.js";
import { NamespaceSchema, normalizeEntry, parseIsoTimestamp } from "../../src/memory/entry.js";

const NOW = Date.parse("2026-01-10T12:00:00Z");
/** Bob's namespace as other spellings of it: each must be a namespace error, never Bob's memories. */
const LOOKALIKES = [" bob", "bob ", "\tbob", "bob\n", "\u00a0bob", "bob\u2028"];
const WHITESPACE = "namespace must not begin or end with whitespace";

/** Asserts `call` rejects with a one-line ValidationError whose field and message are these. */
async function assertRefused(call: () => Promise<unknown>, field: string, message: RegExp | string, context = ""): Promise<void> {
  await assert.rejects(call, (error: unknown) => {
    assert.ok(error instanceof ValidationError, `${context}: expected a ValidationError, got ${String(error)}`);
    assert.equal(error.field, field, `${context}: ${error.message}`);
    if (typeof message === "string") assert.equal(error.message, `${field}: ${message}`, context);
    else assert.match(error.message, message, context);
    assert.ok(!error.message.includes("\n"), `${context}: one line, got ${error.message}`);
    return true;
  });
}

async function emptyMemory(): Promise<RecallGraph> {
  return openRecallGraph({ store: { kind: "sqlite", path: ":memory:" }, embedder: { provider: "hash", dimension: 128 }, model: null });
}

describe("a namespace is taken exactly as given", () => {
  let memory: RecallGraph;
  before(async () => {
    memory = await emptyMemory();
    await memory.remember("bob", [{ id: "b1", text: "Bob's locker code is 4512." }]);
  });
  after(() => memory.close());

  it("refuses surrounding whitespace and control characters instead of trimming them", () => {
    for (const namespace of LOOKALIKES) {
      const result = NamespaceSchema.safeParse(namespace);
      assert.equal(result.success, false, JSON.stringify(namespace));
      assert.equal(result.error?.issues[0]?.message, WHITESPACE, JSON.stringify(namespace));
    }
    for (const namespace of ["bo\u0000b", "bo\u001bb", "bo\u007fb", "bo\u0085b"]) {
      assert.equal(NamespaceSchema.safeParse(namespace).error?.issues[0]?.message, "namespace must not contain control characters", JSON.stringify(namespace));
    }
    for (const namespace of ["bo\u200bb", "bo\ufeffb", "bob\u200d", "bo\u202eb"]) {
      assert.match(NamespaceSchema.safeParse(namespace).error?.issues[0]?.message ?? "", /^namespace must not contain invisible format characters/, JSON.stringify(namespace));
    }
    for (const namespace of ["", "   "]) assert.equal(NamespaceSchema.safeParse(namespace).error?.issues[0]?.message, "namespace must not be empty");
    // Inner spaces, slashes and any script are fine: only the edges are ambiguous.
    for (const namespace of ["bob", "Bob Smith", "team/handbook", "团队"]) assert.equal(NamespaceSchema.parse(namespace), namespace);
  });

  it("refuses a look-alike of Bob's namespace on every library call, reading and writing nothing", async () => {
    for (const namespace of LOOKALIKES) {
      const context = JSON.stringify(namespace);
      await assertRefused(() => memory.remember(namespace, [{ text: "Mallory was here." }]), "namespace", WHITESPACE, `remember ${context}`);
      await assertRefused(() => memory.list(namespace), "namespace", WHITESPACE, `list ${context}`);
      await assertRefused(() => memory.get(namespace, ["b1"]), "namespace", WHITESPACE, `get ${context}`);
      await assertRefused(() => memory.forget(namespace, ["b1"]), "namespace", WHITESPACE, `forget ${context}`);
      await assertRefused(() => memory.prune(namespace), "namespace", WHITESPACE, `prune ${context}`);
      await assertRefused(() => memory.retrieve({ question: "locker code", namespace }), "request.namespace", WHITESPACE, `retrieve ${context}`);
      await assertRefused(() => memory.retrieve({ question: "locker code", namespace: ["bob", namespace] }), "request.namespace.1", WHITESPACE, `retrieve [${context}]`);
    }
    assert.deepEqual(Object.keys((await memory.store.stats()).namespaces), ["bob"], "no other namespace was written");
    assert.deepEqual((await memory.list("bob")).entries.map((entry) => entry.id), ["b1"], "Bob's memory is still there, alone");
  });

  it("refuses a look-alike in the store itself", async () => {
    await assertRefused(() => memory.store.list("bob ", { limit: 5 }), "namespace", WHITESPACE, "store.list");
    await assertRefused(() => memory.store.get("\tbob", ["b1"]), "namespace", WHITESPACE, "store.get");
    await assertRefused(() => memory.store.delete(" bob", ["b1"]), "namespace", WHITESPACE, "store.delete");
  });

  it("refuses a look-alike in the served graphs' input", async () => {
    await assertRefused(() => memory.graph.invoke({ question: "locker code", namespaces: ["bob "] }), "input.namespaces.0", WHITESPACE, "retrieval graph");
    const remember = createRememberGraph({ store: memory.store, embedder: memory.embedder });
    await assertRefused(() => remember.invoke({ namespace: " bob", memories: [{ text: "Mallory was here." }] }), "input.namespace", WHITESPACE, "write graph");
    assert.deepEqual((await memory.list("bob")).entries.map((entry) => entry.id), ["b1"]);
  });
});

describe("a date that does not exist is refused, not rolled over", () => {
  it("parses only days, times and offsets that exist", () => {
    const refused = [
      "2026-02-30", // Date.parse reads it as 2 March
      "2025-02-29", // not a leap year
      "1900-02-29", // divisible by 100, not by 400
      "2026-04-31",
      "2026-06-31T10:00Z",
      "2026-13-01",
      "2026-00-10",
      "2026-01-00",
      "2026-01-32",
      "2026-01-01T24:00", // ISO's end-of-day 24:00 is refused: it is the next day's 00:00
      "2026-01-01T24:00:00Z",
      "2026-01-01T10:60",
      "2026-01-01T10:00:60Z", // a leap second, which a Date cannot hold
      "2026-01-01T10:00+15:00",
      "2026-01-01T10:00-14:30",
      "2026-01-01T10:00+05:60",
      "2026-01-01T10:00+0575",
    ];
    for (const text of refused) assert.equal(parseIsoTimestamp(text), undefined, text);
    const accepted: Array<[string, string]> = [
      ["2024-02-29", "2024-02-29T00:00:00.000Z"],
      ["2000-02-29T12:00", "2000-02-29T12:00:00.000Z"],
      ["2026-04-30", "2026-04-30T00:00:00.000Z"],
      ["2026-12-31T23:59:59.999Z", "2026-12-31T23:59:59.999Z"],
      ["2026-01-01T10:00+14:00", "2025-12-31T20:00:00.000Z"],
      ["2026-01-01T10:00-12:00", "2026-01-01T22:00:00.000Z"],
      ["2026-01-01T10:00+0530", "2026-01-01T04:30:00.000Z"],
    ];
    for (const [text, iso] of accepted) assert.equal(parseIsoTimestamp(text), Date.parse(iso), text);
  });

  it("refuses an entry's timestamp or expiry on a day that does not exist, naming the field", () => {
    for (const timestamp of ["2026-02-30", "2025-02-29T10:00:00Z", "2026-04-31", "2026-13-01", "2026-01-01T24:00"]) {
      assert.throws(() => normalizeEntry("ns", { text: "x", timestamp }, { field: "entries.2", now: NOW }), {
        name: "ValidationError",
        field: "entries.2.timestamp",
        message: "entries.2.timestamp: timestamp must be an ISO 8601 date-time that exists",
      }, timestamp);
    }
    assert.throws(() => normalizeEntry("ns", { text: "x", expiresAt: "2027-02-29" }, { now: NOW }), { name: "ValidationError", field: "expiresAt" });
    assert.equal(normalizeEntry("ns", { text: "x", timestamp: "2024-02-29" }, { now: NOW }).timestamp, "2024-02-29T00:00:00.000Z");
    assert.equal(normalizeEntry("ns", { text: "x", expiresAt: "2028-02-29" }, { now: NOW }).expiresAt, "2028-02-29T00:00:00.000Z");
  });

  describe("through the library", () => {
    let memory: RecallGraph;
    before(async () => {
      memory = await emptyMemory();
      await memory.remember("ns", [{ id: "leap", text: "The leap day party.", timestamp: "2024-02-29T20:00:00Z" }]);
    });
    after(() => memory.close());

    it("writes nothing of a batch with an impossible date", async () => {
      await assertRefused(
        () => memory.remember("ns", [{ text: "fine", timestamp: "2026-01-05" }, { text: "impossible", timestamp: "2026-02-30" }]),
        "entries.1.timestamp",
        "timestamp must be an ISO 8601 date-time that exists",
      );
      assert.deepEqual((await memory.list("ns")).entries.map((entry) => entry.id), ["leap"]);
    });

    it("refuses a caller filter's since or until on a day that does not exist", async () => {
      const question = "When was the party?";
      await assertRefused(() => memory.retrieve({ question, namespace: "ns", filter: { since: "2026-02-30" } }), "request.filter.since", /since must be an ISO 8601/);
      await assertRefused(() => memory.retrieve({ question, namespace: "ns", filter: { until: "2025-02-29" } }), "request.filter.until", /until must be an ISO 8601/);
      await assertRefused(() => memory.list("ns", { filter: { since: "2026-04-31" } }), "options.filter.since", /since must be an ISO 8601/);
      const leapDay = await memory.list("ns", { filter: { since: "2024-02-29", until: "2024-03-01" } });
      assert.deepEqual(leapDay.entries.map((entry) => entry.id), ["leap"]);
    });

    it("refuses a reference time with an offset beyond ±14:00", async () => {
      await assertRefused(() => memory.retrieve({ question: "the party", namespace: "ns", now: "2026-01-01T10:00:00+15:00" }), "request.now", /offset of at most ±14:00/);
      const output = await memory.retrieve({ question: "the party", namespace: "ns", now: "2026-01-01T10:00:00+14:00" });
      assert.equal(output.results[0]?.id, "leap");
    });
  });
});

describe("a bad retrieval configuration", () => {
  /** The three ways a configuration goes wrong, and the field each error must name. */
  const BAD: Array<[Record<string, unknown>, string]> = [
    [{ finalK: 0 }, "configurable.finalK"],
    [{ views: ["nope"] }, "configurable.views.0"],
    [{ viewWeights: { semantic: "x" } }, "configurable.viewWeights.semantic"],
  ];
  const request = { question: "What is Bob's locker code?", namespace: "bob" };
  let memory: RecallGraph;
  before(async () => {
    memory = await emptyMemory();
    await memory.remember("bob", [{ id: "b1", text: "Bob's locker code is 4512." }]);
  });
  after(() => memory.close());

  it("is a one-line ValidationError naming the field from openRecallGraph's retrieve", async () => {
    for (const [configurable, field] of BAD) {
      await assertRefused(() => memory.retrieve(request, configurable), field, new RegExp(`^${field.replaceAll(".", "\\.")}: \\S`), JSON.stringify(configurable));
    }
  });

  it("is refused by the graph's invoke too, in configurable or in context, naming the field", async () => {
    for (const [configurable, field] of BAD) {
      const input = { question: request.question, namespaces: ["bob"] };
      await assertRefused(() => memory.graph.invoke(input, { configurable }), field, /^configurable\./, JSON.stringify(configurable));
      await assertRefused(() => memory.graph.invoke(input, { context: configurable as never }), field, /^configurable\./, JSON.stringify(configurable));
    }
  });
});
