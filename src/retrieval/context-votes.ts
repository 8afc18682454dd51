import { splitHitKey } from "../domain/hits.js";

/** How much a ranking's hits lend the memories said around them. */
export interface ContextVoteOptions {
  /** Share of a neighbour's vote a hit gains (0: the ranking stands). */
  weight: number;
  /** The RRF constant the votes are counted with, so they weigh as the fused ranks do. */
  rrfK: number;
}

/** The turns a memory was built from and those said around them (`source` of a dialogue's memories). */
export interface SaidTurns {
  turnIds: readonly string[];
  contextTurnIds: readonly string[];
}

/**
 * A ranking reordered by a conversation's context, ranks only: a hit's vote is 1 / (k + rank), and it
 * gains `weight` times the vote of every other hit of its exchange: one of the same namespace built
 * from one of its turns or from turns said around them (`contextTurnIds`, set when a dialogue is
 * written), however far apart in time. An answer is often spread over an exchange (a question and its
 * reply, a photo and what it shows, what one speaker said and the other's answer), so a hit whose
 * neighbours also rank rises over one that ranks alone. Only the ranking's own hits vote and are
 * reordered: nothing is added, no score is read. Hits of no exchange (`turnsOf` gives nothing: notes,
 * documents) keep their own vote; ties keep the ranking's order.
 */
export function withContextVotes(keys: readonly string[], turnsOf: (key: string) => SaidTurns | undefined, options: ContextVoteOptions): string[] {
  if (options.weight <= 0 || keys.length < 2) return [...keys];
  const hits = keys.map((key, index) => ({ key, index, vote: 1 / (options.rrfK + index + 1), said: saidIn(key, turnsOf(key)) }));
  const score = hits.map((hit) => {
    let lent = 0;
    for (const other of hits) if (other !== hit && oneExchange(hit.said, other.said)) lent += other.vote;
    return { hit, score: hit.vote + options.weight * lent };
  });
  score.sort((a, b) => b.score - a.score || a.hit.index - b.hit.index);
  return score.map(({ hit }) => hit.key);
}

/** A hit's turns in its namespace: its own, and its exchange (its own and those said around them). */
type Said = { namespace: string; own: readonly string[]; exchange: ReadonlySet<string> };

function saidIn(key: string, said: SaidTurns | undefined): Said | undefined {
  return said && { namespace: splitHitKey(key)[0], own: said.turnIds, exchange: new Set([...said.turnIds, ...said.contextTurnIds]) };
}

/** Two memories of one namespace built from one turn, or one from turns said around the other's. */
function oneExchange(a: Said | undefined, b: Said | undefined): boolean {
  if (!a || !b || a.namespace !== b.namespace) return false;
  return b.own.some((turnId) => a.exchange.has(turnId)) || a.own.some((turnId) => b.exchange.has(turnId));
}
