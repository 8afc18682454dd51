import type { MemoryEntry } from "../../memory/entry.js";
import { coversAll, entryTerms } from "../../retrieval/mentions.js";
import type { Coverage, Plan } from "../../graph/state.js";

/**
 * The judge that runs with no model: coverage is the share of the plan's facets (names, keywords, time
 * window) present in the current top results. A gap query asks for one missing facet: a missing name
 * on its own (anchored on the names already found, it brought back memories of those instead), a
 * missing word anchored on the names found ("Caroline adopt"). A hit answers a gap query only if it
 * mentions every word of it (routing marks such rounds; view-output checks): a re-asked word alone would
 * return what BM25 ranked low the first time. The window is the symbolic view's, never a gap query.
 */
export function judgeWithRules(plan: Plan, found: readonly MemoryEntry[], maxGapQueries: number): Coverage {
  const facets = facetsOf(plan);
  if (facets.length === 0) return { complete: true, percent: 100, missing: [], gapQueries: [], judge: "rules" };
  const foundTerms = new Set(found.flatMap((entry) => [...entryTerms(entry)]));
  const missing = facets.filter((facet) => !facet.isCovered(foundTerms, found)).map((facet) => facet.label);
  const percent = Math.round((100 * (facets.length - missing.length)) / facets.length);
  const names = [...plan.persons, ...plan.entities, ...plan.locations];
  const anchor = names.filter((name) => !missing.includes(name)).join(" ");
  const gapQueries = missing
    .filter((label) => label !== plan.timeExpression)
    .slice(0, maxGapQueries)
    .map((label) => (names.includes(label) || !anchor ? label : `${anchor} ${label}`));
  return { complete: gapQueries.length === 0, percent, missing, gapQueries, judge: "rules" };
}

interface Facet {
  label: string;
  isCovered: (foundTerms: ReadonlySet<string>, found: readonly MemoryEntry[]) => boolean;
}

function facetsOf(plan: Plan): Facet[] {
  const termFacet = (label: string): Facet => ({
    label,
    isCovered: (terms) => coversAll(terms, label),
  });
  const facets = [...plan.persons, ...plan.entities, ...plan.locations, ...plan.keywords]
    .filter((label, i, all) => all.findIndex((other) => other.toLowerCase() === label.toLowerCase()) === i)
    .map(termFacet);
  const window = plan.timeWindow;
  if (window && plan.timeExpression) {
    facets.push({
      label: plan.timeExpression,
      isCovered: (_terms, found) =>
        found.some(
          (entry) =>
            (window.startMs === undefined || entry.timestampMs >= window.startMs) &&
            (window.endMs === undefined || entry.timestampMs < window.endMs),
        ),
    });
  }
  return facets;
}
