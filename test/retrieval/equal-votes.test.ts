import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Provenance } from "../../src/domain/hits.js";
import type { RetrievalResult } from "../../src/domain/results.js";
import type { RecallGraph } from "../../src/library/open-recallgraph.js";
import { equalVote, withEqualVotesAfter } from "../../src/retrieval/fusion.js";
import { chatMemory } from "../support/graph-fixture.js";

const ranked = (ranks: Array<[Provenance["ranks"][number]["view"], number, number]>): Provenance => ({
  views: [...new Set(ranks.map(([view]) => view))],
  subQueries: ["q"],
  ranks: ranks.map(([view, round, rank]) => ({ view, query: "q", round, rank, score: 1 })),
  fusedScore: 0,
});

describe("equal votes", () => {
  it("sums each view's best rank of each round, whatever the views' weights", () => {
    const provenance = ranked([
      ["semantic", 0, 3],
      ["semantic", 0, 1],
      ["lexical", 0, 7],
      ["lexical", 1, 2],
    ]);
    assert.equal(equalVote(provenance, 20), 1 / 21 + 1 / 27 + 1 / 22);
    assert.equal(equalVote(ranked([]), 20), 0, "a hit no list ranked has no vote");
  });

  it("keeps the first places as they stand and orders the rest by equal votes, ties in their order", () => {
    const hit = (key: string, ranks: Array<[Provenance["ranks"][number]["view"], number, number]>) => ({ key, provenance: ranked(ranks) });
    const hits = [
      hit("head-deep", [["semantic", 0, 30]]),
      hit("head-top", [["semantic", 0, 1]]),
      hit("dense-deep", [["semantic", 0, 24]]),
      hit("tie-a", [["lexical", 0, 9]]),
      hit("bm25-first", [["lexical", 0, 1]]),
      hit("tie-b", [["semantic", 0, 9]]),
    ];
    assert.deepEqual(
      withEqualVotesAfter(hits, 2, 20).map(({ key }) => key),
      ["head-deep", "head-top", "bm25-first", "tie-a", "tie-b", "dense-deep"],
    );
    assert.deepEqual(withEqualVotesAfter(hits, 6, 20), hits, "nothing after the weighted places: the order stands");
  });
});

describe("the answer's places after the weighted ones", () => {
  // A chat where the views disagree: BM25 weighs the rare words, the hashing embedder counts every word.
  const topics = ["garden", "tomatoes", "bike", "rain", "market", "soup", "train", "library"];
  const lines = Array.from({ length: 40 }, (_, i) => ({
    id: `t${i}`,
    text: `${["Ana", "Ben"][i % 2]} said the ${topics[i % topics.length]} and the ${topics[(i * 3 + 1) % topics.length]} were ${["fine", "late", "wet", "cheap", "good"][i % 5]} on day ${i}.`,
    speaker: ["Ana", "Ben"][i % 2],
    timestamp: new Date(Date.UTC(2026, 9, 1, 9, i * 7)).toISOString(),
  }));
  let memory: RecallGraph;
  before(async () => {
    memory = await chatMemory(lines);
  });
  after(() => memory.close());

  const ask = (settings: object) =>
    memory.retrieve({ question: "Were the tomatoes in the garden good when it was wet at the market?", namespace: "chat" }, { finalK: 25, ...settings }).then((output) => output.results);
  const ids = (results: RetrievalResult[]) => results.map((result) => result.id);

  it("orders every place after the tenth by the lists' equal votes, and keeps the first ten of the weighted order", async () => {
    const equalAfterTen = await ask({});
    const weighted = await ask({ weightedPlaces: null });
    assert.equal(equalAfterTen.length, 25);
    assert.deepEqual(ids(equalAfterTen).slice(0, 10), ids(weighted).slice(0, 10));
    const votes = equalAfterTen.slice(10).map((result) => equalVote(result.provenance, 20));
    assert.deepEqual(votes, [...votes].sort((a, b) => b - a), "the places after the tenth fall by equal vote");
    const weightedVotes = weighted.slice(10).map((result) => equalVote(result.provenance, 20));
    assert.notDeepEqual(weightedVotes, [...weightedVotes].sort((a, b) => b - a), "the weighted order is another order there");
  });

  it("leaves a union's first-seen order as it is: it has no votes to weigh", async () => {
    assert.deepEqual(ids(await ask({ preset: "union", weightedPlaces: 10 })), ids(await ask({ preset: "union", weightedPlaces: null })));
  });
});
