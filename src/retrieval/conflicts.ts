/**
 * Contradictions nothing resolves: two memories of an answer, same namespace and speaker, with no
 * supersession between them, where one restates an attribute with another value than the other ("my
 * deadline is April 1" / "my deadline is April 5") or says what the other denies outright ("I have
 * never used Flask-Login" / "Flask-Login v0.6.2 was integrated"). Both stay in the answer, each marked
 * as conflicting with the other, so the agent can ask which holds.
 *
 * What it reads is retrieval/statements.ts's explicit forms, only among the answer's own memories (no
 * store read): cheap, and it never marks two memories that merely differ. It does not see a
 * contradiction in other words ("I live in Berlin" / "my home is in Malmö"), one whose other side the
 * answer does not hold, nor one between different speakers.
 */
import { hitKey } from "../domain/hits.js";
import { tokenize } from "../text/tokenizer.js";
import { contradicts, denials, isNegative, restatements, sentencesOf, type Denial, type Restatement } from "./statements.js";
import type { AnswerHit } from "../domain/hits.js";
import type { SupersessionLinks } from "./supersession.js";

/** What one memory of the answer states, read once. */
interface Stated {
  answer: AnswerHit;
  restated: Restatement[];
  denied: Denial[];
  /** Its sentences that deny nothing, as token sets: what a denial is checked against (read when one is). */
  positive: () => ReadonlyArray<{ text: string; tokens: ReadonlySet<string> }>;
}

/** The answer with each memory that conflicts with another marked (`conflictsWith`); the order is unchanged. */
export function withConflicts(answers: readonly AnswerHit[], links: SupersessionLinks): AnswerHit[] {
  const stated = answers.map(read);
  const conflicts = new Map<string, string[]>();
  const mark = (from: AnswerHit, to: AnswerHit) => conflicts.set(from.hit.key, [...(conflicts.get(from.hit.key) ?? []), to.entry.id]);
  stated.forEach((first, i) => {
    for (const second of stated.slice(i + 1)) {
      if (!comparable(first.answer, second.answer, links) || !disagree(first, second)) continue;
      mark(first.answer, second.answer);
      mark(second.answer, first.answer);
    }
  });
  if (!conflicts.size) return [...answers];
  return answers.map((answer) => {
    const ids = conflicts.get(answer.hit.key);
    return ids ? { ...answer, hit: { ...answer.hit, provenance: { ...answer.hit.provenance, conflictsWith: ids } } } : answer;
  });
}

function read(answer: AnswerHit): Stated {
  const text = answer.entry.text;
  // Tokenizing every sentence is most of the cost, and only a denial in another memory needs it.
  let positive: ReturnType<Stated["positive"]> | undefined;
  const readPositive = () =>
    (positive ??= sentencesOf(text)
      .filter((sentence) => !isNegative(sentence))
      .map((sentence) => ({ text: sentence, tokens: new Set(tokenize(sentence)) })));
  return { answer, restated: restatements(text), denied: denials(text), positive: readPositive };
}

/**
 * Two memories can conflict when they are of one namespace and one speaker (or neither has one), both
 * current, and no supersession links them: a supersession already says which holds.
 */
function comparable(first: AnswerHit, second: AnswerHit, links: SupersessionLinks): boolean {
  const [a, b] = [first.entry, second.entry];
  if (a.namespace !== b.namespace || a.speaker !== b.speaker) return false;
  if (first.hit.provenance.history !== undefined || second.hit.provenance.history !== undefined) return false;
  const linked = (from: typeof a, to: typeof b) =>
    (links.supersededBy.get(hitKey(from.namespace, from.id)) ?? []).some((entry) => entry.id === to.id) || (from.supersedes ?? []).includes(to.id);
  return !linked(a, b) && !linked(b, a);
}

function disagree(first: Stated, second: Stated): boolean {
  const restatedOtherwise = first.restated.some((one) => second.restated.some((other) => one.key === other.key && one.value.kind === other.value.kind && one.value.norm !== other.value.norm));
  return restatedOtherwise || deniesWhatOtherSays(first, second) || deniesWhatOtherSays(second, first);
}

function deniesWhatOtherSays(denier: Stated, other: Stated): boolean {
  return denier.denied.some((denial) => other.positive().some(({ text, tokens }) => contradicts(text, denial, tokens)));
}
