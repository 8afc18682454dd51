import { MAX_SUPERSESSION_REASON_CHARS, type MemoryEntry } from "../memory/entry.js";
import type { MemoryStore } from "../stores/port.js";
import { announcesChange, ruleSupersessions, type SaidTurn } from "./rule-supersessions.js";
import { CHANGES_LOOK_BACK, memoriesBefore } from "./stored-past.js";

/**
 * Supersessions for notes: memories written one at a time by an agent or a person (the save tools, MCP,
 * the write graph, the library's `remember`), neither a dialogue's turns nor a document's parts. A note
 * that says a change in a form the rule builder reads (rule-supersessions.ts: "Dana moved to Malmö",
 * "The launch moved to May 5") supersedes the latest earlier note that stated the old value of the same
 * attribute about the same people, by the same speaker or, as most notes, by none: a note of the same
 * write, or one of the namespace's latest 1,000 memories, said before it. A note whose writer gave
 * `supersedes`, even empty, is left as given. `given(index)` says which entries those are.
 */
export async function withNoteChanges(
  store: MemoryStore,
  namespace: string,
  entries: readonly MemoryEntry[],
  given: (index: number) => boolean,
): Promise<MemoryEntry[]> {
  const changing = new Set(entries.filter((entry, index) => !given(index) && isNote(entry) && announcesChange(entry.text)).map((entry) => entry.id));
  if (changing.size === 0) return [...entries];
  const notes = await notesBefore(store, namespace, entries, changing);
  const links = ruleSupersessions(notes.map(saidOf), (index) => changing.has(notes[index]?.id ?? ""));
  const linked = new Map([...links].map(([index, link]) => [notes[index]?.id, link]));
  return entries.map((entry) => {
    const link = linked.get(entry.id);
    return link ? { ...entry, supersedes: link.supersedes, supersessionReason: link.reason.slice(0, MAX_SUPERSESSION_REASON_CHARS) } : entry;
  });
}

/**
 * The write's notes with the namespace's stored notes said up to the latest change among them, oldest
 * first; a stored memory the write replaces (the same id) is left out.
 */
async function notesBefore(store: MemoryStore, namespace: string, entries: readonly MemoryEntry[], changing: ReadonlySet<string>): Promise<MemoryEntry[]> {
  const written = new Set(entries.map((entry) => entry.id));
  const untilMs = entries.reduce((latest, entry) => (changing.has(entry.id) ? Math.max(latest, entry.timestampMs) : latest), -Infinity);
  const stored: MemoryEntry[] = [];
  for await (const entry of memoriesBefore(store, namespace, untilMs, CHANGES_LOOK_BACK)) {
    if (isNote(entry) && !written.has(entry.id)) stored.push(entry);
  }
  // Stored notes first at the same moment: a note of this write replaces them, never the other way.
  return [...stored.reverse(), ...entries.filter(isNote)].sort((a, b) => a.timestampMs - b.timestampMs);
}

/** A memory of neither a dialogue's turns nor a document's part. */
function isNote(entry: MemoryEntry): boolean {
  return !entry.source?.turnIds?.length && entry.source?.documentId === undefined;
}

function saidOf(entry: MemoryEntry): SaidTurn {
  const speaker = entry.speaker ?? "";
  return { id: entry.id, label: `memory ${entry.id}`, speaker, said: entry.text, persons: entry.persons.filter((person) => person !== speaker) };
}
