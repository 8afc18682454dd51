import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { hitKey } from "../../src/domain/hits.js";
import { withContextVotes, type SaidTurns } from "../../src/retrieval/context-votes.js";

const key = (id: string, namespace = "chat") => hitKey(namespace, id);
const options = { weight: 0.5, rrfK: 20 };

describe("withContextVotes", () => {
  // A question and the reply said right after it; the others stand alone, each in an exchange of its own.
  const said: Record<string, SaidTurns> = {
    [key("a")]: { turnIds: ["t1"], contextTurnIds: ["t0", "t2"] },
    [key("b")]: { turnIds: ["t10"], contextTurnIds: [] },
    [key("c")]: { turnIds: ["t20"], contextTurnIds: ["t21"] },
    [key("reply")]: { turnIds: ["t21"], contextTurnIds: ["t20"] },
    [key("d")]: { turnIds: ["t30"], contextTurnIds: ["t29"] },
  };
  const turnsOf = (k: string) => said[k];

  it("lifts a hit whose neighbour in the conversation also ranks, over hits that rank alone", () => {
    const order = withContextVotes([key("a"), key("b"), key("c"), key("d"), key("reply")], turnsOf, { ...options, weight: 0.1 });
    // c (rank 3) gains a tenth of reply's vote (rank 5) and passes b (rank 2), not a; reply gains c's and passes d.
    assert.deepEqual(order, [key("a"), key("c"), key("b"), key("reply"), key("d")]);
  });

  it("reads one exchange from either side: a turn named around the other, or one turn built into both", () => {
    const oneWay: Record<string, SaidTurns> = { [key("x")]: { turnIds: ["t40"], contextTurnIds: [] }, [key("y")]: { turnIds: ["t41"], contextTurnIds: ["t40"] } };
    const ranking = [key("b"), key("a"), key("x"), key("y")];
    const all = (k: string) => oneWay[k] ?? said[k];
    assert.deepEqual(withContextVotes(ranking, all, { ...options, weight: 1 }).slice(0, 2), [key("x"), key("y")]);
    const shared: Record<string, SaidTurns> = { [key("x")]: { turnIds: ["t50"], contextTurnIds: [] }, [key("y")]: { turnIds: ["t50", "t51"], contextTurnIds: [] } };
    assert.deepEqual(withContextVotes(ranking, (k) => shared[k] ?? said[k], { ...options, weight: 1 }).slice(0, 2), [key("x"), key("y")]);
  });

  it("leaves the ranking as it is with no weight, no turns, or no neighbours", () => {
    const ranking = [key("d"), key("reply"), key("a"), key("c")];
    assert.deepEqual(withContextVotes(ranking, turnsOf, { ...options, weight: 0 }), ranking);
    assert.deepEqual(withContextVotes(ranking, () => undefined, options), ranking);
    assert.deepEqual(withContextVotes([key("a"), key("b"), key("d")], turnsOf, options), [key("a"), key("b"), key("d")]);
  });

  it("never makes neighbours of two namespaces' memories, whatever their turns", () => {
    const ranking = [key("a"), key("b"), key("c"), key("reply", "other")];
    const elsewhere = (k: string) => (k === key("reply", "other") ? { turnIds: ["t21"], contextTurnIds: ["t20"] } : said[k]);
    assert.deepEqual(withContextVotes(ranking, elsewhere, options), ranking);
  });
});
