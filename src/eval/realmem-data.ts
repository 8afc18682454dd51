import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { parseOrThrow, ValidationError } from "../core/errors.js";
import { MAX_QUESTION_CHARS } from "../graph/state.js";
import { parseDialogue, type Dialogue, type DialogueTurn } from "../ingest/dialogue.js";
import { parseJson } from "../ingest/json-text.js";
import { parseIsoTimestamp } from "../memory/entry.js";
import { messageParts, partTurnId } from "./dialogue-corpus.js";

/**
 * Reading RealMem (RealMemBench; ../shared/data/realmem/README.md): one file per persona,
 *
 *     {_metadata: {person_name}, dialogues: [{session_uuid, current_time, dialogue_turns: [...], extracted_memory: [...]}]}
 *
 * A question is a user turn with `is_query: true`; the assistant turn after it names the sessions its
 * answer needs (`memory_session_uuids`) and quotes the memories it used (`memory_used`, each an
 * `extracted_memory` entry of its session, whose `source_turn` is the turn it came from). Sessions are
 * read in file order: the benchmark's own harness walks them so, every evidence session of the five
 * personas here precedes its question in that order, and dates do not always (one persona's file steps
 * back in date 46 times, and sorting it by date would put 5 evidence sessions after their question).
 * A message's time is its session's start plus one second per message, as BEAM's are. A session starts
 * at its date, or, where sessions before it in the file give the same date (a third of them here, up to
 * 35 on one day), a minute after the last of those ended: said at the same seconds, two sessions' turns
 * would be each other's neighbours in time, which the context votes read as one exchange.
 */

/** Between the end of a session and the start of the next one given the same date. */
const SAME_DATE_GAP_MS = 60_000;

/** How a persona file is named: `<Person>_dialogues_256k.json`. */
const PERSONA_FILE = /_dialogues_[^/\\]*\.json$/i;

const MemoryUsedSchema = z.looseObject({
  session_uuid: z.string().describe("the session the memory was extracted from"),
  content: z.string().describe("the memory, as that session's extracted_memory states it"),
});

const TurnSchema = z.looseObject({
  speaker: z.string().trim().min(1, "must not be empty").describe("who spoke: User or Assistant"),
  content: z.string().describe("what was said"),
  is_query: z.boolean().nullish().describe("true on a user turn that is a question of the benchmark"),
  category_name: z.string().nullish().describe("a question's kind, e.g. Dynamic Incremental"),
  memory_session_uuids: z.array(z.string()).nullish().describe("on the assistant turn after a question: the earlier sessions its answer needs"),
  memory_used: z.array(MemoryUsedSchema).nullish().describe("on the assistant turn after a question: the memories its answer used"),
});

const ExtractedMemorySchema = z.looseObject({
  content: z.string().describe("the memory"),
  source_turn: z.number().int().describe("the place in dialogue_turns of the turn it was taken from (counted from 1 in some sessions, from 0 in others)"),
  source_content_snapshot: z.string().nullish().describe("the text of that turn"),
});

const SessionSchema = z.looseObject({
  session_uuid: z.string().trim().min(1, "must not be empty").describe("the session's id, as memory_session_uuids name it"),
  current_time: z.string().describe('the session\'s date, e.g. "2025-12-28 (Sunday)"'),
  dialogue_turns: z.array(TurnSchema).describe("the session's turns, in order"),
  extracted_memory: z.array(ExtractedMemorySchema).nullish().describe("memories extracted from the session's turns"),
});

const PersonaSchema = z.looseObject({
  _metadata: z.looseObject({ person_name: z.string().trim().min(1, "must not be empty").describe("whose sessions these are") }).describe("about the file"),
  dialogues: z.array(SessionSchema).min(1, "a persona needs at least one session").describe("the persona's sessions, in the order they took place"),
});

type SessionData = z.output<typeof SessionSchema>;

export interface RealmemSession {
  uuid: string;
  /** Place in the file, from 0: the order sessions are written in. */
  index: number;
  /** When the session starts, ISO 8601: its date (midnight UTC when it gives no time), later when earlier sessions share that date. */
  time: string;
  /** One turn per message (parts for one longer than a memory may be), turn ids `UUID:N` (N its place in dialogue_turns, from 0); absent when it has none. */
  dialogue?: Dialogue;
  /** Messages longer than a memory may be, written as several turns (`UUID:N#1`, `UUID:N#2`, ...). */
  splitMessages: number;
}

/** What became of the evidence a question's answer names. */
export interface EvidenceTally {
  /** Evidence sessions that are the asking session or come after it: not memory when the question is asked, so left out. */
  sessionsNotBefore: number;
  /** `memory_used` items from sessions before the question. */
  memories: number;
  /** ... of which no `extracted_memory` of their session has the same content. */
  memoriesUnmatched: number;
  /** ... of which the source turn could not be found (no source turn given, or neither reading of it holds the snapshot's text). */
  memoriesWithoutTurn: number;
}

export interface RealmemQuestion {
  /** `persona:session:turn`, unique in a run. */
  id: string;
  persona: string;
  /** The asking session's place in the file. */
  sessionIndex: number;
  kind: string;
  /** The user turn's text, cut to the longest question a retrieval takes. */
  question: string;
  truncated: boolean;
  /** The asking session's date: the question's reference time. */
  askedAt: string;
  /** Evidence sessions before the question, de-duplicated, in the order given. */
  sessions: string[];
  /** Evidence turns (`UUID:N`) of the memories used, de-duplicated. */
  turns: string[];
  tally: EvidenceTally;
  /** Why it cannot be asked (no answer after it, an evidence session the file lacks, no text); absent when it can. */
  skipped?: string;
}

export interface RealmemPersona {
  name: string;
  file: string;
  sessions: RealmemSession[];
  /** Every question, in file order. */
  questions: RealmemQuestion[];
  /** Sessions whose date is earlier than the one before them in the file. */
  datesOutOfOrder: number;
}

/** Reads a persona file, or every persona file (`*_dialogues_*.json`) of a folder, in name order. */
export async function readRealmem(target: string): Promise<RealmemPersona[]> {
  const info = await stat(target).catch(() => undefined);
  if (!info) throw new ValidationError("path", `no such file or folder: ${target}`);
  if (!info.isDirectory()) return [readPersona(await readText(target), path.basename(target))];
  const files = await personaFiles(target);
  if (files.length === 0) throw new ValidationError("path", `${target} holds no RealMem persona file (<Person>_dialogues_256k.json)`);
  const personas: RealmemPersona[] = [];
  for (const file of files) personas.push(readPersona(await readText(path.join(target, file)), file));
  return personas;
}

/** Whether a folder holds RealMem persona files (what `eval` detects). */
export async function isRealmemFolder(folder: string): Promise<boolean> {
  return (await personaFiles(folder)).length > 0;
}

/** Whether parsed JSON is a RealMem persona file: an object with `dialogues` and `_metadata` (what `eval` detects). */
export function isRealmemJson(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value) && "dialogues" in value && "_metadata" in value;
}

async function personaFiles(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isFile() && PERSONA_FILE.test(entry.name))
    .map((entry) => entry.name)
    .sort();
}

/** One persona file's text as sessions and questions; errors name the file and the field. */
export function readPersona(text: string, file: string): RealmemPersona {
  const data = parseOrThrow(PersonaSchema, parseJson(text), file);
  const name = data._metadata.person_name;
  const indexOf = sessionIndexes(data.dialogues, file);
  const sessions = readSessions(data.dialogues, file);
  const personaIndex = { name, indexOf, sessions: data.dialogues };
  const questions = data.dialogues.flatMap((session, index) => sessionQuestions(session, { index, askedAt: sessions[index]?.time ?? "" }, personaIndex));
  return { name, file, sessions, questions, datesOutOfOrder: datesOutOfOrder(sessions) };
}

function sessionIndexes(sessions: readonly SessionData[], file: string): Map<string, number> {
  const indexOf = new Map<string, number>();
  sessions.forEach((session, index) => {
    const first = indexOf.get(session.session_uuid);
    if (first !== undefined) throw new ValidationError(`${file}.dialogues.${index}.session_uuid`, `duplicate session_uuid ${session.session_uuid} (first at dialogues.${first})`);
    indexOf.set(session.session_uuid, index);
  });
  return indexOf;
}

/** Every session, in file order, each starting after the earlier ones of its date (see above). */
function readSessions(sessions: readonly SessionData[], file: string): RealmemSession[] {
  const nextStartOf = new Map<number, number>();
  return sessions.map((session, index) => {
    const where = `${file}.dialogues.${index}`;
    const date = sessionTime(session.current_time, `${where}.current_time`);
    const read = readSession(session, index, nextStartOf.get(date) ?? date, where);
    nextStartOf.set(date, Date.parse(read.dialogue?.turns.at(-1)?.time ?? read.time) + SAME_DATE_GAP_MS);
    return read;
  });
}

function readSession(session: SessionData, index: number, time: number, where: string): RealmemSession {
  const turns: DialogueTurn[] = [];
  let splitMessages = 0;
  session.dialogue_turns.forEach((turn, n) => {
    const parts = messageParts(turn.content);
    if (parts.length > 1) splitMessages += 1;
    parts.forEach((text, part) => {
      const at = new Date(time + turns.length * 1000).toISOString();
      turns.push({ turnId: partTurnId(`${session.session_uuid}:${n}`, part, parts.length), speaker: turn.speaker, text, time: at, sessionId: session.session_uuid });
    });
  });
  const dialogue = turns.length > 0 ? parseDialogue({ turns }, `${where}.dialogue_turns`) : undefined;
  return { uuid: session.session_uuid, index, time: new Date(time).toISOString(), ...(dialogue ? { dialogue } : {}), splitMessages };
}

/** "2025-12-28 (Sunday)" (the weekday is not checked), or an ISO 8601 date or date-time, in ms; a time without offset is UTC. */
function sessionTime(text: string, field: string): number {
  const time = parseIsoTimestamp(text.replace(/\s*\([^)]*\)\s*$/, ""));
  if (time === undefined) throw new ValidationError(field, `expected a date such as "2025-12-28 (Sunday)", got ${JSON.stringify(text)}`);
  return time;
}

function datesOutOfOrder(sessions: readonly RealmemSession[]): number {
  return sessions.filter((session, i) => i > 0 && session.time < (sessions[i - 1]?.time ?? "")).length;
}

interface PersonaIndex {
  name: string;
  indexOf: ReadonlyMap<string, number>;
  sessions: readonly SessionData[];
}

/** The questions asked in one session, in order. */
function sessionQuestions(session: SessionData, asking: { index: number; askedAt: string }, personaIndex: PersonaIndex): RealmemQuestion[] {
  return session.dialogue_turns.flatMap((turn, n) => {
    if (turn.is_query !== true) return [];
    const text = turn.content.trim();
    const question: RealmemQuestion = {
      id: `${personaIndex.name}:${session.session_uuid}:${n}`,
      persona: personaIndex.name,
      sessionIndex: asking.index,
      kind: turn.category_name?.trim() || "unknown",
      question: text.slice(0, MAX_QUESTION_CHARS).trimEnd(),
      truncated: text.length > MAX_QUESTION_CHARS,
      askedAt: asking.askedAt,
      sessions: [],
      turns: [],
      tally: { sessionsNotBefore: 0, memories: 0, memoriesUnmatched: 0, memoriesWithoutTurn: 0 },
    };
    const answer = session.dialogue_turns[n + 1];
    if (!text) return [{ ...question, skipped: "no question text" }];
    if (!answer) return [{ ...question, skipped: "no answer turn after it" }];
    const unknown = unknownSession(answer, personaIndex.indexOf);
    if (unknown) return [{ ...question, skipped: unknown }];
    return [{ ...question, ...evidenceOf(answer, asking.index, personaIndex) }];
  });
}

type TurnData = z.output<typeof TurnSchema>;

/** The sessions an answer names: `memory_session_uuids`, else (as the benchmark's scorer falls back) those of `memory_used`. */
function namedSessions(answer: TurnData): string[] {
  const named = answer.memory_session_uuids?.length ? answer.memory_session_uuids : (answer.memory_used ?? []).map((memory) => memory.session_uuid);
  return [...new Set(named)];
}

function unknownSession(answer: TurnData, indexOf: ReadonlyMap<string, number>): string | undefined {
  const unknown = [...namedSessions(answer), ...(answer.memory_used ?? []).map((memory) => memory.session_uuid)].find((uuid) => !indexOf.has(uuid));
  return unknown === undefined ? undefined : `evidence session ${JSON.stringify(unknown)} is not a session of the file`;
}

/** Evidence sessions and turns before the asking session; what was left out, counted. */
function evidenceOf(answer: TurnData, sessionIndex: number, personaIndex: PersonaIndex): Pick<RealmemQuestion, "sessions" | "turns" | "tally"> {
  const before = (uuid: string) => (personaIndex.indexOf.get(uuid) ?? Infinity) < sessionIndex;
  const named = namedSessions(answer);
  const sessions = named.filter(before);
  const tally: EvidenceTally = { sessionsNotBefore: named.length - sessions.length, memories: 0, memoriesUnmatched: 0, memoriesWithoutTurn: 0 };
  const turns = new Set<string>();
  for (const memory of answer.memory_used ?? []) {
    if (!before(memory.session_uuid)) continue;
    tally.memories += 1;
    const source = personaIndex.sessions[personaIndex.indexOf.get(memory.session_uuid) ?? -1];
    const extracted = source?.extracted_memory?.find((candidate) => candidate.content === memory.content);
    if (!source || !extracted) tally.memoriesUnmatched += 1;
    else {
      const turn = sourceTurnIndex(source, extracted);
      if (turn === undefined) tally.memoriesWithoutTurn += 1;
      else turns.add(`${source.session_uuid}:${turn}`);
    }
  }
  return { sessions, turns: [...turns], tally };
}

/**
 * The place in dialogue_turns of the turn a memory was extracted from. `source_turn` counts from 1 in
 * some sessions and from 0 in others (about half each in the five personas here, checked against
 * `source_content_snapshot`), so the turn is whichever of the two readings holds the snapshot's text;
 * undefined when neither does (no source turn given, or a snapshot that differs from every turn).
 */
function sourceTurnIndex(session: SessionData, memory: z.output<typeof ExtractedMemorySchema>): number | undefined {
  const snapshot = memory.source_content_snapshot;
  if (!snapshot) return undefined;
  return [memory.source_turn - 1, memory.source_turn].find((index) => session.dialogue_turns[index]?.content === snapshot);
}

async function readText(file: string): Promise<string> {
  try {
    return (await readFile(file, "utf8")).replace(/^\uFEFF/, "");
  } catch {
    throw new ValidationError("path", `cannot read ${file}`);
  }
}
