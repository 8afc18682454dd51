/**
 * What an agent may do with its memory: recall, save, save a dialogue, forget, list. Each action is
 * declared once, with the zod schema of its arguments (whose descriptions guide a model) and what it
 * does, and each surface wraps them: LangChain tools (integrations/memory-tools.ts) and the MCP server
 * (mcp/). The namespace is never an argument: the surface binds it (the application, `--namespace`,
 * or the caller's key), so nothing a model writes can reach another namespace.
 */
import { z } from "zod";
import { parseOrThrow } from "../core/errors.js";
import { ingestDialogue } from "../ingest/dialogue-ingest.js";
import { DialogueSchema, parseDialogue } from "../ingest/dialogue.js";
import type { RetrievalResult } from "../domain/results.js";
import { MemoryInputSchema, parseIsoTimestamp, type MemoryEntry } from "../memory/entry.js";
import { RecallFilterSchema } from "../stores/caller-filter.js";
import { ListRequestSchema } from "../stores/memory-operations.js";
import type { RetrievalConfigInput } from "../graph/configuration.js";
import type { RecallGraph } from "./open-recallgraph.js";
import type { RetrieveRequest } from "./retrieve.js";

/** What every action is given by its surface: the memory and the namespace bound to the caller. */
export interface ActionContext {
  memory: RecallGraph;
  namespace: string;
  /** Reference time for relative dates ("last week"); default the clock. */
  now?: () => Date;
  /** Retrieval configuration for recall (top-k, preset...). */
  configurable?: RetrievalConfigInput;
}

export const RecallArgsSchema = z.strictObject({
  question: z.string().trim().min(1).describe("What to look up, as a full question; relative dates like 'last week' are understood"),
  asOf: z
    .string()
    .refine((text) => parseIsoTimestamp(text) !== undefined, "asOf must be an ISO 8601 date or date-time")
    .optional()
    .describe("Only to ask how things stood at a past time (ISO 8601): memories said later are left out, and what was replaced by then is marked as history"),
  filter: RecallFilterSchema.optional().describe("Only if the user asks for it: exact conditions (since, until, persons, entities, location, documentId)"),
});

/** A time as a model writes it: ISO 8601 text (or epoch ms). The memory's own schema also takes a Date, which JSON cannot carry. */
const JsonTimeSchema = z.union([z.string(), z.number()]);

export const SaveArgsSchema = MemoryInputSchema.extend({
  timestamp: JsonTimeSchema.optional().describe("When it happened, ISO 8601 (default: now)"),
  expiresAt: JsonTimeSchema.optional().describe("When to forget it, ISO 8601 (in the future)"),
  validFrom: JsonTimeSchema.optional().describe("When what it says began to hold, ISO 8601, if not when it was said"),
  validUntil: JsonTimeSchema.optional().describe("When what it says stopped holding, ISO 8601 (after validFrom); it is kept as history"),
  supersedes: MemoryInputSchema.shape.supersedes.describe(
    "Ids (from recall_memories or list_memories) of earlier memories this one corrects or replaces, e.g. the old address when the user moved; they are kept as history, not deleted. Left out, a memory that says the change plainly (\"Dana moved to Malmö\") is linked to the earlier one it replaces; [] links nothing",
  ),
}).describe(
  "One memory: `text` is a self-contained statement (names, not pronouns; absolute dates). Optional: timestamp (when it happened), persons, entities, location, topic, keywords (persons, entities and keywords left out are found in the text), expiresAt (forget it after), validFrom / validUntil (when it held), supersedes (ids of memories it replaces), id (to replace an earlier memory's text).",
);

export const SaveDialogueArgsSchema = DialogueSchema.describe(
  "A conversation to remember: turns with turnId, speaker, text and time (ISO 8601); memories are built from it",
);

export const ForgetArgsSchema = z.strictObject({
  ids: z.array(z.string().trim().min(1)).min(1).max(100).describe("Ids of the memories to delete, as recall or list show them"),
});

export const ListArgsSchema = ListRequestSchema.extend({
  limit: z.number().int().min(1).max(100).default(20).describe("Memories per page, newest first"),
});

/** One line per memory, with its id (so it can be forgotten) and date. */
export function memoryLines(entries: ReadonlyArray<Pick<MemoryEntry, "id" | "timestamp" | "text">>): string {
  return entries.map((entry) => `- [${entry.timestamp.slice(0, 10)}] (id: ${entry.id}) ${entry.text}`).join("\n");
}

/** memoryLines of recalled memories, each that is history saying so and by what it was superseded, so a model never takes it for the present. */
export function recalledLines(results: readonly RetrievalResult[]): string {
  return results
    .map((result) => {
      const { history, supersededBy } = result.provenance;
      const note = history === undefined ? "" : ` [history: ${history}${supersededBy?.length ? ` by ${supersededBy.join(", ")}` : ""}]`;
      return `${memoryLines([result])}${note}`;
    })
    .join("\n");
}

/**
 * The retrieve request of a recall: the bound namespace, and what the arguments ask. Asked as of a
 * time, relative dates are read from that time, else from `now`.
 */
export function recallRequest(namespace: string | string[], now: Date, args: z.output<typeof RecallArgsSchema>): RetrieveRequest {
  const { question, filter, asOf } = args;
  const asOfMs = asOf === undefined ? undefined : parseIsoTimestamp(asOf);
  return { question, namespace, ...(asOfMs === undefined ? { now } : { asOf: new Date(asOfMs) }), ...(filter ? { filter } : {}) };
}

export async function recallAction(context: ActionContext, args: unknown): Promise<string> {
  const request = recallRequest(context.namespace, (context.now ?? (() => new Date()))(), parseOrThrow(RecallArgsSchema, args, "arguments"));
  const output = await context.memory.retrieve(request, { configurable: context.configurable ?? {} });
  return output.results.length ? recalledLines(output.results) : "No stored memory matches.";
}

export async function saveAction(context: ActionContext, args: unknown): Promise<string> {
  const [entry] = await context.memory.remember(context.namespace, [parseOrThrow(SaveArgsSchema, args, "arguments")]);
  return `Saved memory ${entry?.id ?? ""}.`;
}

export async function saveDialogueAction(context: ActionContext, args: unknown): Promise<string> {
  const dialogue = parseDialogue(args, "arguments");
  const { store, embedder, model } = context.memory;
  const result = await ingestDialogue(store, embedder, context.namespace, dialogue, model ? { model } : {});
  return `Saved ${result.entries} memories from ${dialogue.turns.length} turns.`;
}

export async function forgetAction(context: ActionContext, args: unknown): Promise<string> {
  const { ids } = parseOrThrow(ForgetArgsSchema, args, "arguments");
  const deleted = await context.memory.forget(context.namespace, ids);
  return `Forgot ${deleted} ${deleted === 1 ? "memory" : "memories"}.`;
}

export async function listAction(context: ActionContext, args: unknown): Promise<string> {
  const options = parseOrThrow(ListArgsSchema, args ?? {}, "arguments");
  const page = await context.memory.list(context.namespace, options);
  if (page.entries.length === 0) return "No stored memories.";
  return [memoryLines(page.entries), ...(page.nextCursor ? [`(more: pass cursor ${page.nextCursor})`] : [])].join("\n");
}

/** Every action with its name and description as agents see them. */
export const MEMORY_ACTIONS = [
  {
    name: "recall_memories",
    description: "Search the user's long-term memories (past conversations, notes, documents). Ask a full natural-language question.",
    schema: RecallArgsSchema,
    run: recallAction,
  },
  {
    name: "save_memory",
    description: "Remember one fact for later: a self-contained statement with names and absolute dates.",
    schema: SaveArgsSchema,
    run: saveAction,
  },
  {
    name: "save_dialogue",
    description:
      "Remember a conversation: its turns (speaker, text, time) become memories. Save it whole or a few turns at a time as it goes on: a save continues the turns saved before it in the same session.",
    schema: SaveDialogueArgsSchema,
    run: saveDialogueAction,
  },
  {
    name: "forget_memories",
    description: "Delete memories by id (ids come from recall_memories or list_memories). Unknown ids are refused and nothing is deleted.",
    schema: ForgetArgsSchema,
    run: forgetAction,
  },
  {
    name: "list_memories",
    description: "List stored memories, newest first, optionally filtered (since, until, persons, entities, location, documentId).",
    schema: ListArgsSchema,
    run: listAction,
  },
] as const;
