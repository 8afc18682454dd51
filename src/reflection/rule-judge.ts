import type { Coverage, GapCondition } from "../domain/coverage.js";
import type { Plan } from "../domain/plan.js";
import type { MemoryEntry } from "../memory/entry.js";
import { isSpokenBy } from "../retrieval/gap-conditions.js";
import { coversAll, entryTerms } from "../retrieval/mentions.js";
import { tokenize } from "../text/tokenizer.js";
import { makeCoverage } from "./coverage.js";

/** How many of the best results may name the person a question describes ("the engineer who fixed ERR_1024"). */
const BRIDGE_SOURCES = 3;

/**
 * The judge that runs with no model: coverage is the share of the plan's facets (names, keywords, time
 * window) present in the current top results, and what is missing is said. It searches again only
 * where a rule knows whom to ask about. A question about one speaker whose top results also hold other
 * people's words is asked again among that speaker's own (see ownWords). A question about someone it
 * describes instead of naming takes a second hop: the first round finds who ("Bob Müller fixed
 * ERR_1024"), then the judge asks about them by name ("Bob Müller city live"), keeping hits that
 * mention the name. A query already asked in an earlier round is not asked again (makeCoverage).
 *
 * A missing facet is reported, not searched for: a missing word is most often one the evidence does not
 * use either ("likely", "partake"), and a missing name searched on its own votes for whatever mentions it.
 * Either search cost RealMem's recall and moved no other set (docs/experiments.md, "Reflection").
 */
export function judgeWithRules(plan: Plan, found: readonly MemoryEntry[], maxGapQueries: number, asked: ReadonlySet<string> = new Set()): Coverage {
  const facets = facetsOf(plan);
  const termsOfFound = found.map(entryTerms);
  const foundTerms = new Set(termsOfFound.flatMap((terms) => [...terms]));
  const missingFacets = facets.filter((facet) => !facet.isCovered(foundTerms, found)).map((facet) => facet.label);
  const percent = facets.length === 0 ? 100 : Math.round((100 * (facets.length - missingFacets.length)) / facets.length);
  // The question's subject: their own words, or who a described person is.
  const speaker = ownWords(plan, found);
  const hops = secondHops(plan, found, termsOfFound);
  const gaps: Array<{ query: string; condition: GapCondition }> = [
    ...(speaker ? [{ query: speaker.query, condition: { spokenBy: speaker.name } }] : []),
    ...hops.map(({ name, query }) => ({ query, condition: { mentions: name } })),
  ];
  const missing = [...(speaker ? [`${speaker.name} (own words)`] : []), ...hops.map(({ name }) => `${name} (second hop)`), ...missingFacets];
  return makeCoverage({ judge: "rules", saysComplete: false, percent, missing, gaps }, { asked, maxGapQueries });
}

/**
 * A question about one person is best answered in their own words: "What did Caroline research?" is
 * settled by what Caroline said, while the other speaker's replies ("Caroline, that research sounds
 * great!") share its words and rank beside it. When the plan names one person, something they said is
 * among the top results, and so is something they did not say, the question is asked again among
 * what they said (the views search the person's entries and keep those with them as speaker); what
 * it finds again gains that round's vote. Memories without speakers (documents) never ask it.
 */
function ownWords(plan: Plan, found: readonly MemoryEntry[]): { name: string; query: string } | undefined {
  const [name, ...others] = plan.persons;
  const query = plan.subQueries[0];
  if (!name || others.length > 0 || !query) return undefined;
  const theirs = found.filter((entry) => isSpokenBy(entry, name)).length;
  return theirs > 0 && theirs < found.length ? { name, query } : undefined;
}

/** "the engineer who fixed", "a person whose car": a determiner, one to three words, who / whom / whose, the next word. */
const DESCRIBED_PERSON = /\b(?:the|a|an)\s+(?:[\p{L}-]+\s+){1,3}?(?:who|whom|whose)\s+([\p{L}-]+)/iu;

/**
 * The people a question describes instead of naming, as the best results name them: persons of the
 * top hits that mention the description's first word ("fixed"), the question's own names left out.
 * Where some are written right before that word ("Bob Müller fixed ERR_1024"), only those: the others
 * were merely there ("Alice phoned Wang Lei about the fix"). Each comes with a query of the name and
 * the plan's words its hit did not match: what the question asks about them.
 */
function secondHops(plan: Plan, found: readonly MemoryEntry[], termsOfFound: ReadonlyArray<ReadonlySet<string>>): Array<{ name: string; query: string }> {
  const described = DESCRIBED_PERSON.exec(plan.subQueries[0] ?? "");
  const verb = described?.[1] ? tokenize(described[1])[0] : undefined;
  if (!verb) return [];
  const named = new Set(plan.persons.map((person) => person.toLowerCase()));
  const hops: Array<{ name: string; query: string; acted: boolean }> = [];
  for (const [i, entry] of found.slice(0, BRIDGE_SOURCES).entries()) {
    const terms = termsOfFound[i];
    if (!terms?.has(verb)) continue;
    const tokens = tokenize(entry.text);
    const rest = plan.keywords.filter((keyword) => !coversAll(terms, keyword));
    for (const person of entry.persons) {
      if (named.has(person.toLowerCase()) || hops.some((hop) => hop.name === person)) continue;
      hops.push({ name: person, query: [person, ...rest].join(" "), acted: precedes(tokenize(person), verb, tokens) });
    }
  }
  const actors = hops.filter((hop) => hop.acted);
  return (actors.length > 0 ? actors : hops).map(({ name, query }) => ({ name, query }));
}

/** True when `name`'s tokens appear in `tokens` immediately followed by `next`. */
function precedes(name: readonly string[], next: string, tokens: readonly string[]): boolean {
  if (name.length === 0) return false;
  for (let i = 0; i + name.length < tokens.length; i++) {
    if (tokens[i + name.length] === next && name.every((token, j) => tokens[i + j] === token)) return true;
  }
  return false;
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
