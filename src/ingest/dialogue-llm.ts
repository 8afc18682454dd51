import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { z } from "zod";
import { parseOrThrow } from "../core/errors.js";
import { callStructured, type StructuredResult } from "../llm/structured.js";
import type { LlmCallRecord } from "../domain/run-account.js";
import { EXTRACT_MEMORIES_SYSTEM, extractMemoriesUserPrompt } from "../llm/prompts/extract-memories.js";
import { log } from "../core/log.js";
import { MAX_SUPERSESSION_REASON_CHARS, MAX_TEXT_CHARS, type MemoryInput } from "../memory/entry.js";
import { keywords } from "../text/tokenizer.js";
import { formatterPerZone } from "../time/calendar.js";
import { participantsOf, type Dialogue, type DialogueTurn } from "./dialogue.js";
import { buildRuleMemories, ContextOptionsSchema, resolveTurnText, RuleBuilderOptionsSchema } from "./dialogue-rules.js";
import { stableId } from "./ids.js";
import { derivedList, MAX_DERIVED_KEYWORDS, MAX_DERIVED_NAMES } from "./text-fields.js";

/** Most memories kept from one window; also bounds the id space a window can own (see llmEntryId). */
export const MAX_MEMORIES_PER_WINDOW = 40;

/** What the model must return for a window. Lists default to empty so a terse model still validates. */
export const ExtractedMemoriesSchema = z.object({
  memories: z
    .array(
      z.object({
        text: z.string().trim().min(1).max(MAX_TEXT_CHARS).describe("Lossless third-person restatement, no pronouns, absolute dates"),
        turnIds: z.array(z.string().trim().min(1)).min(1).max(32).describe("Ids of the turns this entry comes from"),
        persons: z.array(z.string().trim().min(1).max(256)).max(16).default([]),
        entities: z.array(z.string().trim().min(1).max(256)).max(24).default([]),
        location: z.string().trim().max(256).nullable().optional(),
        topic: z.string().trim().max(256).nullable().optional(),
        keywords: z.array(z.string().trim().min(1).max(256)).max(24).default([]),
        operation: z
          .enum(["add", "supersede", "no-op"])
          .default("add")
          .describe("add: a new fact; supersede: it replaces earlier entries (named in supersedes), which stay as history; no-op: an earlier entry already says it, nothing is written"),
        supersedes: z
          .array(z.string().trim().min(1).max(16))
          .max(8)
          .default([])
          .describe("With supersede: the handles (E1, E2...) of the earlier entries shown that this one replaces"),
        reason: z.string().trim().max(512).nullable().optional().describe("With supersede: what changed, in a few words"),
      }),
    )
    .max(MAX_MEMORIES_PER_WINDOW)
    .describe("The memories the window's new turns hold, each a self-contained fact with the turns it comes from"),
});
export type ExtractedMemories = z.infer<typeof ExtractedMemoriesSchema>;

export const LlmBuilderOptionsSchema = ContextOptionsSchema.extend({
  namespace: RuleBuilderOptionsSchema.shape.namespace,
  timeZone: RuleBuilderOptionsSchema.shape.timeZone,
  windowTurns: z.number().int().min(1).max(100).default(10).describe("Turns shown to the model per call"),
  overlapTurns: z
    .number()
    .int()
    .min(0)
    .max(50)
    .default(2)
    .describe("Turns repeated from the previous window as context only, so a fact split across the boundary is seen whole"),
  previousEntries: z.number().int().min(0).max(100).default(20).describe("The previous window's entries shown to the model (for a save's first window, the latest its session already holds), so it does not repeat them and can say what a turn changes"),
  /**
   * When true (default), a NEW turn with content that no extracted entry cites gets its rule-built
   * entry, so no turn becomes unfindable because the model skipped it.
   */
  coverAllTurns: z.boolean().default(true).describe("Give a turn no extracted memory cites its rule-built entry, so no turn becomes unfindable"),
  retries: z.number().int().min(0).max(5).default(1).describe("Extra attempts of a window's model call after a failure"),
  timeoutMs: z.number().int().min(1).default(60_000).describe("Time one model call may take"),
});
export type LlmBuilderOptions = z.input<typeof LlmBuilderOptionsSchema>;

export interface LlmBuildResult {
  memories: MemoryInput[];
  windows: number;
  /** Windows whose model call failed and were built by the rules instead. */
  fallbackWindows: number;
  /** Turns with content no model entry cited, given rule entries (when coverAllTurns). */
  coveredByRules: number;
  calls: LlmCallRecord[];
}

/** Id of the `ordinal`-th model entry of the window whose first NEW turn is `windowKey`. */
export function llmEntryId(namespace: string, windowKey: string, ordinal: number): string {
  return stableId("llm", namespace, windowKey, ordinal);
}

type LlmBuilderSettings = z.output<typeof LlmBuilderOptionsSchema>;

/** One window of turns; `newTurns` are those no earlier window showed, the rest are context only. */
interface TurnWindow {
  index: number;
  start: number;
  turns: DialogueTurn[];
  newTurns: DialogueTurn[];
  /** The first NEW turn's id: what the window's entry ids derive from. */
  key: string;
}

/** What every window of one dialogue shares. */
interface BuildContext {
  settings: LlmBuilderSettings;
  participants: string[];
  resolvedText: ReadonlyMap<string, string>;
  /** Each turn's rule-built entry, by turn id: the fallback and the cover for skipped turns. */
  ruleMemories: ReadonlyMap<string, MemoryInput>;
}

/** A window's entries, and whether the rules stood in for the model entirely or in part. */
interface WindowOutcome {
  memories: MemoryInput[];
  fellBack: boolean;
  coveredByRules: number;
}

/**
 * LLM mode: structured extraction over windows of turns (default 10, overlapping by 2). Each window
 * gets the previous window's entries to avoid repeats and to say what a turn changes (the first gets
 * `earlier`: what its session already holds, when a save continues it); an entry must cite at least one NEW turn of
 * its window (citations outside the window are dropped). A window whose call fails, or returns no
 * usable entry while it has content, is built by the rules. Windows run in order, one call each.
 */
export async function buildLlmMemories(
  dialogue: Dialogue,
  model: BaseChatModel,
  options: LlmBuilderOptions,
  onWindow?: (done: number, total: number) => void,
  earlier: readonly MemoryInput[] = [],
): Promise<LlmBuildResult> {
  const settings = parseOrThrow(LlmBuilderOptionsSchema, options, "options");
  const starts = windowStarts(dialogue.turns.length, settings);
  const context = buildContext(dialogue, settings);
  const result: LlmBuildResult = { memories: [], windows: starts.length, fallbackWindows: 0, coveredByRules: 0, calls: [] };
  let previous: readonly MemoryInput[] = earlier;
  for (const window of turnWindows(dialogue.turns, starts, settings.windowTurns)) {
    const call = await extractWindow(model, window, previous, context);
    result.calls.push(call.record);
    const outcome = settleWindow(call, window, previous, context);
    if (outcome.fellBack) result.fallbackWindows += 1;
    result.coveredByRules += outcome.coveredByRules;
    result.memories.push(...outcome.memories);
    previous = outcome.memories;
    onWindow?.(window.index + 1, starts.length);
  }
  return result;
}

/** How many windows (model calls) buildLlmMemories makes for a dialogue of `turnCount` turns. */
export function llmWindowCount(turnCount: number, settings: WindowSettings): number {
  return windowStarts(turnCount, settings).length;
}

type WindowSettings = Pick<LlmBuilderSettings, "windowTurns" | "overlapTurns">;

/** Where each window starts: `windowTurns` apart less the overlap, the last one reaching the end. */
function windowStarts(turnCount: number, settings: WindowSettings): number[] {
  const step = Math.max(1, settings.windowTurns - Math.min(settings.overlapTurns, settings.windowTurns - 1));
  const starts: number[] = [];
  for (let start = 0; start < turnCount; start += step) {
    starts.push(start);
    if (start + settings.windowTurns >= turnCount) break;
  }
  return starts;
}

/** The windows that show at least one turn no earlier window showed. */
function turnWindows(turns: readonly DialogueTurn[], starts: readonly number[], windowTurns: number): TurnWindow[] {
  const windows: TurnWindow[] = [];
  let coveredUpTo = 0;
  for (const [index, start] of starts.entries()) {
    const shown = turns.slice(start, start + windowTurns);
    const newTurns = shown.filter((_, i) => start + i >= coveredUpTo);
    coveredUpTo = start + shown.length;
    if (newTurns.length === 0) continue;
    windows.push({ index, start, turns: shown, newTurns, key: newTurns[0]?.turnId ?? String(start) });
  }
  return windows;
}

function buildContext(dialogue: Dialogue, settings: LlmBuilderSettings): BuildContext {
  // Each turn's text with relative dates resolved, once: shown to the model and used by the rule builder.
  const resolved = dialogue.turns.map((turn) => resolveTurnText(turn, settings.timeZone));
  const resolvedText = new Map(dialogue.turns.map((turn, index) => [turn.turnId, resolved[index] ?? ""]));
  const ruleMemories = new Map(
    // The model proposes this mode's supersessions; a rule entry standing in for a turn links nothing.
    buildRuleMemories(dialogue, { ...settings, namespace: settings.namespace, supersession: false }, resolved).map((memory) => [memory.source?.turnIds?.[0] ?? "", memory]),
  );
  return { settings, participants: participantsOf(dialogue), resolvedText, ruleMemories };
}

/** The model call for one window: its turns (context-only ones marked) and the previous window's entries. */
async function extractWindow(
  model: BaseChatModel,
  window: TurnWindow,
  previous: readonly MemoryInput[],
  { settings, participants, resolvedText }: BuildContext,
): Promise<StructuredResult<ExtractedMemories>> {
  const user = extractMemoriesUserPrompt({
    participants,
    previousEntries: shownEntries(previous, settings).map((memory) => memory.text),
    turns: window.turns.map((turn) => ({
      turnId: turn.turnId,
      speaker: turn.speaker,
      when: readableTime(turn.time, settings.timeZone),
      text: resolvedText.get(turn.turnId) ?? turn.text,
      ...(turn.imageCaption ? { imageCaption: turn.imageCaption } : {}),
      contextOnly: !window.newTurns.includes(turn),
    })),
  });
  return callStructured(
    model,
    ExtractedMemoriesSchema,
    { system: EXTRACT_MEMORIES_SYSTEM, user },
    { step: "extract-memories", retries: settings.retries, timeoutMs: settings.timeoutMs },
  );
}

/** The model's usable entries, or the rules' when there are none but the window has content. */
function settleWindow(
  call: StructuredResult<ExtractedMemories>,
  window: TurnWindow,
  previous: readonly MemoryInput[],
  context: BuildContext,
): WindowOutcome {
  const proposals = call.ok ? readProposals(call.value, window.turns, window.newTurns, shownEntries(previous, context.settings), context.settings) : { memories: [], alreadyKnown: [] };
  const extracted = proposals.memories.map((memory, ordinal) => ({ ...memory, id: llmEntryId(context.settings.namespace, window.key, ordinal) }));
  if (extracted.length > 0 || proposals.alreadyKnown.length > 0 || !window.newTurns.some((turn) => context.ruleMemories.has(turn.turnId))) {
    return coverUncitedTurns(extracted, window.newTurns, context, proposals.alreadyKnown);
  }
  log.warn("ingest.extract_fallback", { window: window.key, reason: call.ok ? "no usable entries" : call.record.error });
  return { memories: window.newTurns.flatMap((turn) => context.ruleMemories.get(turn.turnId) ?? []), fellBack: true, coveredByRules: 0 };
}

/**
 * With coverAllTurns, adds the rule entry of each NEW turn with content that no extracted entry cites
 * (nor a no-op, `alreadyKnown`: its turns are said by an earlier entry).
 */
function coverUncitedTurns(
  extracted: MemoryInput[],
  newTurns: readonly DialogueTurn[],
  { settings, ruleMemories }: BuildContext,
  alreadyKnown: readonly string[] = [],
): WindowOutcome {
  if (!settings.coverAllTurns) return { memories: extracted, fellBack: false, coveredByRules: 0 };
  const cited = new Set([...extracted.flatMap((memory) => memory.source?.turnIds ?? []), ...alreadyKnown]);
  const cover = newTurns.flatMap((turn) => {
    const rule = ruleMemories.get(turn.turnId);
    return rule && !cited.has(turn.turnId) ? [rule] : [];
  });
  return { memories: [...extracted, ...cover], fellBack: false, coveredByRules: cover.length };
}

/** The earlier entries shown to the model, in order: the handle E<n> names the n-th. */
function shownEntries(previous: readonly MemoryInput[], settings: LlmBuilderSettings): MemoryInput[] {
  return previous.slice(-settings.previousEntries);
}

/** What the model proposed for a window: the entries to write (ids not yet given), and the turns its no-ops cite. */
interface Proposals {
  memories: MemoryInput[];
  alreadyKnown: string[];
}

/**
 * Model output -> proposals: citations limited to the window, at least one NEW turn, repeats of earlier
 * entries dropped. A supersede names earlier entries by the handles shown; handles the model was not
 * shown are ignored, and a supersede left naming none is an add (never a deletion: the old entries stay).
 * With `supersession` off, every supersede is an add.
 */
function readProposals(
  output: ExtractedMemories,
  windowTurns: readonly DialogueTurn[],
  newTurns: readonly DialogueTurn[],
  shown: readonly MemoryInput[],
  settings: LlmBuilderSettings,
): Proposals {
  const byId = new Map(windowTurns.map((turn) => [turn.turnId, turn]));
  const newIds = new Set(newTurns.map((turn) => turn.turnId));
  const seenTexts = new Set(shown.map((memory) => normalizeForComparison(memory.text)));
  const proposals: Proposals = { memories: [], alreadyKnown: [] };
  for (const item of output.memories) {
    const turnIds = [...new Set(item.turnIds.map(stripBrackets))].filter((id) => byId.has(id));
    if (!turnIds.some((id) => newIds.has(id))) continue;
    if (item.operation === "no-op") {
      proposals.alreadyKnown.push(...turnIds);
      continue;
    }
    const comparable = normalizeForComparison(item.text);
    if (seenTexts.has(comparable)) continue;
    seenTexts.add(comparable);
    const cited = windowTurns.filter((turn) => turnIds.includes(turn.turnId));
    proposals.memories.push({ ...toMemory(item, cited, windowTurns), ...(settings.supersession ? supersessionOf(item, shown) : {}) });
  }
  return proposals;
}

/** The ids behind the handles a supersede names, and its reason; nothing for an add or when no handle was shown. */
function supersessionOf(item: ExtractedMemories["memories"][number], shown: readonly MemoryInput[]): Pick<MemoryInput, "supersedes" | "supersessionReason"> {
  if (item.operation !== "supersede") return {};
  const ids = item.supersedes.flatMap((handle) => {
    const index = Number(/^\[?E(\d+)\]?$/i.exec(handle.trim())?.[1]) - 1;
    const id = shown[index]?.id;
    return id === undefined ? [] : [id];
  });
  if (!ids.length) return {};
  return { supersedes: [...new Set(ids)], supersessionReason: `model: ${item.reason?.trim() || "replaces an earlier entry"}`.slice(0, MAX_SUPERSESSION_REASON_CHARS) };
}

/** One extracted item as an entry of the turns it cites (its id is given by the window). */
function toMemory(item: ExtractedMemories["memories"][number], cited: readonly DialogueTurn[], windowTurns: readonly DialogueTurn[]): MemoryInput {
  const memory: MemoryInput = {
    text: item.text,
    keywords: derivedList([...item.keywords, ...keywords(item.text)], MAX_DERIVED_KEYWORDS),
    timestamp: cited[0]?.time ?? windowTurns[0]?.time ?? new Date().toISOString(),
    persons: derivedList([...cited.map((turn) => turn.speaker), ...item.persons], MAX_DERIVED_NAMES),
    entities: derivedList(item.entities, MAX_DERIVED_NAMES),
    source: { turnIds: cited.map((turn) => turn.turnId), ...sessionOf(cited) },
  };
  // One speaker's turns make a memory of what they said; a memory of an exchange has no single speaker.
  const speakers = new Set(cited.map((turn) => turn.speaker));
  if (speakers.size === 1) memory.speaker = [...speakers][0];
  if (item.location) memory.location = item.location;
  if (item.topic) memory.topic = item.topic;
  return memory;
}

/** The session of the turns a memory cites, when they are of one: a later save of that session is shown the memory. */
function sessionOf(cited: readonly DialogueTurn[]): { sessionId?: string } {
  const sessions = new Set(cited.map((turn) => turn.sessionId));
  const [sessionId] = sessions;
  return sessions.size === 1 && sessionId !== undefined ? { sessionId } : {};
}

/** "[D1:3]" and "D1:3" name the same turn: models often copy the brackets. */
function stripBrackets(id: string): string {
  return id.replace(/^\[|\]$/g, "").trim();
}

function normalizeForComparison(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim();
}

const readableFormat = formatterPerZone("en-GB", {
  day: "numeric",
  month: "long",
  year: "numeric",
  hour: "2-digit",
  minute: "2-digit",
  hourCycle: "h23",
});

/** "8 May 2023, 13:56 (UTC)": what the model needs to turn relative dates into absolute ones. */
function readableTime(iso: string, timeZone: string): string {
  return `${readableFormat(timeZone).format(new Date(iso))} (${timeZone})`;
}
