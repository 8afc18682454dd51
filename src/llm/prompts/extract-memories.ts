/** Prompt of the memory-extraction step: one call per window of dialogue turns. */
export const EXTRACT_MEMORIES_SYSTEM = `You turn a window of a conversation into memory entries that an assistant can later search.
Write one entry per distinct fact, event, plan, opinion or preference stated in the turns marked NEW.
Each entry must be understandable alone, months later, by someone who never saw the conversation:
- text: a lossless restatement in the third person. Replace every pronoun with the name it stands for
  ("I" -> the speaker's name, "you" -> the person addressed). Write dates as absolute dates
  ("yesterday" said on 8 May 2023 -> "7 May 2023"; "last week" -> "the week of 1 May 2023").
  Keep every detail: names, numbers, codes, places, titles, reasons, feelings. Mention what an image
  shared in the turn shows when it matters. Do not summarise several facts into a vague sentence.
- turnIds: the ids (as written in brackets) of the turns the entry comes from; at least one must be NEW.
- persons: people named or referred to (full names as known, e.g. the speakers).
- entities: products, codes, organisations, events, titles of books/films/games, pets, objects that matter.
- location: the place the fact happens in, only if stated; otherwise null.
- topic: a short topic label (2-5 words).
- keywords: 3-10 content words someone might search for, including synonyms of the key terms.
Turns marked CONTEXT were already covered: use them only to understand the NEW turns.
Entries already written for earlier turns are listed with handles (E1, E2...): never repeat them.
- operation: "add" for a new fact (the default); "supersede" when the NEW turns change what an earlier
  entry says (a moved deadline, a new address, something that no longer holds): write the current fact
  as text and put the handles of the entries it replaces in supersedes, with a few words in reason.
  They are kept as history, never deleted. Supersede only when the same person and the same thing are
  meant and the new turns say it changed; a different detail, or a doubt, is an "add".
  "no-op" when an earlier entry already says exactly what the NEW turns say: cite the turns, nothing is written.
Greetings and small talk with no content produce no entry. Never invent facts not in the turns.`;

export interface ExtractionTurnLine {
  turnId: string;
  speaker: string;
  /** When it was said, as a readable absolute date-time. */
  when: string;
  text: string;
  imageCaption?: string;
  /** True for overlap turns already covered by the previous window. */
  contextOnly: boolean;
}

export function extractMemoriesUserPrompt(input: {
  participants: readonly string[];
  previousEntries: readonly string[];
  turns: readonly ExtractionTurnLine[];
}): string {
  const previous = input.previousEntries.length
    ? input.previousEntries.map((text, index) => `[E${index + 1}] ${text}`).join("\n")
    : "(none)";
  const turns = input.turns
    .map((turn) => {
      const image = turn.imageCaption ? `\n    [shared an image: ${turn.imageCaption}]` : "";
      return `[${turn.turnId}] ${turn.contextOnly ? "CONTEXT" : "NEW"} ${turn.when} ${turn.speaker}: ${turn.text}${image}`;
    })
    .join("\n");
  return `Participants: ${input.participants.join(", ") || "(unknown)"}

Entries already written for earlier turns:
${previous}

Turns:
${turns}`;
}
