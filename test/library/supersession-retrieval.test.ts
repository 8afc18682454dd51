/**
 * Retrieval with memories that change, through the library's retrieve: the present first, the past on
 * request, as things stood at a time, and every hit saying how it stands. Each question is also asked
 * of a namespace holding the same memories without any supersession, whose order is the fused one.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { RetrievalResult } from "../../src/domain/results.js";
import { RecallGraphRetriever } from "../../src/integrations/retriever.js";
import { openRecallGraph, type RecallGraph } from "../../src/library/open-recallgraph.js";
import type { MemoryInput } from "../../src/memory/entry.js";

const NOW = "2026-05-01T12:00:00Z";

const MEMORIES: ReadonlyArray<MemoryInput & { id: string }> = [
  { id: "home-1", text: "Dana lives in Lund, in a flat near the station.", timestamp: "2025-01-10T09:00:00Z", persons: ["Dana"], location: "Lund" },
  { id: "home-2", text: "Dana moved to Malmö and lives by the harbour now.", timestamp: "2025-06-01T09:00:00Z", persons: ["Dana"], location: "Malmö", supersedes: ["home-1"] },
  { id: "eli", text: "Eli lives in Oslo and walks to work.", timestamp: "2025-02-01T09:00:00Z", persons: ["Eli"] },
  { id: "cat", text: "Dana has a grey cat called Pixel who lives indoors.", timestamp: "2025-03-01T09:00:00Z", persons: ["Dana"] },
  // "flat" gives it a BM25 vote for "Where is Dana's flat?": "Dana", in four of five memories, gives none.
  { id: "visa", text: "Dana has a work visa for Sweden and a flat contract to sign.", timestamp: "2025-01-05T09:00:00Z", persons: ["Dana"], validUntil: "2025-12-31" },
];

/** A namespace of its own: the questions about Dana would find these at their tail, and their order is not what those tests ask. */
const SPRINTS: ReadonlyArray<MemoryInput & { id: string }> = [
  { id: "sprint-1", text: "The deadline for the first sprint is April 1.", timestamp: "2026-03-01T09:00:00Z" },
  { id: "sprint-2", text: "The first sprint now ends on April 5; the team asked for more time.", timestamp: "2026-03-10T09:00:00Z", supersedes: ["sprint-1"] },
  { id: "review", text: "The sprint review is held on Fridays.", timestamp: "2026-02-01T09:00:00Z" },
];

/** The same memories, no supersession: what fusion alone ranks. */
const withoutSupersessions = (memories: typeof MEMORIES) => memories.map(({ supersedes: _supersedes, ...memory }) => memory);
const PLAIN = withoutSupersessions(MEMORIES);

const ids = (results: readonly RetrievalResult[]): string[] => results.map((result) => result.id);
const byId = (results: readonly RetrievalResult[], id: string): RetrievalResult | undefined => results.find((result) => result.id === id);

describe("retrieving memories that change", () => {
  let memory: RecallGraph;
  const ask = (namespace: string, question: string, extra: { asOf?: string; configurable?: Record<string, number> } = {}) =>
    memory
      .retrieve({ question, namespace, ...(extra.asOf ? { asOf: extra.asOf } : { now: NOW }) }, { finalK: 8, ...extra.configurable })
      .then((output) => output.results);

  before(async () => {
    memory = await openRecallGraph({ store: { kind: "sqlite", path: ":memory:" }, embedder: { provider: "hash", dimension: 256 }, model: null });
    await memory.remember("team", [...MEMORIES]);
    await memory.remember("plain", [...PLAIN], { linkChanges: false });
    await memory.remember("sprints", [...SPRINTS]);
    await memory.remember("sprints-plain", withoutSupersessions(SPRINTS), { linkChanges: false });
    // Another namespace naming the same ids: it must change nothing in "team".
    await memory.remember("rivals", [{ id: "home-9", text: "Dana lives in Rome.", timestamp: "2025-09-01T09:00:00Z", supersedes: ["home-2", "eli", "sprint-2"] }]);
  });
  after(() => memory.close());

  it("puts the current memory in the place of what it superseded, that right after it, and the others in fused order", async () => {
    const changed = await ask("team", "Where is Dana's flat?");
    const fused = await ask("plain", "Where is Dana's flat?");
    assert.deepEqual(ids(fused).slice(0, 3), ["home-1", "visa", "home-2"], "fusion alone ranks the old home first, an unrelated memory between");
    assert.deepEqual(ids(changed), ["home-2", "home-1", "visa", ...ids(fused).slice(3)]);
    // Already after its replacement, a superseded memory stays where fusion put it.
    assert.deepEqual(ids(await ask("team", "Where does Dana live?")), ids(await ask("plain", "Where does Dana live?")));
  });

  it("says in each hit's provenance what supersedes it and what it supersedes, within its namespace alone", async () => {
    const results = await ask("team", "Where does Dana live?");
    const [old, current, eli] = [byId(results, "home-1"), byId(results, "home-2"), byId(results, "eli")];
    assert.deepEqual([old?.provenance.supersededBy, old?.provenance.history, old?.provenance.supersedes], [["home-2"], "superseded", undefined]);
    assert.deepEqual([current?.provenance.supersedes, current?.provenance.supersededBy, current?.provenance.history], [["home-1"], undefined, undefined]);
    assert.ok(eli, "eli is among the results");
    assert.deepEqual([eli.provenance.supersededBy, eli.provenance.history], [undefined, undefined], "a rival namespace's memory supersedes nothing here");
    for (const result of results) assert.equal(result.namespace, "team");
  });

  it("brings in the replacement of a superseded memory no view found, right before it, and says why it is there", async () => {
    const narrow = { semanticTopK: 1, lexicalTopK: 1, symbolicTopK: 1 };
    const fused = await ask("sprints-plain", "What is the deadline for the first sprint?", { configurable: narrow });
    assert.deepEqual(ids(fused), ["sprint-1"], "each view finds one memory: the old deadline");
    const results = await ask("sprints", "What is the deadline for the first sprint?", { configurable: narrow });
    assert.deepEqual(ids(results), ["sprint-2", "sprint-1"]);
    const [current, old] = results;
    assert.deepEqual([current?.provenance.broughtInFor, current?.provenance.views, current?.provenance.supersedes], ["sprint-1", [], ["sprint-1"]]);
    assert.equal(current?.score, old?.score);
    assert.deepEqual([old?.provenance.supersededBy, old?.provenance.broughtInFor], [["sprint-2"], undefined]);
  });

  it("keeps the fused order for a question about change, with both memories in it", async () => {
    const question = "Where did Dana live before she moved?";
    assert.deepEqual(ids(await ask("team", question)), ids(await ask("plain", question)));
    const results = await ask("team", question);
    assert.deepEqual(byId(results, "home-1")?.provenance.supersededBy, ["home-2"]);
  });

  it("as of a time: memories said later are left out, and what was current then is current", async () => {
    const before = await ask("team", "Where does Dana live?", { asOf: "2025-03-01T00:00:00Z" });
    assert.ok(ids(before).includes("home-1") && !ids(before).includes("home-2"), ids(before).join(","));
    assert.ok(before.every((result) => Date.parse(result.timestamp) <= Date.parse("2025-03-01T00:00:00Z")));
    assert.deepEqual([byId(before, "home-1")?.provenance.supersededBy, byId(before, "home-1")?.provenance.history], [undefined, undefined]);
    const after = await ask("team", "Where does Dana live?", { asOf: "2025-06-01T09:00:00Z" });
    assert.equal(ids(after).indexOf("home-1"), ids(after).indexOf("home-2") + 1, "said at the asOf instant, the move counts");
  });

  it("answers through the LangChain retriever as of a time, its documents saying how each memory stands", async () => {
    const now = new RecallGraphRetriever({ graph: memory.graph, namespace: "team", now: () => new Date(NOW) });
    const today = await now.invoke("Where does Dana live?");
    const old = today.find((document) => document.id === "home-1");
    assert.deepEqual([old?.metadata.supersededBy, old?.metadata.history], [["home-2"], "superseded"]);
    assert.deepEqual(today.find((document) => document.id === "home-2")?.metadata.supersedes, ["home-1"]);
    assert.ok(today.filter((document) => document.id !== "home-1").every((document) => document.metadata.supersededBy === undefined));
    const then = await new RecallGraphRetriever({ graph: memory.graph, namespace: "team", asOf: "2025-03-01T00:00:00Z" }).invoke("Where does Dana live?");
    assert.ok(then.some((document) => document.id === "home-1") && !then.some((document) => document.id === "home-2"), then.map((document) => document.id).join(","));
    assert.equal(then.find((document) => document.id === "home-1")?.metadata.history, undefined);
  });

  it("marks a memory whose validity ended as history at the time asked, and leaves it where fusion put it", async () => {
    const then = await ask("team", "Does Dana have a visa?", { asOf: "2025-06-01T00:00:00Z" });
    assert.equal(byId(then, "visa")?.provenance.history, undefined);
    const later = await ask("team", "Does Dana have a visa?");
    assert.equal(byId(later, "visa")?.provenance.history, "validity ended");
    const fused = await ask("plain", "Does Dana have a visa?");
    assert.equal(ids(later).indexOf("visa"), ids(fused).indexOf("visa"));
  });

  it("keeps a superseded memory until it is forgotten, and forgetting the replacement makes the old one current again", async () => {
    await memory.remember("scratch", [MEMORIES[0]!, MEMORIES[1]!]);
    assert.equal((await memory.get("scratch", ["home-1"])).length, 1);
    await memory.forget("scratch", ["home-2"]);
    const results = await ask("scratch", "Where does Dana live?");
    assert.deepEqual(ids(results), ["home-1"]);
    assert.equal(results[0]?.provenance.supersededBy, undefined);
  });
});
