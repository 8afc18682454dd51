import type { ViewName } from "../domain/views.js";
import type { FusedHit, Provenance, ViewHitList } from "../domain/hits.js";
import { SEPARATION_DEPTH } from "./list-evidence.js";

export interface FusionOptions {
  method: "rrf" | "union";
  /** RRF constant: larger flattens the advantage of top ranks. */
  rrfK: number;
  /** Each view's weight, in the views' order (the order `union` reads them in); a view not named here does not vote. */
  weights: Readonly<Record<ViewName, number>>;
  /** Weight of a list from reflection round r relative to round 0: roundWeight^r (1 = no discount). */
  roundWeight?: number;
  /** Share (0..1) of its view's weight one list earns from its own scores (see list-evidence.ts); default 1. */
  evidence?: (list: ViewHitList) => number;
  /** Whether a list votes by its scores' ranks (ranksByScore) instead of its positions; default never. */
  votesByScore?: (list: ViewHitList) => boolean;
}

/**
 * Fuses ranked lists into one, de-duplicated by hit key, each hit with its provenance.
 * - rrf: Reciprocal Rank Fusion over the views, score = sum over views and rounds of weight(view) x
 *   vote, where a view's vote for a hit in a round is its best roundWeight^round / (k + rank) over
 *   that view's lists of the round (sub-queries, gap queries). Within a round each view votes once
 *   per hit: more sub-queries widen a view's recall but do not multiply its say, so a weak view cannot
 *   outvote a strong one by running more queries. Rounds add up: a reflection round asks something
 *   the question did not (what was missing, a second hop's name), so a hit it finds again gains that
 *   round's vote, as agreement between views does. Lists of reflection rounds count less
 *   (roundWeight < 1): a gap query is a guess at what is missing, weaker evidence than the question.
 *   A list's votes are also scaled by its own evidence when one is given: a dense list whose first
 *   hit does not stand out from the rest says little about this query, whatever the view's weight.
 *   A list's hits under its voteMinScore cast no vote: they are candidates, after every voted hit.
 *   Ranks only: raw scores of different views are never added, since cosine and BM25 live on
 *   unrelated scales.
 * - union: a plain merge, first-seen order over rounds, then views, then queries;
 *   the score is 1 / position so that it still sorts.
 */
export function fuseRankedLists(lists: readonly ViewHitList[], options: FusionOptions): FusedHit[] {
  const viewOrder = Object.keys(options.weights);
  const ordered = [...lists].sort((a, b) => a.round - b.round || viewOrder.indexOf(a.view) - viewOrder.indexOf(b.view));
  const byKey = new Map<string, { firstSeen: number; bestVote: Map<string, { view: ViewName; vote: number }>; provenance: Provenance }>();
  const roundWeight = options.roundWeight ?? 1;
  for (const list of ordered) {
    const listWeight = (options.evidence?.(list) ?? 1) * roundWeight ** list.round;
    const voteRanks = options.votesByScore?.(list) ? ranksByScore(list.hits.map((hit) => hit.score)) : undefined;
    list.hits.forEach((hit, index) => {
      const rank = index + 1;
      let fused = byKey.get(hit.key);
      if (!fused) {
        fused = { firstSeen: byKey.size, bestVote: new Map(), provenance: { views: [], subQueries: [], ranks: [], fusedScore: 0 } };
        byKey.set(hit.key, fused);
      }
      const votes = list.voteMinScore === undefined || hit.score >= list.voteMinScore;
      const vote = votes ? listWeight / (options.rrfK + (voteRanks?.[index] ?? rank)) : 0;
      const voter = `${list.view} ${list.round}`;
      fused.bestVote.set(voter, { view: list.view, vote: Math.max(vote, fused.bestVote.get(voter)?.vote ?? 0) });
      const provenance = fused.provenance;
      if (!provenance.views.includes(list.view)) provenance.views.push(list.view);
      if (!provenance.subQueries.includes(list.query)) provenance.subQueries.push(list.query);
      provenance.ranks.push({ view: list.view, query: list.query, round: list.round, rank, score: hit.score });
    });
  }
  const fused = [...byKey.entries()].map(([key, { firstSeen, bestVote, provenance }]) => {
    const score =
      options.method === "rrf"
        ? [...bestVote.values()].reduce((sum, { view, vote }) => sum + (options.weights[view] ?? 0) * vote, 0)
        : 1 / (firstSeen + 1);
    return { key, score, firstSeen, provenance: { ...provenance, fusedScore: score } };
  });
  fused.sort((a, b) => b.score - a.score || a.firstSeen - b.firstSeen);
  return fused.map(({ key, score, provenance }) => ({ key, score, provenance }));
}

/**
 * Ranks read from scores (best first): the first SEPARATION_DEPTH hits placed between rank 1 and rank
 * SEPARATION_DEPTH by where their score falls between the first score and the one at that depth, the
 * hits after it at their own positions. Two hits scored nearly alike get nearly the same rank, however
 * many hits lie between them; a first hit far ahead of the rest keeps its lead. A list too short to
 * compare or without spread keeps its positions.
 */
export function ranksByScore(scores: readonly number[]): number[] {
  const depth = Math.min(SEPARATION_DEPTH, scores.length);
  const first = scores[0];
  const last = scores[depth - 1];
  if (first === undefined || last === undefined || depth < 2 || first <= last) return scores.map((_, index) => index + 1);
  return scores.map((score, index) => (index < depth ? 1 + ((depth - 1) * (first - score)) / (first - last) : index + 1));
}
