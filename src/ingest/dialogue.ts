import { z } from "zod";
import { parseOrThrow, ValidationError } from "../core/errors.js";
import { MAX_ID_CHARS, MAX_TEXT_CHARS, parseIsoTimestamp, uniqueNames } from "../memory/entry.js";

/** One turn of a conversation as importers hand it to the memory builder. */
export const DialogueTurnSchema = z.strictObject({
  turnId: z.string().trim().min(1, "turnId must not be empty").max(MAX_ID_CHARS),
  speaker: z.string().trim().min(1, "speaker must not be empty").max(MAX_ID_CHARS),
  text: z.string().max(MAX_TEXT_CHARS),
  time: z.string().refine((value) => parseIsoTimestamp(value) !== undefined, "time must be an ISO 8601 date-time"),
  imageCaption: z.string().trim().max(4096).optional(),
  sessionId: z.string().trim().min(1).max(MAX_ID_CHARS).optional(),
});
export type DialogueTurn = z.infer<typeof DialogueTurnSchema>;

/** A whole conversation: its turns in order and who takes part (speakers are added automatically). */
export const DialogueSchema = z.strictObject({
  participants: z.array(z.string().trim().min(1).max(MAX_ID_CHARS)).max(256).optional(),
  turns: z.array(DialogueTurnSchema).min(1, "a dialogue needs at least one turn"),
});
export type Dialogue = z.infer<typeof DialogueSchema>;

/** Validates turns (errors name `turns.N.field`) and refuses repeated turn ids, which would collide as entry ids. */
export function parseDialogue(input: unknown, field = ""): Dialogue {
  const dialogue = parseOrThrow(DialogueSchema, input, field);
  const seen = new Set<string>();
  for (const [index, turn] of dialogue.turns.entries()) {
    if (seen.has(turn.turnId)) {
      throw new ValidationError([field, "turns", String(index), "turnId"].filter(Boolean).join("."), `duplicate turnId "${turn.turnId}"`);
    }
    seen.add(turn.turnId);
  }
  return dialogue;
}

/** Everyone who speaks or is listed as a participant, in order of first appearance. */
export function participantsOf(dialogue: Dialogue): string[] {
  return uniqueNames([...(dialogue.participants ?? []), ...dialogue.turns.map((turn) => turn.speaker)]);
}
