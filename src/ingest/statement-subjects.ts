/**
 * Whom a statement is about, read from the word before its first verb: the speaker ("I moved to
 * Malmö", "Finally moved to Malmö!", "The deadline moved to April 5"), someone it names ("Dana moved
 * to Malmö", "My sister Anna lives in Oslo"), or someone it does not name ("She moved to Malmö", "My
 * sister lives in Oslo"). The rule builder's supersessions read a change and the statement it would
 * replace alike, so a change replaces only what was said of the same people, and a change of somebody
 * unnamed nothing.
 */
import { looksLikeVerb } from "../text/verb-shape.js";
import { escapeRegExp } from "../text/without-words.js";
import { mayBeName, RELATIONS } from "./names.js";

export type Subject = { kind: "speaker" } | { kind: "named"; names: string[] } | { kind: "unnamed" };

/** Where a clause begins: a statement's subject is read in its own clause ("I told Anna that I moved"). */
const CLAUSE_BREAK = /[,;:()]|\b(?:but|so|because|since|when|after|before|while|that|which|who|if)\b/giu;
const FIRST_PERSON = new Set(["i", "i'm", "i've", "i'd", "i'll", "we", "we're", "we've", "we'd", "we'll"]);
const THIRD_PERSON = new Set(["he", "she", "they", "he's", "she's", "they're", "they've", "he'd", "she'd", "they'd", "he'll", "she'll", "they'll"]);
const OTHERS = new Set<string>(RELATIONS);
/** Words after which a name is an object, not who did something ("the sessions with Jeremy got extended"). */
const PREPOSITIONS = new Set(["with", "for", "to", "at", "by", "from", "of", "about", "on", "in"]);

/**
 * The subject of the statement whose value stands at `at` in `sentence`. `persons` are the names the
 * builder found in the turn. When no word before a verb tells, the persons named before the value say
 * whom the statement is about, and when none is named it is the speaker's own.
 */
export function subjectBefore(sentence: string, at: number, persons: readonly string[]): Subject {
  const words = wordsOf(`${lastClause(sentence.slice(0, at))} ${firstWord(sentence.slice(at))}`);
  const verb = words.findIndex((word, index) => index > 0 && looksLikeVerb(word));
  const subject = verb > 0 ? subjectEndingAt(words, verb - 1) : undefined;
  if (subject) return subject;
  const named = persons.filter((person) => wholeWord(sentence.slice(0, at), person));
  return named.length ? { kind: "named", names: named } : { kind: "speaker" };
}

/** Whether a change of subject `change` is about the same people as a statement of subject `earlier`. */
export function sameSubject(change: Subject, earlier: Subject): boolean {
  if (change.kind === "unnamed" || earlier.kind === "unnamed") return false;
  if (change.kind === "speaker" || earlier.kind === "speaker") return change.kind === earlier.kind;
  const about = new Set(earlier.names.map((name) => name.toLowerCase()));
  return change.names.every((name) => about.has(name.toLowerCase()));
}

/** What the word at `end` (just before a verb) says of the subject, or undefined when it does not tell. */
function subjectEndingAt(words: readonly string[], end: number): Subject | undefined {
  const word = words[end] ?? "";
  const lower = word.toLowerCase();
  if (FIRST_PERSON.has(lower)) return { kind: "speaker" };
  if (THIRD_PERSON.has(lower) || OTHERS.has(lower)) return { kind: "unnamed" };
  const names = namesEndingAt(words, end);
  return names ? { kind: "named", names } : undefined;
}

/** The names that end at `end` ("Anna Berg", "Anna and Ben"), or undefined when they are an object ("with Jeremy"). */
function namesEndingAt(words: readonly string[], end: number): string[] | undefined {
  const names: string[] = [];
  let last = end;
  while (mayBeName(words[last] ?? "")) {
    let start = last;
    while (start > 0 && mayBeName(words[start - 1] ?? "")) start -= 1;
    names.unshift(words.slice(start, last + 1).map((name) => name.replace(/'s$/u, "")).join(" "));
    if ((words[start - 1] ?? "").toLowerCase() !== "and") return PREPOSITIONS.has((words[start - 1] ?? "").toLowerCase()) ? undefined : names;
    last = start - 2;
  }
  return names.length ? names : undefined;
}

function wordsOf(text: string): string[] {
  return text.replace(/’/g, "'").split(/[^\p{L}'\d]+/u).filter(Boolean);
}

function firstWord(text: string): string {
  return /^[\p{L}'’]+/u.exec(text.trimStart())?.[0] ?? "";
}

function lastClause(text: string): string {
  let start = 0;
  for (const match of text.matchAll(CLAUSE_BREAK)) start = match.index + match[0].length;
  return text.slice(start);
}

function wholeWord(text: string, name: string): boolean {
  return new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(name)}(?![\\p{L}\\p{N}])`, "iu").test(text);
}
