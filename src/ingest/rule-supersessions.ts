import {
  changeStatements,
  isNegative,
  restatements,
  says,
  sentencesOf,
  valuesIn,
  type ChangeStatement,
  type StatedValue,
} from "../retrieval/statements.js";
import { tokenize } from "../text/tokenizer.js";
import { escapeRegExp } from "../text/without-words.js";
import { sameSubject, subjectBefore } from "./statement-subjects.js";

/**
 * The rule builder's supersessions: a turn that announces a change in an explicit form (see
 * retrieval/statements.ts) supersedes the latest earlier turn of the same speaker that stated the old
 * value of the same attribute about the same people (statement-subjects.ts): of the dialogue, or said
 * before it in its namespace (dialogue-continuation.ts). Notes are linked the same way, a note standing
 * for a turn (note-changes.ts). Each change links at most one earlier turn, the nearest: it is the one
 * the change replaces, and any older statement of the attribute was already replaced by it (or stands
 * as history beside it).
 */

/** One turn as the linker reads it: its memory's id, who said it, what was said (relative dates resolved). */
export interface SaidTurn {
  id: string;
  /** How a reason names it: "turn T3" for a dialogue's turn, "memory <id>" for a note. */
  label: string;
  speaker: string;
  said: string;
  /** Names in the turn other than the speaker's: a change about a named person only links a turn naming them. */
  persons: readonly string[];
}

/** What a turn's memory supersedes, and why. */
export interface RuleSupersession {
  supersedes: string[];
  reason: string;
}

/**
 * Words every request says ("I'm trying to ... can you help me make sure..."): two memories sharing
 * them share no attribute. Stemmed as the tokenizer stems.
 */
const GENERIC = new Set(
  tokenize(
    "trying try help want make sure need needs know update updated updating new recently recent now current currently still already just also like get got think feel worried kinda really way thing things something somebody use using used able going plan planned good better best well",
  ),
);

/**
 * How many of the speaker's earlier turns a change looks back through: BEAM's reach at most 99 back.
 * It bounds a long import's work, where most of its thousands of turns (or notes) could say a change.
 */
const LOOK_BACK_TURNS = 1000;

/** Shared attribute words a change needs with an earlier sentence when its form names no attribute noun. */
const MIN_SHARED = 2;

interface Sentence {
  text: string;
  tokens: ReadonlySet<string>;
  values: StatedValue[];
}

/** Each turn's sentences, read once. */
function readTurn(turn: SaidTurn): Sentence[] {
  return sentencesOf(turn.said).map((text) => ({ text, tokens: new Set(tokenize(text)), values: valuesIn(text) }));
}

/** Whether a turn says a change the rules read: only then can it supersede an earlier turn. */
export function announcesChange(said: string): boolean {
  return changesIn(said).length > 0;
}

/**
 * By index into `turns` (oldest first): what each turn's memory supersedes and why; turns that supersede
 * nothing are absent. Only turns `links` accepts are linked; the others (said before the dialogue, read
 * from the store) are only looked back at.
 */
export function ruleSupersessions(turns: readonly SaidTurn[], links: (index: number) => boolean = () => true): Map<number, RuleSupersession> {
  const read = turns.map(readTurn);
  const found = new Map<number, RuleSupersession>();
  turns.forEach((turn, index) => {
    if (!links(index)) return;
    const replaced = new Map<string, string>();
    for (const change of changesIn(turn.said)) {
      const link = latestReplaced(change, turns, read, index);
      if (link && !replaced.has(link.id)) replaced.set(link.id, link.reason);
    }
    if (replaced.size) found.set(index, { supersedes: [...replaced.keys()], reason: [...replaced.values()].join("; ") });
  });
  return found;
}

function changesIn(said: string): ChangeStatement[] {
  return [...changeStatements(said), ...restatedChanges(said)];
}

/** "my deadline is April 5" read as a change: the same attribute stated before with another value is replaced. */
function restatedChanges(said: string): ChangeStatement[] {
  return restatements(said).map((restated) => ({ cue: "restated", sentence: restated.sentence, attribute: new Set(restated.key.split(" ")), head: restated.key, value: restated.value }));
}

/** The nearest earlier turn of the same speaker whose sentence the change replaces, with the reason. */
function latestReplaced(
  change: ChangeStatement,
  turns: readonly SaidTurn[],
  read: readonly Sentence[][],
  index: number,
): { id: string; reason: string } | undefined {
  const speaker = turns[index]?.speaker;
  const changePersons = turns[index]?.persons ?? [];
  let looked = 0;
  for (let earlier = index - 1; earlier >= 0 && looked < LOOK_BACK_TURNS; earlier -= 1) {
    const turn = turns[earlier];
    if (!turn || turn.speaker !== speaker) continue;
    looked += 1;
    for (const sentence of read[earlier] ?? []) {
      const old = replacedBy(change, sentence);
      if (old !== undefined && aboutTheSamePeople(change, changePersons, sentence.text, old.at, turn.persons)) {
        return { id: turn.id, reason: reasonOf(change, old.written, turn.label) };
      }
    }
  }
  return undefined;
}

/**
 * Whether an earlier statement is about whom the change is (statement-subjects.ts), each read from the
 * words before its value: "I moved to Malmö" replaces "I live in Berlin", not "My sister Anna lives in
 * Oslo" nor "Dana lives in Oslo"; "She moved to Malmö" replaces nothing, since it does not say who. What
 * an ending ends has no value to stand before: the people the ending names are looked for anywhere in
 * the statement, and others named there do not matter ("I no longer play the guitar" ends "I play the
 * guitar with my friend Ben").
 */
function aboutTheSamePeople(change: ChangeStatement, changePersons: readonly string[], text: string, at: number | undefined, persons: readonly string[]): boolean {
  if (!change.value || at === undefined) {
    const about = new Set(namedIn(text, persons).map((person) => person.toLowerCase()));
    return namedIn(change.sentence, changePersons).every((person) => about.has(person.toLowerCase()));
  }
  return sameSubject(subjectBefore(change.sentence, change.value.at, changePersons), subjectBefore(text, at, persons));
}

function namedIn(sentence: string, persons: readonly string[]): string[] {
  const lower = sentence.toLowerCase();
  return persons.filter((person) => lower.includes(person.toLowerCase()));
}

/**
 * What of `sentence` the change replaces, and where its old value starts: the value's words, "" (and
 * no place) for what an ending ends; undefined when it replaces nothing there.
 */
function replacedBy(change: ChangeStatement, sentence: Sentence): { written: string; at?: number } | undefined {
  if (change.ended) return says(sentence.text, change.ended, sentence.tokens) && !isNegative(sentence.text) ? { written: "" } : undefined;
  const value = change.value;
  if (!value || sentence.values.some((old) => old.norm === value.norm) || sentence.text.toLowerCase().includes(value.norm)) return undefined;
  const old = oldValueIn(change, value, sentence);
  return old && aboutTheSameAttribute(change, old, sentence) ? old : undefined;
}

/** The value of the sentence the change's new value takes the place of: the one it names, else one of the same kind. */
function oldValueIn(change: ChangeStatement, value: StatedValue, sentence: Sentence): StatedValue | undefined {
  const wanted = change.oldValue;
  if (wanted) {
    if (wanted.kind !== "name") return sentence.values.find((old) => old.norm === wanted.norm);
    const named = new RegExp(`(?<![\\p{L}])${escapeRegExp(wanted.written)}(?![\\p{L}])`, "iu").exec(sentence.text);
    return named ? { ...wanted, at: named.index } : undefined;
  }
  if (value.kind === "name") {
    // "moved to Malmö" replaces where the person lived or had moved: "live in Berlin", "moved to Berlin".
    const place = /\b(?:live[sd]?|living|based|moved|relocated|stay(?:ed|ing)?)\s+(?:in|to)\s+([A-Z][\p{L}-]*(?:\s[A-Z][\p{L}-]*){0,2})|(?:住在|搬到|在)([\p{Script=Han}]{2,6})/u.exec(sentence.text);
    const written = place?.[1] ?? place?.[2];
    return written && written.toLowerCase() !== value.norm && change.cue !== "restated" ? { kind: "name", norm: written.toLowerCase(), written, at: place?.index ?? 0 } : undefined;
  }
  const unit = unitOf(value);
  return sentence.values.find((old) => old.kind === value.kind && old.norm !== value.norm && unitOf(old) === unit);
}

function unitOf(value: StatedValue): string {
  return value.kind === "amount" ? value.norm.split(" ").slice(1).join(" ") : value.kind;
}

/**
 * The attribute check: a restatement needs the same attribute restated; a form naming its noun ("new
 * deadline", "April 5 deadline") needs that noun beside the old value; any other needs MIN_SHARED
 * content words in common beyond what every request says (one when the old value itself was named).
 */
function aboutTheSameAttribute(change: ChangeStatement, old: StatedValue, sentence: Sentence): boolean {
  // A bare number ("reached 165") says nothing of what it counts: a word beside it must be beside the old one too.
  if (old.kind === "amount" && !unitOf(old) && change.value && !besideBoth(change.sentence, change.value, sentence.text, old)) return false;
  // Where someone lives is what the place pattern of oldValueIn already matched.
  if (change.cue === "moved to" || change.cue === "搬到") return true;
  if (change.cue === "restated") return restatements(sentence.text).some((restated) => restated.key === change.head && restated.value.norm === old.norm);
  if (change.head && near(sentence.text, old, change.head)) return true;
  const shared = [...change.attribute].filter((word) => !GENERIC.has(word) && sentence.tokens.has(word)).length;
  return shared >= (change.oldValue ? 1 : MIN_SHARED);
}

/** True when `word` (stemmed) is among the four words either side of the value. */
function near(text: string, value: StatedValue, word: string): boolean {
  return beside(text, value).includes(word);
}

/** The stemmed words up to four either side of a value. */
function beside(text: string, value: StatedValue): string[] {
  return [...tokenize(text.slice(0, value.at)).slice(-4), ...tokenize(text.slice(value.at + value.written.length)).slice(0, 4)];
}

function besideBoth(newText: string, value: StatedValue, oldText: string, old: StatedValue): boolean {
  const words = new Set(beside(newText, value).filter((word) => !GENERIC.has(word)));
  return beside(oldText, old).some((word) => words.has(word));
}

function reasonOf(change: ChangeStatement, old: string, label: string): string {
  if (change.ended) return `"${change.cue}" ${change.ended.join(" ")}: ends what ${label} said`;
  return `"${change.cue}": ${change.value?.written ?? ""} replaces ${old} (${label})`;
}
