/**
 * recall@k of an approximate search against exact search, for the benchmarks that compare vector
 * indexes (bench:vectors, bench:speed's `--index hnsw` and its LanceDB peer).
 */

/** One hit: its id and its exact similarity to the query (the caller's, not an index's quantised estimate). */
export interface RankedHit {
  id: string;
  score: number;
}

/** Similarity within this of the exact k-th still counts as a right hit (float32 noise between two kernels). */
export const TIE_TOLERANCE = 1e-5;

/**
 * Over all queries: the share of the exact top k that the approximate search found. `tieAware` also
 * counts a hit right when its exact similarity reaches the exact k-th's: synthetic memories repeat
 * texts, hence identical vectors, and any of several tied entries is a right answer. `byId` is the
 * plain share of the exact ids. Each query's truth sets its own k (its length), so a namespace smaller
 * than k is not held to k hits.
 */
export function recallAgainstExact(
  found: ReadonlyArray<readonly RankedHit[]>,
  truth: ReadonlyArray<readonly RankedHit[]>,
): { tieAware: number; byId: number } {
  if (found.length !== truth.length) throw new RangeError(`recall: ${found.length} answers for ${truth.length} exact answers`);
  let right = 0;
  let byId = 0;
  let total = 0;
  found.forEach((hits, q) => {
    const exact = truth[q] ?? [];
    const ids = new Set(exact.map((hit) => hit.id));
    const kth = exact.at(-1)?.score ?? Number.POSITIVE_INFINITY;
    total += exact.length;
    for (const hit of hits.slice(0, exact.length)) {
      if (ids.has(hit.id)) byId += 1;
      if (ids.has(hit.id) || hit.score >= kth - TIE_TOLERANCE) right += 1;
    }
  });
  return { tieAware: right / Math.max(1, total), byId: byId / Math.max(1, total) };
}
