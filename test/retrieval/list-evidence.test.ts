import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ViewHitList } from "../../src/domain/hits.js";
import { votesByScore } from "../../src/nodes/merge.js";
import { fuseRankedLists } from "../../src/retrieval/fusion.js";
import { LENGTH_DEPTH, overLongTexts, SEPARATION_DEPTH, separationEvidence, topSeparation, yieldingEvidence } from "../../src/retrieval/list-evidence.js";
import { lexicalView } from "../../src/nodes/lexical.js";
import { EMBEDDER_PROFILES } from "../../src/text/embedders/profiles.js";
import { SeparationRampSchema } from "../../src/text/embedders/profiles.js";

const ramp = { from: 3, to: 5 };
/** 25 scores falling evenly (the first like the rest), and the same list with a first score far above it. */
const flat = Array.from({ length: 25 }, (_, i) => 0.8 - i * 0.004);
const separated = [0.95, ...flat.slice(1)];

/** A ranked list of one view, its hits scored in order. */
const list = (view: ViewHitList["view"], keys: string[], scores: number[]): ViewHitList => ({
  view,
  query: "q",
  namespace: "ns",
  round: 0,
  hits: keys.map((key, i) => ({ key, score: scores[i] ?? 0 })),
});
const keys = Array.from({ length: 25 }, (_, i) => `d${i}`);

describe("list evidence: how far a list's first score stands out", () => {
  it("is the z-score of the first score against the next ones", () => {
    assert.equal(topSeparation([3, 1, 2, 1, 2]), (3 - 1.5) / 0.5);
    assert.equal(topSeparation([1, 1]), undefined, "one score to compare with is not a distribution");
    assert.equal(topSeparation([0.9, 0.5, 0.5, 0.5]), undefined, "no spread among the rest");
  });

  it("reads only the first SEPARATION_DEPTH scores, so a deeper list reads the same", () => {
    const deeper = [...separated, ...Array.from({ length: 75 }, () => 0.1)];
    assert.equal(topSeparation(deeper), topSeparation(separated.slice(0, SEPARATION_DEPTH)));
  });

  it("gives no vote to a flat list, the full vote to a separated one, and grows linearly between", () => {
    const flatZ = topSeparation(flat) ?? Infinity;
    const separatedZ = topSeparation(separated) ?? -Infinity;
    assert.ok(flatZ < ramp.from && separatedZ > ramp.to, `flat ${flatZ}, separated ${separatedZ}`);
    assert.equal(separationEvidence(flat, ramp), 0);
    assert.equal(separationEvidence(separated, ramp), 1);
    // z = 4 exactly: (3 - 1.5) / 0.5 = 3 for [3,1,2,1,2]; lift the first to 3.5 for z = 4.
    assert.equal(separationEvidence([3.5, 1, 2, 1, 2], ramp), 0.5);
    assert.equal(separationEvidence([0.9, 0.8], ramp), 1, "too short to judge: thresholds already did");
  });

  it("always gives the full vote when from = to = 0", () => {
    assert.equal(separationEvidence(flat, { from: 0, to: 0 }), 1);
  });

  it("refuses a ramp that ends before it starts", () => {
    assert.throws(() => SeparationRampSchema.parse({ from: 5, to: 3 }));
  });
});

describe("fusion with list evidence", () => {
  const lexical = list("lexical", ["d1", "d0", ...keys.slice(2)], Array.from({ length: 25 }, (_, i) => 20 - i * 0.5));
  const weights = { semantic: 1, lexical: 1, symbolic: 1 };
  const evidence = (item: ViewHitList) => (item.view === "semantic" ? separationEvidence(item.hits.map((hit) => hit.score), ramp) : 1);

  it("lets a dense list whose first hit stands out reorder BM25's top", () => {
    const fused = fuseRankedLists([lexical, list("semantic", keys, separated)], { method: "rrf", rrfK: 20, weights, evidence });
    assert.equal(fused[0]?.key, "d0");
  });

  it("keeps BM25's order when the dense list's first hit scores like the rest", () => {
    const fused = fuseRankedLists([lexical, list("semantic", keys, flat)], { method: "rrf", rrfK: 20, weights, evidence });
    assert.equal(fused[0]?.key, "d1");
    const unweighed = fuseRankedLists([lexical, list("semantic", keys, flat)], { method: "rrf", rrfK: 20, weights });
    assert.equal(unweighed[0]?.key, "d0", "without evidence the same flat list decides");
  });
});

describe("a flat BM25 list yields part of its vote", () => {
  // BM25 matched the question's words alike in 25 memories; the dense view puts its fifth first and its first last.
  const lexical = list("lexical", keys, flat.map((score) => score * 10));
  const semantic = list("semantic", [...keys.slice(4), "d1", "d2", "d3", "d0"], flat);
  const weights = { semantic: 0.25, lexical: 1, symbolic: 0.3 };

  it("keeps `kept` of the vote when flat, all of it when the first score stands out, linearly between", () => {
    assert.equal(yieldingEvidence(flat, ramp, 0.5), 0.5);
    assert.equal(yieldingEvidence(separated, ramp, 0.5), 1);
    assert.equal(yieldingEvidence([3.5, 1, 2, 1, 2], ramp, 0.5), 0.75, "z = 4, halfway up the ramp 3..5");
    assert.equal(yieldingEvidence(flat, ramp, 1), 1, "kept 1 never yields");
  });

  it("lets a retrieval-trained embedder's dense list decide between memories BM25 scores alike; a weak embedder's does not", () => {
    const settledWith = (profile: (typeof EMBEDDER_PROFILES)[keyof typeof EMBEDDER_PROFILES]) =>
      lexicalView.settle?.(1, { lexicalTopK: 25, lexicalMinRelative: 0, lexicalVoteMinRelative: 0, lexicalYield: "embedder" }, profile).own;
    const fuse = (own: ReturnType<typeof settledWith>) =>
      fuseRankedLists([lexical, semantic], {
        method: "rrf",
        rrfK: 20,
        weights,
        evidence: (item) => (item.view === "lexical" && own ? (lexicalView.evidence?.(item, own) ?? 1) : 1),
      });
    const minilm = settledWith(EMBEDDER_PROFILES.onnx);
    const useLite = settledWith(EMBEDDER_PROFILES["use-lite"]);
    assert.deepEqual(useLite?.lexicalYield, { ramp: { from: 0, to: 0 }, kept: 1 }, "no yield for the weak offline embedder");
    assert.equal(fuse(minilm)[0]?.key, "d4", "the dense view's first comes first");
    assert.equal(fuse(useLite)[0]?.key, "d0", "BM25's order stands");
    const configured = lexicalView.settle?.(1, { lexicalTopK: 25, lexicalMinRelative: 0, lexicalVoteMinRelative: 0, lexicalYield: { ramp: { from: 0, to: 0 }, kept: 1 } }, EMBEDDER_PROFILES.onnx).own;
    assert.equal(fuse(configured)[0]?.key, "d0", "a configured yield wins over the profile's");
  });
});

describe("list evidence: texts longer than the embedder represents", () => {
  const words = (count: number) => Array.from({ length: count }, (_, i) => `w${i}`).join(" ");

  it("holds when most of the first LENGTH_DEPTH hits are longer than the limit", () => {
    assert.equal(overLongTexts([words(12), words(30)], 100), false, "short texts");
    assert.equal(overLongTexts([words(150), words(220)], 100), true, "a list of abstracts");
    assert.equal(overLongTexts([words(150), words(20), words(101)], 100), true);
    assert.equal(overLongTexts([words(150), words(20), words(90), words(101)], 100), false, "half is not most");
    assert.equal(overLongTexts([words(100)], 100), false, "the limit itself is represented");
    const deeper = [...Array.from({ length: LENGTH_DEPTH }, () => words(10)), ...Array.from({ length: 20 }, () => words(500))];
    assert.equal(overLongTexts(deeper, 100), false, "only the first hits count");
  });

  it("counts a hit whose text is unknown as short, and an empty list as short", () => {
    assert.equal(overLongTexts([undefined, words(300), words(300)], 100), true);
    assert.equal(overLongTexts([undefined, undefined, words(300)], 100), false);
    assert.equal(overLongTexts([], 100), false);
  });

  it("makes the semantic and lexical lists over long texts vote by score, never a symbolic list, and none when no limit is known", () => {
    const texts: Record<string, string> = { long1: words(200), long2: words(300), short1: words(12), short2: words(20) };
    const of = (view: ViewHitList["view"], keys: string[]): ViewHitList => ({ view, query: "q", namespace: "ns", round: 0, hits: keys.map((key) => ({ key, score: 1 })) });
    const byScore = votesByScore(100, (key) => texts[key]);
    assert.equal(byScore(of("lexical", ["long1", "long2"])), true);
    assert.equal(byScore(of("semantic", ["long1", "long2", "short1"])), true);
    assert.equal(byScore(of("symbolic", ["long1", "long2"])), false);
    assert.equal(byScore(of("lexical", ["short1", "short2", "long1"])), false);
    assert.equal(votesByScore(undefined, (key) => texts[key])(of("lexical", ["long1", "long2"])), false);
  });
});
