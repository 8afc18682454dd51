import type { GapCondition } from "../domain/coverage.js";
import type { MemoryEntry } from "../memory/entry.js";
import { foldName, type MemoryFilter } from "../stores/port.js";
import { coversAll } from "./mentions.js";

/** True when `entry` records what `person` said or wrote (names compared as the stores compare them). */
export function isSpokenBy(entry: Pick<MemoryEntry, "speaker">, person: string): boolean {
  return entry.speaker !== undefined && foldName(entry.speaker) === foldName(person);
}

/** True when a hit answers its gap query: it mentions the required words (its index terms) and is the required speaker's. */
export function meetsGapCondition(entry: MemoryEntry, terms: () => ReadonlySet<string>, condition: GapCondition): boolean {
  if (condition.spokenBy !== undefined && !isSpokenBy(entry, condition.spokenBy)) return false;
  return condition.mentions === undefined || coversAll(terms(), condition.mentions);
}

/**
 * The store filter that narrows a gap query's search to the entries that can meet its condition, so
 * that k is not spent on ones dropped afterwards: a speaker is always one of an entry's persons.
 */
export function gapSearchFilter(condition: GapCondition | undefined): MemoryFilter | undefined {
  return condition?.spokenBy === undefined ? undefined : { persons: [condition.spokenBy] };
}
