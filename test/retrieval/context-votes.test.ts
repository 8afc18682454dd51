import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { hitKey } from "../../src/domain/hits.js";
import { withContextVotes } from "../../src/retrieval/context-votes.js";

const key = (id: string, namespace = "chat") => hitKey(namespace, id);
const options = { weight: 0.5, windowMs: 2000, rrfK: 20 };

describe("withContextVotes", () => {
  // A question and its reply were said a second apart; the others stand alone, minutes away.
  const times: Record<string, number> = { [key("a")]: 0, [key("b")]: 60_000, [key("c")]: 120_000, [key("reply")]: 121_000, [key("d")]: 300_000 };
  const timeOf = (k: string) => times[k];

  it("lifts a hit whose neighbour in the conversation also ranks, over hits that rank alone", () => {
    const order = withContextVotes([key("a"), key("b"), key("c"), key("d"), key("reply")], timeOf, { ...options, weight: 0.1 });
    // c (rank 3) gains a tenth of reply's vote (rank 5) and passes b (rank 2), not a; reply gains c's and passes d.
    assert.deepEqual(order, [key("a"), key("c"), key("b"), key("reply"), key("d")]);
  });

  it("leaves the ranking as it is with no weight, no times, or no neighbours", () => {
    const ranking = [key("d"), key("reply"), key("a"), key("c")];
    assert.deepEqual(withContextVotes(ranking, timeOf, { ...options, weight: 0 }), ranking);
    assert.deepEqual(withContextVotes(ranking, () => undefined, options), ranking);
    assert.deepEqual(withContextVotes([key("a"), key("b"), key("d")], timeOf, options), [key("a"), key("b"), key("d")]);
  });

  it("keeps the order when every hit neighbours every other (documents written at one moment)", () => {
    const ranking = ["p", "q", "r", "s"].map((id) => key(id));
    assert.deepEqual(withContextVotes(ranking, () => 0, options), ranking);
  });

  it("never makes neighbours of two namespaces' memories, whatever their times", () => {
    const ranking = [key("a"), key("b"), key("c"), key("x", "other")];
    const sameMoment = (k: string) => (k === key("c") || k === key("x", "other") ? 999_999 : times[k]);
    assert.deepEqual(withContextVotes(ranking, sameMoment, options), ranking);
  });
});
