import type { SeparationRamp } from "../text/embedders/profiles.js";
import type { ViewHitList } from "../domain/hits.js";
import { wordCount } from "../text/sentences.js";

/**
 * How much one ranked list says for one query, from its own scores. A list whose first hit scores
 * like the rest of its list has found nothing that stands out (a weak embedder ranks a near-random
 * neighbour first with the same confidence as the right one), so its vote should count for little; a
 * list whose first hit stands well clear of the rest has evidence.
 *
 * The measure is the first score's z-score against the next scores of the list, cut at
 * SEPARATION_DEPTH so that a view asked for 100 hits (the eval) and one asked for 25 (the default)
 * read the same. A z-score has no unit, so it compares across embedders whose cosines live on
 * different ranges (USE-lite's sit between 0.6 and 0.85 on SciFact, whatever the query).
 */
export const SEPARATION_DEPTH = 25;

/** The first score's z-score against scores 2..SEPARATION_DEPTH; undefined with fewer than 3 scores or no spread. */
export function topSeparation(scores: readonly number[]): number | undefined {
  const [first, ...rest] = scores.slice(0, SEPARATION_DEPTH);
  if (first === undefined || rest.length < 2) return undefined;
  const mean = rest.reduce((sum, score) => sum + score, 0) / rest.length;
  const spread = Math.sqrt(rest.reduce((sum, score) => sum + (score - mean) ** 2, 0) / rest.length);
  return spread > 0 ? (first - mean) / spread : undefined;
}

/**
 * The share (0..1) of its view's weight a list earns. A list too short to compare, or with no spread,
 * keeps its full vote: there is no evidence against it, and thresholds have already judged its hits.
 */
export function separationEvidence(scores: readonly number[], ramp: SeparationRamp): number {
  const separation = topSeparation(scores);
  if (separation === undefined) return 1;
  if (separation >= ramp.to) return 1;
  if (separation <= ramp.from) return 0;
  return (separation - ramp.from) / (ramp.to - ramp.from);
}

/**
 * The share (kept..1) of its view's weight a list keeps when a flat list yields part of its vote: all
 * of it where its first score stands clear of the rest, `kept` where it does not, linear between.
 */
export function yieldingEvidence(scores: readonly number[], ramp: SeparationRamp, kept: number): number {
  return kept + (1 - kept) * separationEvidence(scores, ramp);
}

/** How many of a list's first hits are looked at for their length (the hits that decide its vote at a user's k). */
export const LENGTH_DEPTH = 10;

/**
 * Whether most of a list's first LENGTH_DEPTH hits are texts longer than `maxWords` words (the longest
 * the embedder represents as one). Such a list votes by its scores (fusion's ranksByScore): over
 * documents, BM25 and a sentence-averaged cosine score alike what is about the query alike, and the
 * other view breaks the tie; over one-line memories, where a BM25 gap is much a matter of the line's
 * length, the list's own order measured the better vote (LoCoMo recall@10 0.797 -> 0.791 when its BM25
 * lists voted by score). Hits without a text count as short.
 */
export function overLongTexts(texts: ReadonlyArray<string | undefined>, maxWords: number): boolean {
  const first = texts.slice(0, LENGTH_DEPTH);
  const long = first.filter((text) => text !== undefined && wordCount(text) > maxWords).length;
  return long * 2 > first.length;
}

/**
 * Whether most of the first LENGTH_DEPTH hits of the question's own lists (round 0) were said by
 * someone: messages of a conversation rather than documents. Hits whose entry is not known count as
 * not spoken. No hits: not spoken.
 */
export function spokenHits(lists: readonly ViewHitList[], speakerOf: (key: string) => string | undefined): boolean {
  const first = lists.filter((list) => list.round === 0).flatMap((list) => list.hits.slice(0, LENGTH_DEPTH));
  const spoken = first.filter((hit) => speakerOf(hit.key) !== undefined).length;
  return spoken * 2 > first.length;
}
