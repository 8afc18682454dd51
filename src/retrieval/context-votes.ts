import { splitHitKey } from "../domain/hits.js";

/** How much a ranking's hits lend the memories said around them. */
export interface ContextVoteOptions {
  /** Share of a neighbour's vote a hit gains (0: the ranking stands). */
  weight: number;
  /** Two memories of one namespace at most this far apart in time are neighbours (one exchange). */
  windowMs: number;
  /** The RRF constant the votes are counted with, so they weigh as the fused ranks do. */
  rrfK: number;
}

/**
 * A ranking reordered by a conversation's context, ranks only: a hit's vote is 1 / (k + rank), and it
 * gains `weight` times the vote of every other hit said within `windowMs` of it. An answer is often
 * spread over an exchange (a question and its reply, a photo and what it shows, what one speaker said
 * and the other's answer), so a hit whose neighbours also rank rises over one that ranks alone. Only
 * the ranking's own hits vote and are reordered: nothing is added, no score is read. Hits without a
 * time keep their own vote; ties keep the ranking's order.
 */
export function withContextVotes(keys: readonly string[], timeOf: (key: string) => number | undefined, options: ContextVoteOptions): string[] {
  if (options.weight <= 0 || keys.length < 2) return [...keys];
  const placed = keys.map((key, index) => ({ key, index, vote: 1 / (options.rrfK + index + 1), at: timeOf(key), namespace: splitHitKey(key)[0] }));
  const score = placed.map((hit) => {
    let lent = 0;
    for (const other of placed) if (other !== hit && neighbours(hit, other, options.windowMs)) lent += other.vote;
    return { hit, score: hit.vote + options.weight * lent };
  });
  score.sort((a, b) => b.score - a.score || a.hit.index - b.hit.index);
  return score.map(({ hit }) => hit.key);
}

type Placed = { at: number | undefined; namespace: string };

function neighbours(a: Placed, b: Placed, windowMs: number): boolean {
  return a.at !== undefined && b.at !== undefined && a.namespace === b.namespace && Math.abs(a.at - b.at) <= windowMs;
}
