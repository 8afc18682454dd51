import { z } from "zod";
import { parseOrThrow, ValidationError } from "../core/errors.js";
import { MAX_ID_CHARS, MAX_TEXT_CHARS, parseIsoTimestamp, uniqueNames } from "../memory/entry.js";

/** One turn of a conversation as importers hand it to the memory builder. */
export const DialogueTurnSchema = z.strictObject({
  turnId: z
    .string()
    .trim()
    .min(1, "turnId must not be empty")
    .max(MAX_ID_CHARS, `turnId must be at most ${MAX_ID_CHARS} characters`)
    .describe(
      "The turn's id, naming one turn in the namespace: the same turn saved again replaces its memories, and an id already stored for another turn (another time, other words) is refused",
    ),
  speaker: z
    .string()
    .trim()
    .min(1, "speaker must not be empty")
    .max(MAX_ID_CHARS, `speaker must be at most ${MAX_ID_CHARS} characters`)
    .describe("Who said it, by name"),
  text: z.string().max(MAX_TEXT_CHARS, `text must be at most ${MAX_TEXT_CHARS} characters`).describe("What was said"),
  time: z
    .string()
    .refine((value) => parseIsoTimestamp(value) !== undefined, "time must be an ISO 8601 date-time")
    .describe("When it was said, ISO 8601; relative dates in the text ('yesterday') are read from it"),
  imageCaption: z.string().trim().max(4096, "imageCaption must be at most 4096 characters").optional().describe("What an image shared in the turn shows"),
  sessionId: z.string().trim().min(1, "sessionId must not be empty").max(MAX_ID_CHARS).optional().describe("The session the turn belongs to, when the dialogue spans several; a later save of the same session continues it"),
});
export type DialogueTurn = z.infer<typeof DialogueTurnSchema>;

/** A whole conversation: its turns in order and who takes part (speakers are added automatically). */
export const DialogueSchema = z.strictObject({
  participants: z
    .array(z.string().trim().min(1, "a participant's name must not be empty").max(MAX_ID_CHARS))
    .max(256, "participants must name at most 256 people")
    .optional()
    .describe("Everyone taking part, speakers or not; a participant is recognised in the text by name or nickname ('Mel' for Melanie)"),
  turns: z.array(DialogueTurnSchema).min(1, "a dialogue needs at least one turn").describe("The turns in the order they were said"),
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
