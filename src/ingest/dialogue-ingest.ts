import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { z } from "zod";
import { parseOrThrow, ValidationError } from "../core/errors.js";
import type { LlmCallRecord } from "../domain/run-account.js";
import { parseIsoTimestamp, type MemoryEntry, type MemoryInput } from "../memory/entry.js";
import { commitMemories, prepareMemories, type PreparedWrite } from "./write-memories.js";
import type { MemoryStore } from "../stores/port.js";
import type { Embedder } from "../text/embedder.js";
import type { Dialogue } from "./dialogue.js";
import { buildLlmMemories, llmEntryId, llmWindowCount, LlmBuilderOptionsSchema, MAX_MEMORIES_PER_WINDOW } from "./dialogue-llm.js";
import { buildRuleMemories, turnEntryId } from "./dialogue-rules.js";
import { retireFromOrigin, withOrigin } from "./origin.js";
import { changedTurnsBefore, continuedDialogue, storedMemoriesBefore, storedTurnsBefore, widenedNeighbours } from "./dialogue-continuation.js";
import { oneSaveAtATime } from "./save-queue.js";
import { EXCHANGE_REACH_TURNS, withContextTurnIds } from "./turn-context.js";

/**
 * Builder settings of both modes (the namespace is given separately): the context options
 * (contextTurns, contextTurnsAfter, contextPlacement, contextChars), timeZone, and for LLM mode
 * windowTurns, overlapTurns, previousEntries, coverAllTurns, retries, timeoutMs. Unknown keys are refused.
 */
export const DialogueBuilderSettingsSchema = LlmBuilderOptionsSchema.omit({ namespace: true }).strict();
export type DialogueBuilderSettings = z.input<typeof DialogueBuilderSettingsSchema>;

export interface DialogueIngestOptions {
  /** When given, memories are extracted by the model (LLM mode); otherwise one rule-built entry per turn. */
  model?: BaseChatModel;
  builder?: DialogueBuilderSettings;
  /** Progress of this dialogue: building (model windows) then writing (entries). */
  onProgress?: (phase: "build" | "write", done: number, total: number) => void;
  /** Clock for createdAt/updatedAt (tests pin it). */
  now?: number;
  /**
   * The file the dialogue was read from (see origin.ts): every entry carries it, and the entries this
   * origin wrote to the namespace before that this run did not make again (turns since removed
   * included) are retired after the write.
   */
  origin?: string;
  /**
   * The store the dialogue is saved to. The dialogue then continues what its session already holds
   * there (dialogue-continuation.ts): with the rules (context in the keywords) its turns, in LLM mode
   * the memories the model wrote of it, shown to the first window. Without it, the dialogue is built on its own.
   */
  store?: MemoryStore;
}

export interface DialogueIngestResult {
  entries: number;
  /** Ids of the entries written, in order. */
  ids: string[];
  /** Old entries of these turns (or of this origin) removed because this run did not produce them again. */
  retired: number;
  mode: "rules" | "llm";
  fallbackWindows: number;
  calls: LlmCallRecord[];
}

/**
 * Builds memories from a dialogue and writes them to `namespace`, all or nothing (see writeMemories).
 * Ids are deterministic, so the same dialogue ingested again replaces its entries; entries an earlier
 * run made for these turns that this run did not make again (a different mode, window size or model
 * answer) are deleted after the write, so re-ingesting never leaves duplicates behind. With an
 * `origin`, so are the entries of turns the dialogue no longer has.
 */
export async function ingestDialogue(
  store: MemoryStore,
  embedder: Embedder,
  namespace: string,
  dialogue: Dialogue,
  options: DialogueIngestOptions = {},
): Promise<DialogueIngestResult> {
  return oneSaveAtATime(store, namespace, async () => {
    const built = await buildDialogue(namespace, dialogue, { ...options, store });
    const prepared = await prepareDialogue(store, embedder, built, options);
    return commitDialogue(store, prepared, options);
  });
}

/** A dialogue's memories, built (by the model or the rules), not yet validated, embedded or written. */
export interface BuiltDialogue {
  namespace: string;
  dialogue: Dialogue;
  memories: MemoryInput[];
  /** Stored memories of the turns the dialogue continues, its turns added to their context; written with its own. */
  neighbours: MemoryInput[];
  mode: "rules" | "llm";
  fallbackWindows: number;
  calls: LlmCallRecord[];
}

/** A dialogue built, validated and embedded, not yet written (see prepareDialogue). */
export interface PreparedDialogue extends Omit<BuiltDialogue, "memories" | "neighbours"> {
  write: PreparedWrite;
  /** The ids this run produced, in order: entries of these turns (or this origin) not among them are retired. */
  ids: string[];
  /** The ids earlier runs may have written for these turns, read before the write (see storedForTurns). */
  madeBefore: string[];
  origin?: string;
}

/**
 * How many build steps `buildDialogue` will report for this dialogue: its model windows in LLM mode,
 * one with the rules (they build a whole dialogue at once; LoCoMo's ten take seconds together).
 * Checks the builder settings as building does.
 */
export function dialogueBuildSteps(dialogue: Dialogue, options: Pick<DialogueIngestOptions, "model" | "builder"> = {}): number {
  const builder = parseBuilder(options.builder);
  return options.model ? llmWindowCount(dialogue.turns.length, builder) : 1;
}

/**
 * Builds a dialogue's memories, each naming the turns said around its own (turn-context.ts), reporting
 * build progress. With a store, the dialogue continues what its session holds there
 * (dialogue-continuation.ts). Nothing is embedded or written.
 */
export async function buildDialogue(namespace: string, dialogue: Dialogue, options: DialogueIngestOptions = {}): Promise<BuiltDialogue> {
  const builder = parseBuilder(options.builder);
  if (options.model) {
    const { store, origin } = options;
    const earlier = store ? await storedMemoriesBefore(store, namespace, dialogue, builder.previousEntries, origin) : [];
    const built = await buildLlmMemories(
      dialogue,
      options.model,
      { ...builder, namespace },
      (done, total) => options.onProgress?.("build", done, total),
      earlier,
    );
    const memories = withContextTurnIds(built.memories, dialogue.turns);
    return { namespace, dialogue, memories, neighbours: [], mode: "llm", fallbackWindows: built.fallbackWindows, calls: built.calls };
  }
  const built = await buildRuleDialogue(namespace, dialogue, builder, options);
  options.onProgress?.("build", 1, 1);
  return { namespace, dialogue, ...built, mode: "rules", fallbackWindows: 0, calls: [] };
}

/** The rule builder's memories of the dialogue's turns, built after the stored turns it continues, and those turns' memories widened by it. */
async function buildRuleDialogue(
  namespace: string,
  dialogue: Dialogue,
  builder: z.output<typeof DialogueBuilderSettingsSchema>,
  { store, origin }: Pick<DialogueIngestOptions, "store" | "origin">,
): Promise<Pick<BuiltDialogue, "memories" | "neighbours">> {
  // Context quoted into the text cannot be read back, so only context in the keywords is continued.
  const before =
    store && builder.contextPlacement === "keywords"
      ? await storedTurnsBefore(store, namespace, dialogue, Math.max(builder.contextTurns, EXCHANGE_REACH_TURNS), origin)
      : [];
  const whole = continuedDialogue(before, dialogue, builder.timeZone);
  const earlier = store && builder.supersession ? await changedTurnsBefore(store, namespace, whole, origin) : [];
  const own = new Set(dialogue.turns.map((turn) => turn.turnId));
  const memories = withContextTurnIds(buildRuleMemories(whole.dialogue, { ...builder, namespace }, whole.resolved, earlier), whole.dialogue.turns);
  return {
    memories: memories.filter((memory) => own.has(memory.source?.turnIds?.[0] ?? "")),
    neighbours: widenedNeighbours(before, whole, builder.contextTurnsAfter),
  };
}

/**
 * Everything of ingestDialogue after building and before the write: validate, embed. Nothing is
 * written, so a caller ingesting several dialogues prepares them all before committing the first.
 */
export async function prepareDialogue(
  store: MemoryStore,
  embedder: Embedder,
  built: BuiltDialogue,
  options: Pick<DialogueIngestOptions, "onProgress" | "now" | "origin"> = {},
): Promise<PreparedDialogue> {
  const { memories, neighbours, ...rest } = built;
  const stored = await storedForTurns(store, built.namespace, built.dialogue);
  refuseTurnIdsOfOtherTurns(stored.found, built, options.origin);
  // The neighbours keep their own origin: they were saved before, from wherever they came.
  const write = await prepareMemories(store, embedder, built.namespace, [...memories.map((memory) => withOrigin(memory, options.origin)), ...neighbours], {
    onProgress: (done, total) => options.onProgress?.("write", done, total),
    ...(options.now !== undefined ? { now: options.now } : {}),
  });
  const ids = write.records.slice(0, memories.length).map((record) => record.entry.id);
  return { ...rest, write, ids, madeBefore: stored.madeIds, ...(options.origin !== undefined ? { origin: options.origin } : {}) };
}

/** Writes a prepared dialogue in one store call, then retires what this run did not make again. */
export async function commitDialogue(
  store: MemoryStore,
  prepared: PreparedDialogue,
  options: Pick<DialogueIngestOptions, "onProgress"> = {},
): Promise<DialogueIngestResult> {
  const { write, ids } = prepared;
  await commitMemories(store, write);
  options.onProgress?.("write", ids.length, ids.length);
  const kept = new Set(write.records.map((record) => record.entry.id));
  const retired =
    (await retireStaleEntries(store, write.namespace, prepared.madeBefore, kept)) + (await retireFromOrigin(store, write.namespace, prepared.origin, kept));
  return { entries: ids.length, ids, retired, mode: prepared.mode, fallbackWindows: prepared.fallbackWindows, calls: prepared.calls };
}

/** The builder settings, validated strictly, so a misspelt setting is an error rather than silently ignored. */
function parseBuilder(builder: DialogueBuilderSettings | undefined): z.output<typeof DialogueBuilderSettingsSchema> {
  return parseOrThrow(DialogueBuilderSettingsSchema, builder ?? {}, "builder");
}

/**
 * What an earlier run stored for these turns, read once before the write: the rule entry of each turn,
 * and the first model entry of each window that started at one (ordinal 0 always exists when the window
 * wrote any). `madeIds` are the ids those runs may have written: the rule entries, and every entry of
 * such a window; what this run does not write again of them is retired after its write.
 */
async function storedForTurns(store: MemoryStore, namespace: string, dialogue: Dialogue): Promise<{ found: MemoryEntry[]; madeIds: string[] }> {
  const ruleIds = dialogue.turns.map((turn) => turnEntryId(namespace, turn.turnId));
  const windowOf = new Map(dialogue.turns.map((turn) => [llmEntryId(namespace, turn.turnId, 0), turn.turnId]));
  const found = await store.get(namespace, [...ruleIds, ...windowOf.keys()]);
  const madeIds = found.flatMap((entry) => {
    const windowKey = windowOf.get(entry.id);
    return windowKey === undefined ? [entry.id] : Array.from({ length: MAX_MEMORIES_PER_WINDOW }, (_, ordinal) => llmEntryId(namespace, windowKey, ordinal));
  });
  return { found, madeIds };
}

/**
 * A turn id names one turn in its namespace: the ids of the turn's memories are made from it, so a turn
 * of another conversation given the same id ("1", as a model numbers a conversation's turns) would
 * replace what was saved of the first, and be read as said around its neighbours. A memory stored for
 * one of these ids whose first turn was said at another time, and whose words this dialogue does not
 * say again, is that case, and is refused before anything is written. The same turns saved again
 * replace their memories: at the same times (edited or not), or with the same words at other times (a
 * conversation saved again as it grew, its times given anew), and so does an ingest of the same
 * origin (a file edited and read again).
 */
function refuseTurnIdsOfOtherTurns(found: readonly MemoryEntry[], built: BuiltDialogue, origin: string | undefined): void {
  const { namespace, dialogue } = built;
  const turns = new Map(dialogue.turns.map((turn, index) => [turn.turnId, { index, ms: parseIsoTimestamp(turn.time) }]));
  const textOf = new Map(built.memories.map((memory) => [memory.id, memory.text.trim()]));
  for (const entry of found) {
    if (origin !== undefined && entry.source?.origin === origin) continue;
    const turnId = entry.source?.turnIds?.[0] ?? "";
    const turn = turns.get(turnId);
    if (!turn || turn.ms === entry.timestampMs || textOf.get(entry.id) === entry.text.trim()) continue;
    const said = new Date(entry.timestampMs).toISOString();
    throw new ValidationError(
      `turns.${turn.index}.turnId`,
      `turn id "${turnId}" already names another turn, said at ${said} in namespace "${namespace}" (memory ${entry.id}); give each turn an id of its own in the namespace, or forget that memory first`,
    );
  }
}

/** Deletes what an earlier run made for these turns (`madeIds`) and this one did not write again. */
async function retireStaleEntries(store: MemoryStore, namespace: string, madeIds: readonly string[], kept: ReadonlySet<string>): Promise<number> {
  const stale = [...new Set(madeIds)].filter((id) => !kept.has(id));
  return stale.length > 0 ? store.delete(namespace, stale) : 0;
}
