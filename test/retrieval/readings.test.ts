import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { FusedHit } from "../../src/domain/hits.js";
import { takeTurns } from "../../src/retrieval/readings.js";

const hit = (key: string, score: number): FusedHit => ({ key, score, provenance: { views: ["lexical"], subQueries: [], ranks: [], fusedScore: score } });
const keys = (hits: readonly FusedHit[]) => hits.map((h) => h.key);

describe("takeTurns", () => {
  const final = [hit("a", 5), hit("b", 4), hit("c", 3), hit("d", 2), hit("e", 1)];

  it("alternates the two rankings, the first one first, each giving its best hit not given yet", () => {
    assert.deepEqual(keys(takeTurns(final, ["d", "a", "e", "b", "c"])), ["a", "d", "b", "e", "c"]);
  });

  it("gives a hit both rank high once, and every prefix holds the best of both", () => {
    const merged = takeTurns(final, ["a", "b", "e"]);
    assert.deepEqual(keys(merged), ["a", "b", "c", "e", "d"]);
    assert.equal(new Set(keys(merged)).size, merged.length);
  });

  it("keeps the first ranking's hits, scores and provenance, and ignores keys it does not hold", () => {
    const merged = takeTurns(final, ["x", "e", "y"]);
    assert.deepEqual(keys(merged), ["a", "e", "b", "c", "d"]);
    assert.equal(merged[1], final[4]);
  });

  it("gives the second ranking one place in every `every`", () => {
    assert.deepEqual(keys(takeTurns(final, ["e", "d", "c"], 3)), ["a", "b", "e", "c", "d"]);
    assert.deepEqual(keys(takeTurns(final, ["d", "a", "e", "b", "c"], 2)), ["a", "d", "b", "e", "c"]);
  });

  it("is the first ranking when the second is empty or the same", () => {
    assert.deepEqual(keys(takeTurns(final, [])), keys(final));
    assert.deepEqual(keys(takeTurns(final, keys(final))), keys(final));
    assert.deepEqual(takeTurns([], ["a"]), []);
  });
});
