import type { Plan } from "../domain/plan.js";
import { keywords as contentWords } from "../text/tokenizer.js";
import { findTimeWindow } from "../time/window.js";
import { foundOnlyThrough, isName, nameParts, namesMentioned } from "./known-names.js";
import { makePlan, sameQuery, type PlanContext } from "./plan.js";

/**
 * The planner that runs with no model (or when the model fails): the question as its query (and its
 * clauses, where the embedder's profile asks for them), the tokenizer for keywords, the namespace's
 * known names for persons/entities/locations, and the time parser for the window. Deterministic and cheap.
 */
export function planWithRules(question: string, context: PlanContext): Plan {
  const window = findTimeWindow(question, { now: context.now, timeZone: context.timeZone });
  // People go by a part of their name, whatever the case ("alice" for "Alice Chen"). A thing or place
  // is found by a part only where the question capitalises it ("Acme" for "Acme Corp"): by any part, a
  // common word would make a title a condition ("Does Calvin love music?" -> "California Love").
  const persons = namesMentioned(question, context.vocabulary.persons);
  const locations = namesMentioned(question, context.vocabulary.locations, { parts: "capitalized" });
  // A name already known as a person or place is not also an entity condition: the symbolic view
  // ANDs its conditions, and one name required twice over would filter out the very memories it names.
  const taken = new Set([...persons, ...locations].map((name) => name.toLowerCase()));
  // Nor is an entity found only through a word of a person's name ("Woohoo Melanie" via "Melanie"):
  // the question names the person, and the entity would narrow the conditions to a stray memory.
  const personWords = new Set(persons.flatMap(nameParts));
  const entities = namesMentioned(question, context.vocabulary.entities, { parts: "capitalized" }).filter(
    (name) => !taken.has(name.toLowerCase()) && !foundOnlyThrough(question, name, personWords),
  );
  const timeWords = new Set(window ? contentWords(window.expression).map((w) => w.toLowerCase()) : []);
  const keywords = contentWords(question).filter((word) => !timeWords.has(word.toLowerCase()));
  return makePlan(
    {
      requiredInfo: [...persons, ...entities, ...locations, ...keywords.filter((k) => !isName(k, persons, entities, locations))],
      subQueries: context.clauseQueries ? subQueriesOf(question, context.maxSubQueries) : [question.trim()],
      keywords,
      persons,
      entities,
      locations,
      planner: "rules",
    },
    window,
  );
}

/** The question first, then its clauses when it asks several things at once. */
export function subQueriesOf(question: string, max: number): string[] {
  const clauses = question
    .split(/[;?？；。]|\s+(?:and|also|as well as)\s+(?=(?:who|what|when|where|why|how|which|did|does|do|is|are|was|were)\b)|以及|并且|还有/i)
    .map((clause) => clause.trim())
    .filter((clause) => contentWords(clause).length >= 2);
  const queries = [question.trim()];
  for (const clause of clauses) {
    if (queries.length >= max) break;
    if (!queries.some((query) => sameQuery(query, clause))) queries.push(clause);
  }
  return queries;
}
