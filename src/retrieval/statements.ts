/**
 * What a memory's text states about an attribute, read by rules: the values it gives (dates, times,
 * amounts with their unit, names), the changes it announces ("moved to", "changed to", "no longer",
 * "instead of", 不再 / 改成 / 搬到...), the attributes it restates ("my deadline is April 5") and the
 * claims it denies ("I have never used Flask-Login"). The rule memory builder links a change to the
 * memory it replaces with these; retrieval marks two memories that disagree with them.
 *
 * Precision before recall: a wrong supersession hides a true memory behind another. So only explicit
 * forms are read, a sentence that hedges ("if", "might", "thinking of") or asks a yes/no question
 * announces nothing, and a value is only ever compared with one of its own kind.
 */
import { tokenize } from "../text/tokenizer.js";

/** A value a sentence gives: its kind, a normalised form to compare, and the words as written. */
export interface StatedValue {
  kind: "date" | "time" | "amount" | "name";
  /** Comparable form: "april 5 11am", "1200 call", "malmö". */
  norm: string;
  written: string;
  /** Where it starts in its sentence. */
  at: number;
}

/** The explicit forms of change the rules read. */
export type ChangeCue = "changed to" | "moved to" | "new" | "from ... to" | "no longer" | "instead of" | "restated" | "不再" | "改成" | "搬到";

/** A change one sentence announces. */
export interface ChangeStatement {
  cue: ChangeCue;
  sentence: string;
  /** Stemmed content words of the sentence outside its values: what changed. */
  attribute: ReadonlySet<string>;
  /** The noun the new value belongs to, when the form names it ("the new deadline of ...", "my deadline is ..."). */
  head?: string;
  /** The new value; absent for "no longer" and 不再, which only end something. */
  value?: StatedValue;
  /** The old value, when the sentence names it ("from 70% to 90%", "Vue instead of React"). */
  oldValue?: StatedValue;
  /** What no longer holds ("no longer", 不再): its stemmed content words, or its characters for Chinese. */
  ended?: readonly string[];
}

const MONTH = "(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)";
const CLOCK = String.raw`\d{1,2}(?::\d{2})?\s?(?:[ap]\.?m\.?)|\d{1,2}:\d{2}`;
// A day of a month ("April 5", "5 April", 2024-04-05) with its time of day when one follows, or a time of day alone ("3 PM").
const DATE = String.raw`(?:(?:${MONTH}\.?\s\d{1,2}(?!\d)(?:st|nd|rd|th)?(?:,?\s\d{4})?|\d{1,2}(?:st|nd|rd|th)?\s${MONTH}(?:,?\s\d{4})?|\d{4}-\d{2}-\d{2})(?:,?\s(?:at\s)?(?:${CLOCK}))?|\b(?:${CLOCK})(?![\p{L}\d]))`;
const AMOUNT = String.raw`[$€£¥]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:\s?(?:%|ms|s\b|k\b|x\b|percent\b))?`;
/** Latin proper names: capitalised words (Malmö, New York, Flask-Login), or a code (v2.5, XYZ-100). */
const NAME_WORD = String.raw`[A-Z][\p{L}\d+#-]*(?:\.[\p{L}\d]+)*`;
const NAME = String.raw`(?:${NAME_WORD}(?:\s${NAME_WORD}){0,2})`;
/** Chinese values after 改成 / 搬到: a run of Han letters, Latin letters or digits. */
const HAN_VALUE = String.raw`[\p{Script=Han}A-Za-z0-9.:：]{1,12}`;

const DATE_RE = new RegExp(DATE, "giu");
const AMOUNT_RE = new RegExp(String.raw`(?<![\p{L}\d.])${AMOUNT}`, "giu");
/** Words an amount's unit is never: an amount followed by one of them has no unit. */
const NOT_UNITS = new Set(["and", "or", "to", "of", "in", "on", "at", "for", "by", "with", "from", "the", "a", "an", "per", "is", "are", "was", "were", "after", "before", "so", "but", "which", "that"]);

/** A sentence that asks whether, or only supposes: announces nothing. */
const HEDGE = /\b(?:if|whether|might|maybe|perhaps|should i|thinking (?:of|about)|considering|planning|plan to|want(?:s|ed)? to|would like|hope|wish)\b|如果|是否|可能|打算|考虑/iu;
/** A yes/no question opens with its verb ("Has the deadline moved?"); a request ("Can you...") may still state facts. */
const YES_NO_QUESTION = /^(?:has|have|is|are|was|were|did|does|do|should|will|shall)\b/iu;

/**
 * The text's sentences (also split at line breaks), trimmed, the empty ones dropped. Code (fenced or
 * inline) and lines of a table or formula are not sentences: their numbers are no one's attributes.
 */
export function sentencesOf(text: string): string[] {
  return text
    .replace(/```[\s\S]*?(?:```|$)|`[^`\n]*`/g, "\n")
    .split(/\n+/)
    // A list item or heading enumerates or explains; a person's own facts are told in prose.
    .filter((line) => !/[=|{}]|<\/?[a-z]/i.test(line) && !/^\s*(?:[-*•#>]|\d+[.)])/u.test(line))
    .join("\n")
    .split(/(?<=[.!?。！？；;])\s+|(?<=[。！？；])|\n+/u)
    .map((sentence) => sentence.trim())
    .filter(Boolean);
}

/** Dates (with a time of day when one follows), then amounts outside them, then nothing else: names are read only where a form asks for one. */
export function valuesIn(sentence: string): StatedValue[] {
  const values: StatedValue[] = [];
  const taken: Array<[number, number]> = [];
  for (const match of sentence.matchAll(DATE_RE)) {
    // A time of day alone is compared only with another: "4 PM" does not replace "June 30".
    const kind = /^\d{1,2}(?::\d{2})?\s?(?:[ap]\.?m\.?)?$/i.test(match[0].trim()) ? "time" : "date";
    values.push({ kind, norm: normalizeDate(match[0]), written: match[0], at: match.index });
    taken.push([match.index, match.index + match[0].length]);
  }
  for (const match of sentence.matchAll(AMOUNT_RE)) {
    const start = match.index;
    if (taken.some(([from, to]) => start >= from && start < to)) continue;
    // A bare year or a version number is not an amount that changes.
    if (/^(?:19|20)\d\d$/.test(match[0]) || /^\d+\.\d+\.\d+/.test(match[0])) continue;
    const number = normalizeNumber(match[0]);
    // The unit is whatever is not the number: a currency, a sign after it, or the noun that follows.
    const unit = [number.replace(/[\d.]/g, ""), unitAfter(sentence, start + match[0].length)].filter(Boolean).join(" ");
    values.push({ kind: "amount", norm: [number.replace(/[^\d.]/g, ""), unit].filter(Boolean).join(" "), written: match[0], at: start });
  }
  return values.sort((a, b) => a.at - b.at);
}

function normalizeDate(text: string): string {
  return text
    .toLowerCase()
    .replace(/(\d)(?:st|nd|rd|th)\b/g, "$1")
    .replace(/[.,]|\bat\b/g, " ")
    .replace(/\s+/g, "")
    .replace(/^(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*/, "$1");
}

function normalizeNumber(text: string): string {
  return text.toLowerCase().replace(/,/g, "").replace(/\s+/g, "").replace("percent", "%");
}

/** The stemmed noun right after an amount ("8 cards" -> card), when there is one. */
function unitAfter(sentence: string, end: number): string | undefined {
  const word = /^\s+([a-z][a-z-]*)/i.exec(sentence.slice(end))?.[1]?.toLowerCase();
  if (!word || NOT_UNITS.has(word)) return undefined;
  return tokenize(word)[0];
}

/** The first value at the very start of `text` (after spaces), of any kind; a name only when `names`. */
function valueAtStart(text: string, offset: number, names: boolean): StatedValue | undefined {
  const lead = text.length - text.trimStart().length;
  const found = valuesIn(text).find((value) => value.at === lead);
  if (found) return { ...found, at: found.at + offset };
  if (!names) return undefined;
  const name = new RegExp(`^\\s*(${NAME})`, "u").exec(text)?.[1];
  return name ? nameValue(name, offset + lead) : undefined;
}

function nameValue(written: string, at: number): StatedValue {
  return { kind: "name", norm: written.toLowerCase(), written, at };
}

/** Stemmed content words of a sentence, its values' own words left out. */
export function attributeWords(sentence: string, values: readonly StatedValue[] = valuesIn(sentence)): Set<string> {
  let rest = sentence;
  for (const value of values) rest = rest.replace(value.written, " ");
  return new Set(tokenize(rest).filter((token) => !/\d/.test(token)));
}

const CHANGE_VERB =
  "(?:changed|changing|moved|moving|switched|updated|adjusted|increased|decreased|improved|grown|grew|risen|rose|dropped|reduced|raised|lowered|extended|rescheduled|postponed|pushed(?: back)?|bumped|shifted|gone (?:up|down)|went (?:up|down))";
const CHANGED_TO = new RegExp(String.raw`\b${CHANGE_VERB}\b[^.!?;]{0,80}?\bto\b`, "giu");
const REACHED = /\b(?:has|have)?\s*(?:now\s+)?(?:reached|now (?:at|totals?|stands? at))\b/giu;
const FROM_TO = new RegExp(String.raw`\b${CHANGE_VERB}\b[^.!?;]{0,60}?\bfrom\b`, "giu");
const NEW_OF = /\bnew ((?:[\p{L}-]+ ){0,3}?[\p{L}-]+) (?:of|is|:)(?=\s)/giu;
const NEW_VALUE_NOUN = /\bnew(?=\s)/giu;
const NO_LONGER = /\b(?:no longer|not any ?more)\s+(?!than\b)/giu;
const INSTEAD_OF = /\binstead of\s+(?:the\s+)?/giu;
const RESTATED = /\b(?:my|our|the|his|her|their)\s+((?:[\p{L}-]+ ){0,3}?[\p{L}-]+)\s+(?:is|are|was|will be|has been)\s+(?:now\s+|still\s+)?(?:set (?:to|for)\s+|scheduled (?:for|on)\s+|on\s+|at\s+)?/giu;
const HAN_CHANGE = /(改成|改为|换成|变成|调整为|调整到|推迟到|延期到)/gu;
const HAN_MOVE = /(搬到|搬去|搬家到)/gu;
const HAN_ENDED = /不再/gu;

/** Every explicit change the text announces, sentence by sentence. */
export function changeStatements(text: string): ChangeStatement[] {
  return sentencesOf(text).flatMap(changesInSentence);
}

function changesInSentence(sentence: string): ChangeStatement[] {
  if (HEDGE.test(sentence) || YES_NO_QUESTION.test(sentence)) return [];
  const values = valuesIn(sentence);
  const attribute = attributeWords(sentence, values);
  const found: ChangeStatement[] = [];
  const add = (statement: Omit<ChangeStatement, "sentence" | "attribute">) => found.push({ sentence, attribute, ...statement });
  for (const match of sentence.matchAll(FROM_TO)) {
    const after = match.index + match[0].length;
    const old = valueAtStart(sentence.slice(after), after, true);
    const to = old && /^\s*to\s/u.exec(sentence.slice(old.at + old.written.length));
    const value = old && to ? valueAtStart(sentence.slice(old.at + old.written.length + to[0].length), old.at + old.written.length + to[0].length, true) : undefined;
    if (old && value && old.kind === value.kind) add({ cue: "from ... to", value, oldValue: old });
  }
  for (const match of sentence.matchAll(CHANGED_TO)) {
    // Only "moved to <Name>" itself says where someone went; "moved the call to Michael" does not.
    const moved = /^mov\w*\s+to$/i.test(match[0]);
    const value = valueAtStart(sentence.slice(match.index + match[0].length), match.index + match[0].length, moved);
    if (value && !found.some((statement) => statement.value?.at === value.at)) add({ cue: moved && value.kind === "name" ? "moved to" : "changed to", value });
  }
  for (const match of sentence.matchAll(REACHED)) {
    const value = valueAtStart(sentence.slice(match.index + match[0].length), match.index + match[0].length, false);
    if (value) add({ cue: "changed to", value });
  }
  for (const match of sentence.matchAll(NEW_OF)) {
    const end = match.index + match[0].length;
    const value = valueAtStart(sentence.slice(end), end, false);
    const head = lastToken(match[1] ?? "");
    if (value && head) add({ cue: "new", value, head });
  }
  for (const match of sentence.matchAll(NEW_VALUE_NOUN)) {
    const end = match.index + match[0].length;
    const value = valueAtStart(sentence.slice(end), end, false);
    const head = value && tokenize(/^\s*([\p{L}-]+)/u.exec(sentence.slice(value.at + value.written.length))?.[1] ?? "")[0];
    if (value && head && value.kind === "date") add({ cue: "new", value, head });
  }
  found.push(...endings(sentence, attribute), ...insteadOf(sentence, attribute, values), ...chineseChanges(sentence, attribute));
  return found;
}

function lastToken(phrase: string): string | undefined {
  return tokenize(phrase).at(-1);
}

/** "no longer X", 不再X: what X says no longer holds. Needs two content words (or two Han characters), or it says too little to match. */
function endings(sentence: string, attribute: ReadonlySet<string>): ChangeStatement[] {
  const found: ChangeStatement[] = [];
  for (const match of sentence.matchAll(NO_LONGER)) {
    const phrase = clause(sentence.slice(match.index + match[0].length));
    const ended = tokenize(phrase).slice(0, 4);
    if (ended.length >= 2) found.push({ cue: "no longer", sentence, attribute, ended });
  }
  for (const match of sentence.matchAll(HAN_ENDED)) {
    const phrase = /^[\p{Script=Han}]{2,8}/u.exec(sentence.slice(match.index + match[0].length))?.[0];
    if (phrase) found.push({ cue: "不再", sentence, attribute, ended: [...phrase.slice(0, 4)] });
  }
  return found;
}

/** "Vue instead of React": React was the value, Vue is; only names and values, never common words. */
function insteadOf(sentence: string, attribute: ReadonlySet<string>, values: readonly StatedValue[]): ChangeStatement[] {
  const found: ChangeStatement[] = [];
  for (const match of sentence.matchAll(INSTEAD_OF)) {
    const end = match.index + match[0].length;
    const oldValue = valueAtStart(sentence.slice(end), end, true);
    if (!oldValue) continue;
    const before = sentence.slice(0, match.index);
    const names = [...before.matchAll(new RegExp(`(?<![\\p{L}])${NAME}`, "gu"))].filter((name) => name.index > 0);
    const lastName = names.at(-1);
    const value = values.filter((candidate) => candidate.at < match.index && candidate.kind === oldValue.kind).at(-1) ?? (lastName && oldValue.kind === "name" ? nameValue(lastName[0], lastName.index) : undefined);
    if (value && value.norm !== oldValue.norm) found.push({ cue: "instead of", sentence, attribute, value, oldValue });
  }
  return found;
}

function chineseChanges(sentence: string, attribute: ReadonlySet<string>): ChangeStatement[] {
  const found: ChangeStatement[] = [];
  const read = (pattern: RegExp, cue: ChangeCue) => {
    for (const match of sentence.matchAll(pattern)) {
      const end = match.index + match[0].length;
      // A particle closing the clause (了, 啦...) is not part of the place or value.
      const written = valueAtStart(sentence.slice(end), end, true)?.written ?? new RegExp(`^${HAN_VALUE}`, "u").exec(sentence.slice(end))?.[0]?.replace(/[了啦吧呢啊的]+$/u, "");
      if (written) found.push({ cue, sentence, attribute, value: { kind: "name", norm: written.toLowerCase(), written, at: end } });
    }
  };
  read(HAN_CHANGE, "改成");
  read(HAN_MOVE, "搬到");
  return found;
}

/** The words of `text` up to the end of its clause (a comma, "and", "or", "but", "because"...). */
function clause(text: string): string {
  return text.split(/[,;:.!?，。；]|\s(?:and|or|but|because|since|so|which|while)\s/u)[0] ?? "";
}

/** An attribute a sentence gives a value outright ("my deadline is April 5"): its head noun's words and the value. */
export interface Restatement {
  /** The attribute's stemmed words, joined: "sprint deadlin". */
  key: string;
  value: StatedValue;
  sentence: string;
}

/** Every "my / our / the <attribute> is <value>" of the text. */
export function restatements(text: string): Restatement[] {
  const found: Restatement[] = [];
  for (const sentence of sentencesOf(text)) {
    if (HEDGE.test(sentence) || YES_NO_QUESTION.test(sentence)) continue;
    for (const match of sentence.matchAll(RESTATED)) {
      const end = match.index + match[0].length;
      const value = valueAtStart(sentence.slice(end), end, true);
      const key = tokenize(match[1] ?? "").join(" ");
      if (value && key) found.push({ key, value, sentence });
    }
  }
  return found;
}

/** A claim the text denies outright ("never", "no longer", 从来没, 不再): the denied words. */
export interface Denial {
  /** Stemmed content words of the denied clause, or its Han characters. */
  words: readonly string[];
  /** Those of `words` written as names or codes ("Flask-Login", "v0.6.2"): what the denial is about. */
  names: readonly string[];
  sentence: string;
}

const NEVER = /\b(?:never|no longer)\s+(?:(?:ever|actually|really|yet|been|had|have|once|even)\s+)*/giu;
const HAN_NEVER = /(?:从来没有?|从没有?|从未|不再)/gu;

/**
 * The claims the text denies. A denial counts only when its clause names something particular: a
 * capitalised name or a code among at least two content words ("never used Flask-Login"), so "never
 * mind" or "never been happier" deny nothing.
 */
export function denials(text: string): Denial[] {
  const found: Denial[] = [];
  for (const sentence of sentencesOf(text)) {
    for (const match of sentence.matchAll(NEVER)) {
      const phrase = clause(sentence.slice(match.index + match[0].length));
      const words = tokenize(phrase).slice(0, 5);
      const names = phrase.split(/\s+/).filter((word) => /^(?:[A-Z]|[\p{L}-]*\d)/u.test(word)).flatMap((word) => tokenize(word));
      if (words.length >= 2 && names.length) found.push({ words, names: names.filter((name) => words.includes(name)), sentence });
    }
    for (const match of sentence.matchAll(HAN_NEVER)) {
      const phrase = /^[\p{Script=Han}A-Za-z0-9-]{2,10}/u.exec(sentence.slice(match.index + match[0].length))?.[0];
      if (!phrase) continue;
      const words = [...phrase.replace(/^[过用]/u, "")].slice(0, 6);
      found.push({ words, names: words, sentence });
    }
  }
  return found;
}

/** True when the sentence itself denies or negates something: it cannot be the positive side of a denial. */
export function isNegative(sentence: string): boolean {
  return /\b(?:never|no longer|not|no|n't|without)\b|n't\b|没|不|未/iu.test(sentence);
}

/** True when `sentence` (its tokens given when the caller has them) says every one of `words` (stemmed tokens, or Han characters). */
export function says(sentence: string, words: readonly string[], tokens: ReadonlySet<string> = new Set(tokenize(sentence))): boolean {
  return words.every((word) => tokens.has(word) || (/\p{Script=Han}/u.test(word) && sentence.includes(word)));
}

/**
 * True when `sentence` says what `denial` denies: every name or code it denies, and at least half of
 * its other words ("never written any Flask routes" is contradicted by "a homepage route with Flask").
 */
export function contradicts(sentence: string, denial: Denial, tokens: ReadonlySet<string> = new Set(tokenize(sentence))): boolean {
  const others = denial.words.filter((word) => !denial.names.includes(word));
  const said = others.filter((word) => says(sentence, [word], tokens)).length;
  return says(sentence, denial.names, tokens) && said * 2 >= others.length;
}
