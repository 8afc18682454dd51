import { z } from "zod";
import { DialogueSchema } from "../ingest/dialogue.js";
import { MemoryInputSchema, NamespaceSchema } from "../memory/entry.js";
import { described } from "./channels.js";

/**
 * The write graph's state. Its inputs are consumed by the run they were given to (the node clears
 * them), so a run on a reused thread never writes the previous run's memories again.
 */
export const RememberState = z.object({
  namespace: described(z.string(), "Input, required: the namespace written to (the caller's own, on a secured server)"),
  memories: described(z.array(MemoryInputSchema).nullable().optional(), "Input: memories to write; only `text` is required in each"),
  dialogue: described(
    DialogueSchema.nullable().optional(),
    "Input: a conversation (turns with speaker, text and time), built into memories by the model when one is configured, by rules otherwise",
  ),
  forget: described(z.array(z.string()).nullable().optional(), "Input: ids of memories to delete"),
  written: described(z.array(z.string()), "Ids of the memories written, in order"),
  deleted: described(z.number().int(), "How many of the ids to forget existed"),
  retired: described(z.number().int(), "Entries of the dialogue's turns an earlier write made and this one replaced"),
});
export type RememberStateValue = z.output<typeof RememberState>;

export const RememberGraphInput = RememberState.pick({ namespace: true, memories: true, dialogue: true, forget: true }).partial();
export const RememberGraphOutput = RememberState.pick({ namespace: true, written: true, deleted: true, retired: true });

/** The write graph's input, validated by its node: something to do, in one namespace. */
export const RememberInputSchema = z
  .object({
    namespace: NamespaceSchema.describe("Whose memories to write"),
    memories: z.array(z.unknown()).max(100_000, "at most 100,000 memories in one write").optional().describe("Memories to write, each as MemoryInput (only text is required), all or nothing"),
    dialogue: z.unknown().optional().describe("A dialogue (turns with turnId, speaker, text, time) to build memories from"),
    forget: z.array(z.string().min(1, "an id must not be empty")).max(100_000, "at most 100,000 ids in one call").optional().describe("Ids of memories to delete; one the namespace does not hold refuses the whole call"),
  })
  .refine((input) => input.memories !== undefined || input.dialogue !== undefined || input.forget !== undefined, {
    message: "give memories, a dialogue or ids to forget",
    path: ["memories"],
  });
