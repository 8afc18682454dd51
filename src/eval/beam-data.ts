import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { parseOrThrow, ValidationError } from "../core/errors.js";
import { parseDialogue, type Dialogue, type DialogueTurn } from "../ingest/dialogue.js";
import { parseJson } from "../ingest/json-text.js";
import { messageOfTurn, messageParts, partTurnId } from "./dialogue-corpus.js";

/**
 * Reading BEAM (mohammadtavakoli78/BEAM; ../shared/data/beam/README.md): long user-assistant
 * conversations, each a folder holding
 *
 *     chat.json                                 [{batch_number, time_anchor?, turns: [[{role, id, content, time_anchor?}]]}]
 *     probing_questions/probing_questions.json  {kind: [{question, source_chat_ids?, ...}]}
 *
 * A message's `id` is the evidence key. Every batch is a session; its first message carries the
 * batch's date as `time_anchor` ("March-15-2024"), and a message's time is that date plus one second
 * per message (so order survives sorting by time), as LoCoMo's sessions are read. BEAM's probing
 * questions carry no place in the conversation: the benchmark asks them all after it, so every
 * question is asked with the whole conversation as memory, at the time of its last message.
 */

export const BEAM_FILES = { chat: "chat.json", questions: path.join("probing_questions", "probing_questions.json") } as const;

/** The kind of question whose right answer is that nothing relevant was said: no evidence, scored apart. */
export const ABSTENTION_KIND = "abstention";

const MessageSchema = z.looseObject({
  role: z.string().trim().min(1, "must not be empty").describe("who spoke: user or assistant"),
  id: z.union([z.number().int().min(0), z.string().trim().min(1)]).transform(String).describe("the message id source_chat_ids name"),
  content: z.string().describe("what was said"),
  time_anchor: z.string().nullish().describe("the batch's date, on its first message, e.g. March-15-2024"),
});

const BatchSchema = z.looseObject({
  batch_number: z.number().int().optional().describe("the batch's number, from 1"),
  time_anchor: z.string().nullish().describe("the batch's date, when the batch carries it rather than its first message"),
  turns: z.array(z.array(MessageSchema)).describe("the batch's exchanges, each a list of messages"),
});

const ChatSchema = z.array(BatchSchema).min(1, "a conversation needs at least one batch");

const QuestionSchema = z.looseObject({
  question: z.string().trim().min(1, "must not be empty").describe("the probing question"),
  // Lists of ids, lists of lists (event ordering), or objects of lists (knowledge update: original_info,
  // updated_info; temporal reasoning: first_event, second_event): every id anywhere inside is evidence.
  source_chat_ids: z.unknown().optional().describe("the message ids holding the evidence, in any nesting"),
});

const QuestionsSchema = z.record(z.string(), z.array(QuestionSchema)).describe("question kind to its questions");

/** A probing question: asked, scored when it has evidence, set apart when it is an abstention question. */
export interface BeamQuestion {
  /** `conversation:kind:index`, unique in a run. */
  id: string;
  conversation: string;
  kind: string;
  question: string;
  /** Evidence message ids, de-duplicated, in the order given. */
  evidence: string[];
  /** Place in its conversation's question file, from 0, whatever its kind. */
  position: number;
  /** Knowledge update: the evidence stating the current value (updated_info), where the rest states an older one. */
  newest?: string[];
}

export interface SkippedBeamQuestion {
  id: string;
  kind: string;
  reason: string;
}

export interface BeamConversation {
  /** The folder's name, e.g. "7". */
  name: string;
  dialogue: Dialogue;
  /** The time of the last message: when every question is asked. */
  askedAt: string;
  /** Scorable questions (evidence given, every id a message), in file order. */
  questions: BeamQuestion[];
  /** Abstention questions: the right answer is that nothing relevant was said. */
  abstentions: BeamQuestion[];
  skipped: SkippedBeamQuestion[];
  /** Messages longer than a memory may be, written as several turns (`ID#1`, `ID#2`, ...). */
  splitMessages: number;
}

/** Reads a conversation folder (chat.json beside probing_questions/) or a folder of them, numbered folders in numeric order. */
export async function readBeamFolder(folder: string): Promise<BeamConversation[]> {
  const info = await stat(folder).catch(() => undefined);
  if (!info?.isDirectory()) throw new ValidationError("folder", `${folder} is not a folder (BEAM: N/${BEAM_FILES.chat} and N/${BEAM_FILES.questions})`);
  if (await isConversationFolder(folder)) return [await readConversation(folder, path.basename(path.resolve(folder)))];
  const names = await conversationFolders(folder);
  if (names.length === 0) throw new ValidationError("folder", `${folder} holds no ${BEAM_FILES.chat}, nor folders holding one`);
  const conversations: BeamConversation[] = [];
  for (const name of names) conversations.push(await readConversation(path.join(folder, name), name));
  return conversations;
}

/** Whether `folder` looks like BEAM: a conversation, or a folder of conversations (what `eval` detects). */
export async function isBeamFolder(folder: string): Promise<boolean> {
  return (await isConversationFolder(folder)) || (await conversationFolders(folder)).length > 0;
}

async function isConversationFolder(folder: string): Promise<boolean> {
  return (await stat(path.join(folder, BEAM_FILES.chat)).catch(() => undefined))?.isFile() === true;
}

async function conversationFolders(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
  const names: string[] = [];
  for (const entry of entries) if (entry.isDirectory() && (await isConversationFolder(path.join(folder, entry.name)))) names.push(entry.name);
  return names.sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
}

async function readConversation(folder: string, name: string): Promise<BeamConversation> {
  const chatFile = path.join(name, BEAM_FILES.chat);
  const questionsFile = path.join(name, BEAM_FILES.questions);
  const chat = parseOrThrow(ChatSchema, parseJson(await readText(folder, BEAM_FILES.chat, chatFile)), chatFile);
  const probing = parseOrThrow(QuestionsSchema, parseJson(await readText(folder, BEAM_FILES.questions, questionsFile)), questionsFile);
  const { turns, splitMessages } = dialogueTurns(chat, chatFile);
  const dialogue = parseDialogue({ participants: [...new Set(turns.map((turn) => turn.speaker))], turns }, chatFile);
  const messageIds = new Set(turns.map((turn) => messageOfTurn(turn.turnId)));
  const sorted = sortQuestions(name, probing, messageIds);
  const last = turns[turns.length - 1];
  if (!last) throw new ValidationError(chatFile, "the conversation has no message");
  return { name, dialogue, askedAt: last.time, splitMessages, ...sorted };
}

/**
 * Every message as a dialogue turn: its role as the speaker, its batch as the session, its time the
 * batch's anchor plus one second per message. A batch without an anchor goes on from the one before.
 * A message longer than a memory may be is written in parts (three of BEAM 100K's are runaway answers
 * of 18k to 350k characters).
 */
function dialogueTurns(chat: z.output<typeof ChatSchema>, file: string): { turns: DialogueTurn[]; splitMessages: number } {
  const turns: DialogueTurn[] = [];
  const seen = new Map<string, string>();
  let clock: number | undefined;
  let splitMessages = 0;
  chat.forEach((batch, b) => {
    const messages = batch.turns.flat();
    const anchor = batch.time_anchor ?? messages.find((message) => message.time_anchor)?.time_anchor;
    const where = `${file}.${b}`;
    if (anchor) clock = anchorTime(anchor, `${where}.time_anchor`);
    else if (clock === undefined) throw new ValidationError(`${where}.time_anchor`, "the first batch gives no date (expected e.g. \"March-15-2024\" on its first message)");
    const session = `batch_${batch.batch_number ?? b + 1}`;
    for (const message of messages) {
      const first = seen.get(message.id);
      if (first !== undefined) throw new ValidationError(`${where}: id`, `duplicate message id ${message.id} (first in ${first})`);
      seen.set(message.id, where);
      const parts = messageParts(message.content);
      if (parts.length > 1) splitMessages += 1;
      parts.forEach((text, part) => {
        turns.push({ turnId: partTurnId(message.id, part, parts.length), speaker: message.role, text, time: new Date(clock ?? 0).toISOString(), sessionId: session });
        clock = (clock ?? 0) + 1000;
      });
    }
  });
  return { turns, splitMessages };
}

const MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];

/** "March-15-2024" (BEAM's spelling) at 00:00 UTC, in ms. */
function anchorTime(anchor: string, field: string): number {
  const match = /^([A-Za-z]+)-(\d{1,2})-(\d{4})$/.exec(anchor.trim());
  const month = match ? MONTHS.indexOf((match[1] ?? "").toLowerCase()) : -1;
  const day = Number(match?.[2]);
  const time = match && month >= 0 ? Date.UTC(Number(match[3]), month, day) : NaN;
  if (Number.isNaN(time) || new Date(time).getUTCDate() !== day) throw new ValidationError(field, `expected a date such as "March-15-2024", got ${JSON.stringify(anchor)}`);
  return time;
}

/** Splits a conversation's questions into scorable ones, abstention ones and skipped ones (with the reason). */
function sortQuestions(
  conversation: string,
  probing: z.output<typeof QuestionsSchema>,
  messageIds: ReadonlySet<string>,
): Pick<BeamConversation, "questions" | "abstentions" | "skipped"> {
  const sorted: Pick<BeamConversation, "questions" | "abstentions" | "skipped"> = { questions: [], abstentions: [], skipped: [] };
  let position = 0;
  for (const [kind, questions] of Object.entries(probing)) {
    questions.forEach((item, index) => {
      const evidence = [...new Set(evidenceIds(item.source_chat_ids))];
      const question: BeamQuestion = { id: `${conversation}:${kind}:${index}`, conversation, kind, question: item.question, evidence, position: position++ };
      const newest = updatedIds(item.source_chat_ids, evidence);
      if (newest.length) question.newest = newest;
      if (kind === ABSTENTION_KIND) return void sorted.abstentions.push(question);
      const reason = evidenceProblem(question.evidence, messageIds);
      if (reason) sorted.skipped.push({ id: question.id, kind, reason });
      else sorted.questions.push(question);
    });
  }
  return sorted;
}

/**
 * The ids under `updated_info`, when some evidence is not among them (an older statement to rank them
 * against); none otherwise. BEAM sometimes names one message as both original and update.
 */
function updatedIds(sources: unknown, evidence: readonly string[]): string[] {
  if (!sources || typeof sources !== "object" || !("updated_info" in sources)) return [];
  const updated = [...new Set(evidenceIds(sources.updated_info))];
  return evidence.some((id) => !updated.includes(id)) ? updated : [];
}

/** Every id inside `value`, however nested in lists and objects; numbers in their decimal spelling. */
function evidenceIds(value: unknown): string[] {
  if (typeof value === "number" || typeof value === "string") return [String(value).trim()];
  if (Array.isArray(value)) return value.flatMap(evidenceIds);
  if (value && typeof value === "object") return Object.values(value).flatMap(evidenceIds);
  return [];
}

function evidenceProblem(evidence: readonly string[], messageIds: ReadonlySet<string>): string | undefined {
  if (evidence.length === 0) return "no evidence";
  const missing = evidence.find((id) => !messageIds.has(id));
  return missing === undefined ? undefined : `evidence id ${JSON.stringify(missing)} is not a message of the conversation`;
}

async function readText(folder: string, file: string, named: string): Promise<string> {
  try {
    return (await readFile(path.join(folder, file), "utf8")).replace(/^\uFEFF/, "");
  } catch {
    throw new ValidationError(named, `cannot read ${path.join(folder, file)}`);
  }
}
