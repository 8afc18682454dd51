import type { MemoryEntry } from "../../memory/entry.js";
import { searchableText } from "../../retrieval/mentions.js";
import { tokenize } from "../../text/tokenizer.js";
import type { Coverage, Plan } from "../../graph/state.js";

/**
 * The judge that runs with no model: coverage is the share of the plan's facets present in the current
 * top results. The facets are what rules can verify, the names (persons, entities, locations) and the
 * time window; the question's other words are not judged, since BM25 has already weighed them and a
 * gap query made of them would only re-ask the question. Each gap query is a missing name on its own
 * (anchoring it on the names already found only brought back memories of those), and a hit answers it
 * only if it mentions that name (see `mentions` in retrieval/mentions.ts); the window is the symbolic view's, never a gap query.
 */
export function judgeWithRules(plan: Plan, found: readonly MemoryEntry[], maxGapQueries: number): Coverage {
  const facets = facetsOf(plan);
  if (facets.length === 0) return { complete: true, percent: 100, missing: [], gapQueries: [], judge: "rules" };
  const foundTerms = new Set(found.flatMap((entry) => tokenize(searchableText(entry))));
  const missing = facets.filter((facet) => !facet.isCovered(foundTerms, found)).map((facet) => facet.label);
  const percent = Math.round((100 * (facets.length - missing.length)) / facets.length);
  const gapQueries = missing.filter((label) => label !== plan.timeExpression).slice(0, maxGapQueries);
  const complete = gapQueries.length === 0;
  return { complete, percent, missing, gapQueries, judge: "rules" };
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
