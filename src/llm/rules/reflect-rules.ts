import type { MemoryEntry } from "../../memory/entry.js";
import { tokenize } from "../../text/tokenizer.js";
import type { Coverage, Plan } from "../../graph/state.js";

/**
 * The judge that runs with no model: coverage is the share of the plan's facets (keywords, persons,
 * entities, locations, time window) present in the current top results; gap queries ask for what is
 * missing, anchored on the people and things the question is about.
 */
export function judgeWithRules(plan: Plan, found: readonly MemoryEntry[], maxGapQueries: number): Coverage {
  const facets = facetsOf(plan);
  if (facets.length === 0) return { complete: true, percent: 100, missing: [], gapQueries: [], judge: "rules" };
  const foundTerms = new Set(found.flatMap((entry) => tokenize(searchableText(entry))));
  const missing = facets.filter((facet) => !facet.isCovered(foundTerms, found)).map((facet) => facet.label);
  const percent = Math.round((100 * (facets.length - missing.length)) / facets.length);
  const anchor = [...plan.persons, ...plan.entities].join(" ");
  const gapQueries = missing
    .filter((label) => !plan.timeExpression || label !== plan.timeExpression)
    .slice(0, maxGapQueries)
    .map((label) => (anchor && !anchor.toLowerCase().includes(label.toLowerCase()) ? `${anchor} ${label}` : label));
  const complete = missing.length === 0 || gapQueries.length === 0;
  return { complete, percent, missing, gapQueries: complete ? [] : gapQueries, judge: "rules" };
}

interface Facet {
  label: string;
  isCovered: (foundTerms: ReadonlySet<string>, found: readonly MemoryEntry[]) => boolean;
}

function facetsOf(plan: Plan): Facet[] {
  const termFacet = (label: string): Facet => ({
    label,
    isCovered: (terms) => {
      const wanted = tokenize(label);
      return wanted.length === 0 || wanted.every((term) => terms.has(term));
    },
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

function searchableText(entry: MemoryEntry): string {
  return [entry.text, ...entry.keywords, ...entry.persons, ...entry.entities, entry.location ?? "", entry.topic ?? ""].join(" ");
}
