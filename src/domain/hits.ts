import type { ViewName } from "./views.js";

/** A hit's address: entries are unique per namespace, not across namespaces. */
export function hitKey(namespace: string, id: string): string {
  return `${namespace}\u001f${id}`;
}

/** The namespace and id of a hit key. */
export function splitHitKey(key: string): [namespace: string, id: string] {
  const at = key.indexOf("\u001f");
  return [key.slice(0, at), key.slice(at + 1)];
}

/** One ranked list produced by one view for one query in one namespace and round. */
export interface ViewHitList {
  view: ViewName;
  query: string;
  namespace: string;
  round: number;
  hits: Array<{ key: string; score: number }>;
}

/** Where a fused hit came from: every (view, query) list that ranked it. */
export interface Provenance {
  views: ViewName[];
  subQueries: string[];
  ranks: Array<{ view: ViewName; query: string; round: number; rank: number; score: number }>;
  fusedScore: number;
}

/** One entry of the fused ranking, with its fused score and provenance. */
export interface FusedHit {
  key: string;
  score: number;
  provenance: Provenance;
}
