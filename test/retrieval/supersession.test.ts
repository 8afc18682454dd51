import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { hitKey, type AnswerHit } from "../../src/domain/hits.js";
import { normalizeEntry, type MemoryEntry } from "../../src/memory/entry.js";
import { asksAboutChange, noLinks, replacementOf, supersessionOrder, type SupersessionLinks } from "../../src/retrieval/supersession.js";

const NOW = Date.parse("2026-01-01T00:00:00Z");
const entry = (id: string, at: number, supersedes?: string[]): MemoryEntry =>
  normalizeEntry("ns", { id, text: id, timestamp: NOW + at, ...(supersedes ? { supersedes } : {}) }, { now: NOW });
const answer = (memory: MemoryEntry, rank: number): AnswerHit => ({
  entry: memory,
  hit: { key: hitKey("ns", memory.id), score: 1 / rank, provenance: { views: ["semantic"], subQueries: [], ranks: [], fusedScore: 1 / rank } },
});
/** Links as the store would answer them: each entry's superseders, newest first. */
function linksOf(entries: readonly MemoryEntry[]): SupersessionLinks {
  const links = noLinks();
  for (const superseder of [...entries].sort((a, b) => b.timestampMs - a.timestampMs)) {
    for (const id of superseder.supersedes ?? []) links.supersededBy.set(hitKey("ns", id), [...(links.supersededBy.get(hitKey("ns", id)) ?? []), superseder]);
  }
  return links;
}
const order = (hits: readonly AnswerHit[]) => hits.map(({ entry: e }) => e.id);

describe("the present-first order", () => {
  it("follows a chain to the current memory and puts it in the place of the first hit it replaces, that hit right after it", () => {
    const [a, b, c, x] = [entry("a", 1), entry("b", 2, ["a"]), entry("c", 3, ["b"]), entry("x", 0)];
    const hits = [answer(a, 1), answer(x, 2), answer(b, 3), answer(c, 4)];
    const links = linksOf([a, b, c, x]);
    assert.equal(replacementOf(a, links)?.id, "c");
    // b, already after its replacement, stays where fusion put it; x keeps its order with the others.
    assert.deepEqual(order(supersessionOrder(hits, links, new Map(), false)), ["c", "a", "x", "b"]);
    assert.deepEqual(order(supersessionOrder(hits, links, new Map(), true)), ["a", "x", "b", "c"], "a question about change keeps the fused order");
  });

  it("leaves a cycle of supersessions in fused order: none of it is current", () => {
    const [a, b] = [entry("a", 1, ["b"]), entry("b", 2, ["a"])];
    const links = linksOf([a, b]);
    assert.equal(replacementOf(a, links), undefined);
    assert.deepEqual(order(supersessionOrder([answer(b, 1), answer(a, 2)], links, new Map(), false)), ["b", "a"]);
  });

  it("brings in only a replacement the answer's checks admitted", () => {
    const [old, current] = [entry("old", 1), entry("new", 2, ["old"])];
    const links = linksOf([old, current]);
    assert.deepEqual(order(supersessionOrder([answer(old, 1)], links, new Map(), false)), ["old"]);
    const admitted = new Map([[hitKey("ns", "new"), answer(current, 9)]]);
    assert.deepEqual(order(supersessionOrder([answer(old, 1)], links, admitted, false)), ["new", "old"]);
  });

  it("tells questions about change from questions about the present", () => {
    for (const question of ["Where did Dana live before Malmö?", "When was the deadline moved?", "What did Dana drive previously?", "Which city did Dana live in before?", "她以前住在哪里？"]) assert.ok(asksAboutChange(question), question);
    for (const question of ["Where does Dana live?", "What is the deadline for the first sprint?", "What tool do I use to deploy?"]) assert.ok(!asksAboutChange(question), question);
  });
});
