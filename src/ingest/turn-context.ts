import type { MemoryInput } from "../memory/entry.js";
import type { DialogueTurn } from "./dialogue.js";

/**
 * Turns either side of a memory's own that belong to its exchange. Two: a question, its answer and
 * what follows it, which is where an answer spread over an exchange is found (a photo and what it
 * shows, one speaker's words and the other's reply).
 */
export const EXCHANGE_REACH_TURNS = 2;

/** Indexes of the turns up to `before` ahead of and `after` behind turn `index`, in its session and in order. */
export function turnsAround(turns: readonly DialogueTurn[], index: number, before: number, after: number): number[] {
  const session = turns[index]?.sessionId;
  const picked: number[] = [];
  for (let i = index - 1; i >= 0 && i >= index - before; i -= 1) {
    if (turns[i]?.sessionId !== session) break;
    picked.unshift(i);
  }
  for (let i = index + 1; i < turns.length && i <= index + after; i += 1) {
    if (turns[i]?.sessionId !== session) break;
    picked.push(i);
  }
  return picked;
}

/**
 * Each memory with the turns said around its own as `source.contextTurnIds`, so that retrieval knows
 * one exchange by the order it was said in, not by how close its turns' times are: a chat's turns
 * are seconds or hours apart, and two sessions can share a moment. A memory already carrying the
 * field keeps it; one built from no turn gets none.
 */
export function withContextTurnIds(memories: readonly MemoryInput[], turns: readonly DialogueTurn[]): MemoryInput[] {
  const indexOf = new Map(turns.map((turn, index) => [turn.turnId, index]));
  return memories.map((memory) => {
    const own = memory.source?.turnIds ?? [];
    if (own.length === 0 || memory.source?.contextTurnIds !== undefined) return memory;
    const around = new Set(
      own.flatMap((turnId) => {
        const index = indexOf.get(turnId);
        return index === undefined ? [] : turnsAround(turns, index, EXCHANGE_REACH_TURNS, EXCHANGE_REACH_TURNS).flatMap((near) => turns[near]?.turnId ?? []);
      }),
    );
    for (const turnId of own) around.delete(turnId);
    return around.size === 0 ? memory : { ...memory, source: { ...memory.source, contextTurnIds: [...around] } };
  });
}
