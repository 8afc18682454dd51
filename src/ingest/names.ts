/**
 * Rule-based name finding for the memory builder when no LLM runs: who is mentioned, which proper
 * names, codes and quantities appear, and a place when a clear pattern names one. Deliberately
 * modest: a wrong person or place becomes a wrong symbolic filter match, so only clear cases count.
 */
import { uniqueNames } from "../memory/entry.js";
import { ENGLISH_MONTHS, ENGLISH_WEEKDAYS } from "../time/calendar.js";

/** Capitalised words that begin sentences or fill greetings but are never names. */
const NOT_NAMES = new Set(
  [
    "i", "i'm", "i've", "i'll", "i'd", "ok", "okay", "hey", "hi", "hello", "yes", "yeah", "no", "oh", "wow", "thanks",
    "thank", "congrats", "congratulations", "bye", "sure", "well", "so", "and", "but", "or", "the", "a", "an", "it",
    "that", "this", "these", "those", "there", "here", "what", "when", "where", "who", "why", "how", "you", "your",
    "we", "our", "they", "he", "she", "my", "me", "mom", "dad", "god", "lol", "omg", "haha", "let's", "just", "also",
    "by", "on", "in", "at", "to", "for", "of", "with", "from", "as", "if", "is", "are", "was", "do", "did", "have", "had",
    "not", "love", "great", "good", "nice", "cool", "awesome", "amazing", "sounds", "glad", "sorry", "happy", "dear",
    "his", "him", "them", "their", "its", "everyone", "everybody", "someone", "somebody", "anyone", "anybody",
    "nobody", "everything", "something", "anything", "nothing", "finally", "recently", "actually", "officially",
    "eventually", "then", "now", "guess", "update", "news", "really",
  ],
);

const TIME_WORDS = new Set([
  ...ENGLISH_MONTHS.map((month) => month.toLowerCase()),
  ...["jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec"],
  ...ENGLISH_WEEKDAYS.map((weekday) => weekday.toLowerCase()),
  ...["mon", "tue", "tues", "wed", "thu", "thur", "thurs", "fri", "sat", "sun", "today", "tomorrow", "yesterday"],
]);

/** Who someone is to the speaker, or to whom the sentence names: "my sister", "his boss", "our neighbour". */
export const RELATIONS = [
  "friend", "friends", "buddy", "sister", "brother", "mom", "mother", "dad", "father", "son", "daughter", "wife",
  "husband", "partner", "boss", "manager", "colleague", "coworker", "co-worker", "cousin", "aunt", "uncle", "grandma",
  "grandmother", "grandpa", "grandfather", "niece", "nephew", "neighbor", "neighbour", "mentor", "teacher", "coach",
  "girlfriend", "boyfriend", "kid", "child",
] as const;

/**
 * Words after which a capitalised name is a person ("my sister Anna", "My sister Anna" as a sentence
 * begins, "Dr. Lee", "a dog named Max").
 * After "named" or "called" the name must stand alone: "a database called Cancer Gene Census" names a
 * thing, and its first word taken for a person made every claim that says "cancer" ask about someone.
 */
const PERSON_CUES = new RegExp(
  String.raw`\b(?:[Mm]y|[Oo]ur|[Hh]is|[Hh]er|[Tt]heir)\s+(?:${RELATIONS.join("|")})\s+([A-Z][\p{Ll}'’-]+)|` +
    String.raw`\b(?:Mr|Mrs|Ms|Dr|Prof)\.?\s+([A-Z][\p{Ll}'’-]+)|\b(?:named|called)\s+([A-Z][\p{Ll}'’-]+)(?![\p{Ll}'’-]|\s+\p{Lu})`,
  "gu",
);

/** A code: letters and digits joined by - or _ with at least one digit or two capitals (XYZ-100, ERR_1024, A320). */
const CODE = /(?<![\p{L}\p{N}_-])(?=[\p{L}\p{N}_-]*\d)[A-Za-z]*[A-Z][A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)+(?![\p{L}\p{N}_-])|(?<![\p{L}\p{N}_-])[A-Z]{1,6}\d{2,}[A-Z0-9]*(?![\p{L}\p{N}_-])|(?<![\p{L}\p{N}_-])[A-Z]{2,}_[A-Z0-9_]+(?![\p{L}\p{N}_-])/gu;
/** An acronym of capitals (LGBTQ, NASA), not a single letter. */
const ACRONYM = /(?<![\p{L}\p{N}_-])[A-Z]{2,}s?(?![\p{L}\p{N}_-])/gu;
/** A number with a unit or currency (10 km, $50, 25%, 3.5 hours, 500元). */
const QUANTITY =
  /(?:[$€£¥]\s?\d[\d,]*(?:\.\d+)?(?:\s?(?:k|m|million|billion))?)|(?<![A-Za-z0-9.])\d[\d,]*(?:\.\d+)?\s?(?:%|percent|km|kilometers?|kilometres?|miles?|kg|kilograms?|lbs?|pounds|meters?|metres?|feet|ft|hours?|hrs?|minutes?|mins?|days?|weeks?|months?|years?|dollars|euros|yuan|元|块|公里|小时|天|周|个月|年)(?![\p{L}])/gu;
/** A run of capitalised words (Harry Potter, New York), each possibly possessive. */
const CAPITALISED_RUN = /(?<![\p{L}\p{N}'’])[A-Z][\p{Ll}]+(?:['’]s)?(?:\s+(?:of\s+the\s+|of\s+|de\s+)?[A-Z][\p{Ll}]+(?:['’]s)?)*/gu;
/** "in/at/to/from/near <Place>": the clearest English place pattern. */
const PLACE_AFTER_PREPOSITION =
  /\b(?:in|at|from|near|visit|visited|visiting|(?:go|goes|going|went|gone|moved|move|moving|trip|flew|fly|flying|drove|travel(?:l)?ed|travel(?:l)?ing|back|road trip|vacation|holiday)\s+to)\s+((?:[A-Z][\p{Ll}]+)(?:\s+[A-Z][\p{Ll}]+){0,2})(?![\p{L}\p{N}])/gu;
/** Well-known Chinese place names, found where no word boundaries exist. */
const CHINESE_PLACES = [
  "北京", "上海", "广州", "深圳", "杭州", "南京", "成都", "重庆", "武汉", "西安", "天津", "苏州", "厦门", "青岛",
  "香港", "澳门", "台北", "东京", "大阪", "首尔", "新加坡", "柏林", "伦敦", "巴黎", "纽约", "旧金山", "硅谷",
];

export interface FoundNames {
  persons: string[];
  entities: string[];
  location?: string;
}

/** The participant a word names (whole name, first name or a nickname starting it), if any. */
type ParticipantLookup = (word: string) => string | undefined;

/**
 * Names in `text`. `participants` are the conversation's known people: they are recognised anywhere
 * (even at the start of a sentence) and by a nickname that starts their name ("Mel" for Melanie).
 */
export function findNames(text: string, participants: readonly string[] = []): FoundNames {
  const persons = new NameSet();
  const entities = new NameSet();
  const participantFor = participantLookup(participants);
  addCuedPersons(text, participantFor, persons);
  addCapitalisedNames(text, participantFor, persons, entities);
  addCodesAndQuantities(text, entities);
  const location = findLocation(text, (word) => participantFor(word) !== undefined || persons.has(word));
  const result: FoundNames = { persons: persons.values(), entities: entities.values().filter((name) => !persons.has(name)) };
  if (location) result.location = location;
  return result;
}

function participantLookup(participants: readonly string[]): ParticipantLookup {
  return (word) => {
    const lower = word.toLowerCase();
    for (const name of participants) {
      const first = name.split(/\s+/)[0]?.toLowerCase() ?? "";
      if (lower === name.toLowerCase() || lower === first) return name;
      if (lower.length >= 3 && first.length > lower.length && first.startsWith(lower)) return name;
    }
    return undefined;
  };
}

/** "my sister Anna", "Dr. Lee", "a dog named Max". */
function addCuedPersons(text: string, participantFor: ParticipantLookup, persons: NameSet): void {
  for (const match of text.matchAll(PERSON_CUES)) {
    const name = stripPossessive(match[1] ?? match[2] ?? match[3] ?? "");
    if (name && !isNotName(name)) persons.add(participantFor(name) ?? name);
  }
}

/** Runs of capitalised words: a participant is a person, any other name an entity. */
function addCapitalisedNames(text: string, participantFor: ParticipantLookup, persons: NameSet, entities: NameSet): void {
  for (const match of text.matchAll(CAPITALISED_RUN)) {
    const words = match[0].split(/\s+/).map(stripPossessive);
    // A lone capitalised word opening a sentence is an opener, not a name, unless what people do follows
    // it ("Dana moved") and it is no -ing word ("Winning felt great").
    const subject = peopleDoAfter(text, match.index + match[0].length) && !/ing$/u.test(match[0]);
    const named = nameOfRun(words, isSentenceStart(text, match.index) && !subject, participantFor);
    if (named?.kind === "person") persons.add(named.name);
    else if (named && !persons.has(named.name)) entities.add(named.name);
  }
}

/**
 * Verbs whose subject is a person ("Dana moved to Malmö", "Anna told me"), not those a study's or a
 * thing's subject takes too ("Results showed", "Cells treated with...", "Spotify opened"): a word
 * opening a sentence before one of them is a name.
 */
const PEOPLE_DO = new Set([
  "said", "says", "told", "tells", "asked", "asks", "replied", "moved", "moves", "lives", "lived", "loves", "loved",
  "likes", "liked", "hates", "hated", "wants", "wanted", "thinks", "thought", "met", "meets", "visited", "visits",
  "married", "texted", "called", "mentioned", "decided", "hopes", "hoped", "feels", "felt", "knows", "knew",
  "adopted", "graduated", "joined", "went", "bought", "works", "worked", "studied", "plays", "played",
]);
/** Adverbs that may stand between a person and what they do ("Dana finally moved"). */
const BETWEEN = new Set(["just", "finally", "recently", "also", "never", "still", "always", "really", "once"]);

/** Whether the words starting at `index` say what a person does. */
function peopleDoAfter(text: string, index: number): boolean {
  const [first = "", second = ""] = text.slice(index).trimStart().split(/[^\p{L}'’]+/u, 2);
  return PEOPLE_DO.has(first) || (BETWEEN.has(first) && PEOPLE_DO.has(second));
}

/** What one capitalised run names, once sentence openers, non-names and time words are dropped. */
function nameOfRun(
  words: readonly string[],
  atSentenceStart: boolean,
  participantFor: ParticipantLookup,
): { kind: "person" | "entity"; name: string } | undefined {
  // A lone participant name or nickname is a person wherever it stands.
  const lone = words.length === 1 ? participantFor(words[0] ?? "") : undefined;
  if (lone) return { kind: "person", name: lone };
  // Drop a leading sentence-opening word ("Thanks Mel" keeps Mel) and any leading non-name.
  let start = 0;
  while (start < words.length && (isNotName(words[start] ?? "") || (start === 0 && atSentenceStart && words.length === 1))) start += 1;
  const kept = words.slice(start).filter((word) => !TIME_WORDS.has(word.toLowerCase()));
  if (kept.length === 0) return undefined;
  const participant = kept.length === 1 ? participantFor(kept[0] ?? "") : undefined;
  return participant ? { kind: "person", name: participant } : { kind: "entity", name: kept.join(" ") };
}

function addCodesAndQuantities(text: string, entities: NameSet): void {
  for (const match of text.matchAll(CODE)) entities.add(match[0]);
  for (const match of text.matchAll(ACRONYM)) if (!NOT_NAMES.has(match[0].toLowerCase())) entities.add(match[0]);
  for (const match of text.matchAll(QUANTITY)) {
    const quantity = match[0].replace(/\s+/g, " ").trim();
    // "2026年" is a year, not an amount.
    if (!/^\d{4}\s?年$/.test(quantity)) entities.add(quantity);
  }
}

/** The first clearly named place, or undefined. */
export function findLocation(text: string, isPerson: (name: string) => boolean = () => false): string | undefined {
  for (const match of text.matchAll(PLACE_AFTER_PREPOSITION)) {
    const words = (match[1] ?? "").split(/\s+/);
    const kept: string[] = [];
    for (const word of words) {
      if (TIME_WORDS.has(word.toLowerCase()) || isNotName(word)) break;
      kept.push(word);
    }
    const place = kept.join(" ");
    if (place && !isPerson(place) && !isPerson(kept[0] ?? "")) return place;
  }
  let best: { place: string; index: number } | undefined;
  for (const place of CHINESE_PLACES) {
    const index = text.indexOf(place);
    if (index >= 0 && (!best || index < best.index)) best = { place, index };
  }
  return best?.place;
}

/**
 * Interjections and fillers ("Hey", "Wow", "Thanks", "gonna"): content words to a tokenizer, noise as
 * keywords of a chat turn, where nearly every entry would carry them.
 */
const FILLER_WORDS = new Set([
  "hey", "hi", "hello", "wow", "thanks", "thank", "yeah", "yep", "yup", "yes", "no", "nope", "ok", "okay", "oh", "ah",
  "aw", "aww", "haha", "hahaha", "lol", "omg", "gonna", "wanna", "gotta", "kinda", "sorta", "so", "really", "congrats",
  "bye", "cheers", "hmm", "um", "uh", "btw",
]);

/** Keywords without interjections and fillers. */
export function withoutFillers(words: readonly string[]): string[] {
  return words.filter((word) => !FILLER_WORDS.has(word.toLowerCase()));
}

/** Whether a capitalised word may name someone: not an opener, pronoun or filler, nor a month, weekday or day word. */
export function mayBeName(word: string): boolean {
  return /^\p{Lu}\p{Ll}/u.test(word) && !isNotName(word.replace(/['’](?:s|ve|re|ll|d|m)$/u, "")) && !TIME_WORDS.has(word.toLowerCase());
}

function isNotName(word: string): boolean {
  return NOT_NAMES.has(word.toLowerCase());
}

function stripPossessive(word: string): string {
  return word.replace(/['’]s$/u, "");
}

/** True when `index` begins a sentence: start of text, or after . ! ? or a line break (quotes and brackets skipped). */
function isSentenceStart(text: string, index: number): boolean {
  const before = text.slice(0, index).replace(/["'“‘(\[\s]+$/u, "");
  return before === "" || /[.!?…\n:;]$/u.test(before);
}

/**
 * Case-insensitive set keeping the first spelling seen: uniqueNames (memory/entry.ts) built up one
 * name at a time, for findNames, which asks `has` while it scans.
 */
class NameSet {
  private readonly names = new Map<string, string>();
  add(name: string): void {
    const trimmed = name.trim();
    if (trimmed && !this.names.has(trimmed.toLowerCase())) this.names.set(trimmed.toLowerCase(), trimmed);
  }
  has(name: string): boolean {
    return this.names.has(name.trim().toLowerCase());
  }
  values(): string[] {
    return [...this.names.values()];
  }
}

/**
 * The family names of codes: "XYZ" for XYZ-100, "ERR" for ERR_1024. The tokenizer keeps codes whole,
 * so without these a question about "product XYZ" could not meet an entry that only says XYZ-100.
 */
export function codeFamilies(names: readonly string[]): string[] {
  return uniqueNames(names.flatMap((name) => /^([A-Za-z]{2,})[-_]\d/.exec(name.trim())?.[1] ?? []));
}
