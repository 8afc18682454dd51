import { entryInput, parseIsoTimestamp, type MemoryEntry, type MemoryInput } from "../memory/entry.js";
import type { MemoryStore } from "../stores/port.js";
import { CHANGES_LOOK_BACK, memoriesBefore } from "./stored-past.js";
import type { Dialogue, DialogueTurn } from "./dialogue.js";
import { lentWords, resolveTurnText, turnWords, unstate } from "./dialogue-rules.js";
import { announcesChange, type SaidTurn } from "./rule-supersessions.js";
import { derivedList, MAX_DERIVED_KEYWORDS } from "./text-fields.js";
import { EXCHANGE_REACH_TURNS, turnsAround } from "./turn-context.js";

/**
 * A dialogue saved a few turns at a time, as an agent saves a conversation while it goes on, is
 * remembered as the whole dialogue saved at once would be. A turn's memory carries its neighbours'
 * words and names the turns of its exchange (dialogue-rules.ts, turn-context.ts); the first turns of a
 * save have their neighbours in the saves before it. So a save reads the turns its session already
 * holds just before its first turn, builds its own turns after them, and adds its turns to those
 * earlier turns' context.
 *
 * Only the rule builder's memories of one turn each can be read back as turns (unstate). A memory a
 * model wrote, or one edited since, ends the look back: what comes before it is not continued.
 *
 * In LLM mode a save's first window is shown what the model already wrote of the session instead
 * (storedMemoriesBefore), as a window of a dialogue saved whole is shown the window's before it.
 */

/** A turn read back from the memory the rule builder wrote for it. */
export interface StoredTurn {
  turn: DialogueTurn;
  /** What the turn said, its relative dates already resolved when it was saved. */
  said: string;
  entry: MemoryEntry;
}

/** Memories read while looking back for a session's last turns or memories: pages of 20, at most 100. */
const NEIGHBOURS_LOOK_BACK = { page: 20, pages: 5 };

/** Each speaker's latest turns read while looking back for what a change replaces (CHANGES_LOOK_BACK). */
const CHANGES_PER_SPEAKER = 200;

/** Whether a stored memory was built from turns of this dialogue's past: none of its own turns, not its origin's. */
function isOfPastTurns(entry: MemoryEntry, own: ReadonlySet<string>, origin: string | undefined): boolean {
  const turnIds = entry.source?.turnIds ?? [];
  return turnIds.length > 0 && !turnIds.some((turnId) => own.has(turnId)) && (origin === undefined || entry.source?.origin !== origin);
}

/** One speaker's words: a memory that may stand in for a turn. */
function hasSpeaker(entry: MemoryEntry): entry is MemoryEntry & { speaker: string } {
  return entry.speaker !== undefined;
}

/** Whether a stored memory may stand in for a turn of this dialogue's past: one speaker's words, of past turns. */
function isPastTurn(entry: MemoryEntry, own: ReadonlySet<string>, origin: string | undefined): entry is MemoryEntry & { speaker: string } {
  return hasSpeaker(entry) && isOfPastTurns(entry, own, origin);
}

/**
 * The `count` turns of the dialogue's first session stored in `namespace` just before its first turn
 * (said at or before it), oldest first. Turns of this dialogue, of other sessions and of `origin` (a file
 * read again replaces what it wrote) are passed over, as are memories that are no turn (notes, documents).
 */
export async function storedTurnsBefore(
  store: MemoryStore,
  namespace: string,
  dialogue: Dialogue,
  count: number,
  origin: string | undefined,
): Promise<StoredTurn[]> {
  const found: StoredTurn[] = [];
  if (count <= 0) return found;
  for await (const entry of sessionPast(store, namespace, dialogue, origin)) {
    if (!hasSpeaker(entry)) continue;
    const stored = storedTurn(entry);
    if (!stored) break;
    found.unshift(stored);
    if (found.length === count) break;
  }
  return found;
}

/**
 * What the model wrote of the dialogue's first session before it, for a save in LLM mode: the `count`
 * latest memories of that session stored in `namespace` at or before its first turn, built from earlier
 * turns (not this dialogue's, nor `origin`'s), oldest first. Saved whole, each window of a dialogue is
 * shown the entries of the window before it, so that the model neither repeats them nor misses that a
 * turn changes one (dialogue-llm.ts); a save of the next few turns shows its first window these.
 */
export async function storedMemoriesBefore(
  store: MemoryStore,
  namespace: string,
  dialogue: Dialogue,
  count: number,
  origin: string | undefined,
): Promise<MemoryInput[]> {
  const found: MemoryInput[] = [];
  if (count <= 0) return found;
  for await (const entry of sessionPast(store, namespace, dialogue, origin)) {
    found.unshift(entryInput(entry));
    if (found.length === count) break;
  }
  return found;
}

/**
 * The memories of the dialogue's first session stored at or before its first turn, newest first (up to
 * NEIGHBOURS_LOOK_BACK of the namespace read): built from earlier turns of that session, not from this
 * dialogue's turns nor from `origin`'s.
 */
async function* sessionPast(store: MemoryStore, namespace: string, dialogue: Dialogue, origin: string | undefined): AsyncGenerator<MemoryEntry> {
  const first = dialogue.turns[0];
  const firstMs = first ? parseIsoTimestamp(first.time) : undefined;
  if (!first || firstMs === undefined) return;
  const own = new Set(dialogue.turns.map((turn) => turn.turnId));
  for await (const entry of memoriesBefore(store, namespace, firstMs, NEIGHBOURS_LOOK_BACK)) {
    if (isOfPastTurns(entry, own, origin) && entry.source?.sessionId === first.sessionId) yield entry;
  }
}

/**
 * The turns said before the dialogue that a change it announces may replace: for each speaker of one
 * of its turns that says a change (rule-supersessions.ts), that speaker's rule-built turns stored in
 * `namespace` at or before its first turn, in any session (CHANGES_LOOK_BACK); oldest first, as the
 * rules look back from the nearest. The turns of `dialogue` (the stored turns it continues included)
 * and of `origin` are left out.
 */
export async function changedTurnsBefore(
  store: MemoryStore,
  namespace: string,
  continued: { dialogue: Dialogue; resolved: readonly string[] },
  origin?: string,
): Promise<SaidTurn[]> {
  const { dialogue, resolved } = continued;
  const firstMs = parseIsoTimestamp(dialogue.turns[0]?.time ?? "");
  const speakers = dialogue.turns.filter((_, index) => announcesChange(resolved[index] ?? "")).map((turn) => turn.speaker);
  if (firstMs === undefined || speakers.length === 0) return [];
  // The rules only compare a speaker's turns with their own, so each speaker's come in a run of their own.
  const theirs = new Map(speakers.map((speaker) => [speaker, [] as SaidTurn[]]));
  const own = new Set(dialogue.turns.map((turn) => turn.turnId));
  for await (const entry of memoriesBefore(store, namespace, firstMs, CHANGES_LOOK_BACK)) {
    if (!isPastTurn(entry, own, origin)) continue;
    const { speaker } = entry;
    const said = theirs.get(speaker);
    const stored = said && said.length < CHANGES_PER_SPEAKER ? storedTurn(entry) : undefined;
    if (said && stored) said.unshift({ id: entry.id, label: `turn ${stored.turn.turnId}`, speaker, said: stored.said, persons: entry.persons.filter((person) => person !== speaker) });
    if ([...theirs.values()].every((turns) => turns.length >= CHANGES_PER_SPEAKER)) break;
  }
  return [...theirs.values()].flat();
}

function storedTurn(entry: MemoryEntry & { speaker: string }): StoredTurn | undefined {
  const [turnId, ...more] = entry.source?.turnIds ?? [];
  if (turnId === undefined || more.length > 0) return undefined;
  const restated = unstate(entry.speaker, entry.text);
  if (!restated) return undefined;
  const turn: DialogueTurn = {
    turnId,
    speaker: entry.speaker,
    text: restated.said,
    time: entry.timestamp,
    ...(restated.imageCaption !== undefined ? { imageCaption: restated.imageCaption } : {}),
    ...(entry.source?.sessionId !== undefined ? { sessionId: entry.source.sessionId } : {}),
  };
  return { turn, said: restated.said, entry };
}

/** The dialogue with the stored turns before it, and each turn's resolved words (the stored turns' as they were saved). */
export function continuedDialogue(before: readonly StoredTurn[], dialogue: Dialogue, timeZone: string): { dialogue: Dialogue; resolved: string[] } {
  return {
    dialogue: { ...dialogue, turns: [...before.map((stored) => stored.turn), ...dialogue.turns] },
    resolved: [...before.map((stored) => stored.said), ...dialogue.turns.map((turn) => resolveTurnText(turn, timeZone))],
  };
}

/**
 * The stored turns' memories with the saved turns added to their context, as a save of the whole would
 * have made them: the words of the turns up to `contextTurnsAfter` after each (appended, as the words
 * of the turns after come last), and the turns of its exchange. `continued` is continuedDialogue of
 * `before`. Memories nothing is added to are left out.
 */
export function widenedNeighbours(
  before: readonly StoredTurn[],
  continued: { dialogue: Dialogue; resolved: readonly string[] },
  contextTurnsAfter: number,
): MemoryInput[] {
  const { resolved } = continued;
  const turns = continued.dialogue.turns;
  return before.flatMap((stored, index) => {
    const isNew = (near: number): boolean => near >= before.length;
    const wordsAfter = turnsAround(turns, index, 0, contextTurnsAfter)
      .filter(isNew)
      .flatMap((near) => lentWords(turnWords(resolved[near] ?? "", turns[near]?.imageCaption)));
    const exchangeAfter = turnsAround(turns, index, 0, EXCHANGE_REACH_TURNS)
      .filter(isNew)
      .flatMap((near) => turns[near]?.turnId ?? []);
    if (wordsAfter.length === 0 && exchangeAfter.length === 0) return [];
    const { entry } = stored;
    const contextTurnIds = [...new Set([...(entry.source?.contextTurnIds ?? []), ...exchangeAfter])];
    return [
      {
        ...entryInput(entry),
        keywords: derivedList([...entry.keywords, ...wordsAfter], MAX_DERIVED_KEYWORDS),
        source: { ...entry.source, ...(contextTurnIds.length ? { contextTurnIds } : {}) },
      },
    ];
  });
}
