import type { FusedHit } from "../domain/hits.js";

/**
 * One ranking made of two that answer different readings of one question, taking turns: the second
 * ranking takes one place in every `every` (2: equal turns, the first's best hit, then the second's
 * best not given yet, and so on; 3: two of the first's, then one of the second's). The caller puts
 * first the reading it would rather lead with. Every prefix of the result (every k a caller may cut at)
 * then holds the best of both in those shares, so neither reading is lost at any cut-off, and a hit
 * both rank high is given once, early, leaving its place to the next of the other.
 *
 * The second ranking names hits by key: it orders the same candidates and is no source of new ones,
 * so keys the first does not hold are skipped and the result is the first's hits, each once.
 */
export function takeTurns(first: readonly FusedHit[], second: readonly string[], every = 2): FusedHit[] {
  const byKey = new Map(first.map((hit) => [hit.key, hit]));
  const turns = [first, second.flatMap((key) => byKey.get(key) ?? [])].map((list) => list[Symbol.iterator]());
  const given = new Map<string, FusedHit>();
  for (let place = 0; given.size < byKey.size; place += 1) {
    const hit = nextNotGiven(turns[place % every === every - 1 ? 1 : 0], given);
    if (hit) given.set(hit.key, hit);
  }
  return [...given.values()];
}

/** The next hit of a ranking not given yet (the ones passed over were given by the other ranking). */
function nextNotGiven(ranking: Iterator<FusedHit> | undefined, given: ReadonlyMap<string, FusedHit>): FusedHit | undefined {
  for (let next = ranking?.next(); next && !next.done; next = ranking?.next()) {
    if (!given.has(next.value.key)) return next.value;
  }
  return undefined;
}
