import type { Coverage, GapCondition } from "../domain/coverage.js";

/** What a judge concluded about one round, before the gap queries are chosen. */
export interface Verdict {
  judge: Coverage["judge"];
  /** The judge found nothing missing (a model may say so and still write gap queries; they are not asked). */
  saysComplete: boolean;
  percent: number;
  missing: string[];
  /** The searches it would run next, most important first; the rule judge's carry what a hit must meet. */
  gaps: ReadonlyArray<{ query: string; condition?: GapCondition }>;
}

/**
 * The one way a verdict becomes coverage, whichever judge gave it: a gap query already asked in an
 * earlier round is not asked again (rounds add up in fusion, so a repeat would count its hits twice),
 * nor twice in one round, and at most `maxGapQueries` are kept. Coverage is complete when nothing is
 * left to ask.
 */
export function makeCoverage(verdict: Verdict, limits: { asked: ReadonlySet<string>; maxGapQueries: number }): Coverage {
  const chosen = verdict.gaps
    .filter((gap, i, all) => !limits.asked.has(gap.query) && all.findIndex((other) => other.query === gap.query) === i)
    .slice(0, limits.maxGapQueries);
  const complete = verdict.saysComplete || chosen.length === 0;
  const asked = complete ? [] : chosen;
  return {
    complete,
    percent: verdict.percent,
    missing: verdict.missing,
    gapQueries: asked.map((gap) => gap.query),
    gapConditions: Object.fromEntries(asked.flatMap((gap) => (gap.condition ? [[gap.query, gap.condition]] : []))),
    judge: verdict.judge,
  };
}

/** The same judgement with nothing more to ask: the round cap is reached, or reflection is off. */
export function withoutGapQueries(coverage: Coverage): Coverage {
  return { ...coverage, gapQueries: [], gapConditions: {} };
}

/** True when the judgement opens another round. */
export function searchesAgain(coverage: Coverage | undefined): coverage is Coverage {
  return coverage !== undefined && !coverage.complete && coverage.gapQueries.length > 0;
}

/** True when the judgement opens a round asked among one speaker's own words (a gap query with a speaker to meet). */
export function asksOwnWords(coverage: Coverage | undefined): boolean {
  return searchesAgain(coverage) && Object.values(coverage.gapConditions ?? {}).some((condition) => condition.spokenBy !== undefined);
}
