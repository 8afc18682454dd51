import type { MemoryEntry } from "../../memory/entry.js";
import { tokenize } from "../../text/tokenizer.js";
import type { Coverage, Plan } from "../../graph/state.js";

/**
 * The judge that runs with no model: coverage is the share of the plan's facets present in the current
 * top results. The facets are what rules can verify, the names (persons, entities, locations) and the
 * time window; the question's other words are not judged, since BM25 has already weighed them and a
 * gap query made of them would only re-ask the question. Gap queries ask for a missing name, anchored
 * on the names the results already cover.
 */
export function judgeWithRules(plan: Plan, found: readonly MemoryEntry[], maxGapQueries: number): Coverage {
  const facets = facetsOf(plan);
  if (facets.length === 0) return { complete: true, percent: 100, missing: [], gapQueries: [], judge: "rules" };
  const foundTerms = new Set(found.flatMap((entry) => tokenize(searchableText(entry))));
  const missing = facets.filter((facet) => !facet.isCovered(foundTerms, found)).map((facet) => facet.label);
  const percent = Math.round((100 * (facets.length - missing.length)) / facets.length);
  // Anchor each gap on the names the results already cover: "John Pride", not a bare "Pride".
  const anchor = [...plan.persons, ...plan.entities].filter((name) => !missing.includes(name)).join(" ");
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
  const facets = [...plan.persons, ...plan.entities, ...plan.locations]
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
