import { VIEW_NAMES, type ViewName } from "../graph/configuration.js";
import type { FusedHit, Provenance, ViewHitList } from "../graph/state.js";

export interface FusionOptions {
  method: "rrf" | "union";
  /** RRF constant: larger flattens the advantage of top ranks. */
  rrfK: number;
  weights: Record<ViewName, number>;
}

/**
 * Fuses ranked lists into one, de-duplicated by hit key, each hit with its provenance.
 * - rrf: score = sum over lists of weight(view) / (k + rank). Ranks only: raw scores of different
 *   views are never added together, since cosine and BM25 live on unrelated scales.
 * - union: the original retriever's merge, first-seen order over rounds, then views, then queries;
 *   the score is 1 / position so that it still sorts.
 */
export function fuseRankedLists(lists: readonly ViewHitList[], options: FusionOptions): FusedHit[] {
  const ordered = [...lists].sort(
    (a, b) => a.round - b.round || VIEW_NAMES.indexOf(a.view) - VIEW_NAMES.indexOf(b.view),
  );
  const byKey = new Map<string, { score: number; firstSeen: number; provenance: Provenance }>();
  let seen = 0;
  for (const list of ordered) {
    const weight = options.weights[list.view];
    list.hits.forEach((hit, index) => {
      const rank = index + 1;
      let fused = byKey.get(hit.key);
      if (!fused) {
        fused = { score: 0, firstSeen: seen++, provenance: { views: [], subQueries: [], ranks: [], fusedScore: 0 } };
        byKey.set(hit.key, fused);
      }
      if (options.method === "rrf") fused.score += weight / (options.rrfK + rank);
      const provenance = fused.provenance;
      if (!provenance.views.includes(list.view)) provenance.views.push(list.view);
      if (!provenance.subQueries.includes(list.query)) provenance.subQueries.push(list.query);
      provenance.ranks.push({ view: list.view, query: list.query, round: list.round, rank, score: hit.score });
    });
  }
  const fused = [...byKey.entries()].map(([key, value]) => {
    const score = options.method === "rrf" ? value.score : 1 / (value.firstSeen + 1);
    return { key, score, firstSeen: value.firstSeen, provenance: { ...value.provenance, fusedScore: score } };
  });
  fused.sort((a, b) => b.score - a.score || a.firstSeen - b.firstSeen);
  return fused.map(({ key, score, provenance }) => ({ key, score, provenance }));
}
