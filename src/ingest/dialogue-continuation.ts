import { entryInput, parseIsoTimestamp, type MemoryEntry, type MemoryInput } from "../memory/entry.js";
import type { MemoryStore } from "../stores/port.js";
import type { Dialogue, DialogueTurn } from "./dialogue.js";
import { lentWords, resolveTurnText, turnWords, unstate } from "./dialogue-rules.js";
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
 */

/** A turn read back from the memory the rule builder wrote for it. */
export interface StoredTurn {
  turn: DialogueTurn;
  /** What the turn said, its relative dates already resolved when it was saved. */
  said: string;
  entry: MemoryEntry;
}

/** Memories read per page while looking back for a session's turns, and the most pages read. */
const LOOK_BACK_PAGE = 20;
const LOOK_BACK_PAGES = 5;

/**
 * The `count` turns of the dialogue's first session stored in `namespace` just before its first turn
 * (said at or before it), oldest first. Turns of this dialogue, of other sessions and of `origin` (a file
 * read again replaces what it wrote) are passed over, as are memories that are no turn (notes, documents).
 */
export async function storedTurnsBefore(
  store: MemoryStore,
  namespace: string,
  dialogue: Dialogue,
  options: { count: number; origin?: string },
): Promise<StoredTurn[]> {
  const first = dialogue.turns[0];
  const firstMs = first ? parseIsoTimestamp(first.time) : undefined;
  if (!first || firstMs === undefined || options.count <= 0) return [];
  const own = new Set(dialogue.turns.map((turn) => turn.turnId));
  const found: StoredTurn[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < LOOK_BACK_PAGES && found.length < options.count; page += 1) {
    const listed = await store.list(namespace, { filter: { timeRange: { endMs: firstMs + 1 } }, limit: LOOK_BACK_PAGE, ...(cursor ? { cursor } : {}) });
    for (const entry of listed.entries) {
      const turnId = entry.source?.turnIds?.[0];
      if (entry.speaker === undefined || turnId === undefined || own.has(turnId)) continue;
      if (entry.source?.sessionId !== first.sessionId || (options.origin !== undefined && entry.source?.origin === options.origin)) continue;
      const stored = storedTurn(entry, entry.speaker, turnId);
      if (!stored) return found;
      found.unshift(stored);
      if (found.length === options.count) return found;
    }
    cursor = listed.nextCursor;
    if (!cursor) break;
  }
  return found;
}

function storedTurn(entry: MemoryEntry, speaker: string, turnId: string): StoredTurn | undefined {
  if (entry.source?.turnIds?.length !== 1) return undefined;
  const restated = unstate(speaker, entry.text);
  if (!restated) return undefined;
  const turn: DialogueTurn = {
    turnId,
    speaker,
    text: restated.said,
    time: entry.timestamp,
    ...(restated.imageCaption !== undefined ? { imageCaption: restated.imageCaption } : {}),
    ...(entry.source.sessionId !== undefined ? { sessionId: entry.source.sessionId } : {}),
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
 * The stored turns' memories with this dialogue's turns added to their context, as a save of the whole
 * would have made them: the words of the turns up to `contextTurnsAfter` after each (appended, as the
 * words of the turns after come last), and the turns of its exchange. Memories nothing is added to
 * are left out.
 */
export function widenedNeighbours(before: readonly StoredTurn[], dialogue: Dialogue, settings: { contextTurnsAfter: number; timeZone: string }): MemoryInput[] {
  const { dialogue: whole, resolved } = continuedDialogue(before, dialogue, settings.timeZone);
  const turns = whole.turns;
  return before.flatMap((stored, index) => {
    const isNew = (near: number): boolean => near >= before.length;
    const wordsAfter = turnsAround(turns, index, 0, settings.contextTurnsAfter)
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
