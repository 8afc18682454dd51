import { z } from "zod";
import { parseOrThrow } from "../core/errors.js";
import { MAX_SUPERSESSION_REASON_CHARS, type MemoryInput } from "../memory/entry.js";
import { keywords } from "../text/tokenizer.js";
import { resolveRelativeDates } from "../time/index.js";
import { participantsOf, type Dialogue, type DialogueTurn } from "./dialogue.js";
import { stableId } from "./ids.js";
import { codeFamilies, findNames, withoutFillers } from "./names.js";
import { ruleSupersessions, type SaidTurn } from "./rule-supersessions.js";
import { derivedList, MAX_DERIVED_KEYWORDS, MAX_DERIVED_NAMES } from "./text-fields.js";
import { turnsAround } from "./turn-context.js";

/**
 * How an entry carries its conversational context. A turn like "Yes, it was amazing!" cannot be
 * found by its own words; the question it answers (the turn before) and the reaction to it (the
 * turn after) usually hold them. Context comes only from neighbouring turns of the same session and
 * never changes who said what. The default, two turns before and one after, measured best of the
 * windows below on both halves of LoCoMo.
 *
 * Measured on LoCoMo categories 1-4, recall@10 of the sqlite store's lexical (FTS5 BM25) view alone,
 * question as query, no planner: no context 0.629; 1 before 0.694; 1 before + 1 after 0.707;
 * 2 before + 1 after 0.735 (the default; 0.742 / 0.726 on conversations 0-4 / 5-9 against 0.723 /
 * 0.692 for 1 + 1); 1 + 1 placed in the text 0.711.
 */
export const ContextOptionsSchema = z.object({
  /** Turns before this one whose words are added (0 = none). Default 2: the turn it replies to and the one before. */
  contextTurns: z.number().int().min(0).max(10).default(2).describe("Turns before each turn whose words it carries (0: none)"),
  /** Turns after this one whose words are added. Default 1: the reply, which often names what this turn is about. */
  contextTurnsAfter: z.number().int().min(0).max(10).default(1).describe("Turns after each turn whose words it carries"),
  /**
   * Where the context goes. "keywords" (default): the neighbours' content words join the entry's
   * keywords, so the lexical view finds the entry while `text` stays exactly what was said.
   * "text": quoted "(replying to X: ...)" / "(answered by X: ...)" lines are added to the text, so the
   * dense view and a reader see them too, at the cost of longer entries.
   */
  contextPlacement: z.enum(["keywords", "text"]).default("keywords").describe("Where the neighbours' words go: the keywords (the text stays as said) or quoted lines in the text"),
  /** Most context characters quoted per neighbouring turn when placed in text. */
  contextChars: z.number().int().min(20).max(2000).default(240).describe("Most characters quoted from each neighbour when placed in the text"),
  /**
   * Whether a memory may supersede an earlier one of the dialogue: by the rules, a turn announcing a
   * change in an explicit form ("moved to", "changed to", "no longer", "instead of", 改成...) supersedes
   * the speaker's latest turn that stated the old value (rule-supersessions.ts); in LLM mode, what the
   * model proposes. Either way the reason is recorded and the old memory kept as history. Default true.
   */
  supersession: z.boolean().default(true).describe("Whether a turn that announces a change supersedes the turn that stated the old value (kept as history)"),
});
export type ContextOptions = z.input<typeof ContextOptionsSchema>;

export const RuleBuilderOptionsSchema = ContextOptionsSchema.extend({
  /** Whose memories: part of every id, so two namespaces never share entries. */
  namespace: z.string().trim().min(1, "namespace must not be empty").describe("Whose memories: part of every entry's id"),
  timeZone: z.string().min(1).default("UTC").describe("IANA time zone in which relative dates ('yesterday') are read"),
});
export type RuleBuilderOptions = z.input<typeof RuleBuilderOptionsSchema>;

/** The deterministic id of the rule-built entry for one turn: re-ingesting the turn replaces it. */
export function turnEntryId(namespace: string, turnId: string): string {
  return stableId("turn", namespace, turnId);
}

/**
 * Rule mode (no LLM): one memory per turn.
 * - text: "<Speaker> said: <what was said>", relative dates rewritten as absolute ones against the
 *   turn's time, an image caption appended as "[shared an image: ...]";
 * - speaker: the turn's speaker; persons: the speaker and everyone named (participants also by nickname);
 * - entities: proper names, codes, quantities; location: a clearly named place, if any;
 * - keywords: the turn's content words plus, per the context options, its neighbours';
 * - timestamp: the turn's time; source.turnIds: [turnId]; id: derived from (namespace, turnId);
 * - supersedes, with supersessionReason: with the `supersession` option, the earlier turn's entry this
 *   turn replaces (see rule-supersessions.ts).
 * Turns with neither text nor caption give no entry. `resolvedTexts`, when the caller has them, are
 * resolveTurnText of each turn in `options.timeZone`, in turn order (computed here otherwise).
 * `earlier`: turns said before the dialogue that a change may replace (read from the store), oldest first.
 */
export function buildRuleMemories(
  dialogue: Dialogue,
  options: RuleBuilderOptions,
  resolvedTexts?: readonly string[],
  earlier: readonly SaidTurn[] = [],
): MemoryInput[] {
  const settings = parseOrThrow(RuleBuilderOptionsSchema, options, "options");
  const participants = participantsOf(dialogue);
  const resolved = resolvedTexts ?? dialogue.turns.map((turn) => resolveTurnText(turn, settings.timeZone));
  // Each turn's own content words, computed once: a turn's words also serve as its neighbours' context.
  const turnKeywords = dialogue.turns.map((turn, index) => turnWords(resolved[index] ?? "", turn.imageCaption));
  const memories: MemoryInput[] = [];
  const turnsSaid: SaidTurn[] = [];
  dialogue.turns.forEach((turn, index) => {
    const ownSaid = resolved[index] ?? "";
    if (!ownSaid && !turn.imageCaption) return;
    const ownText = restate(turn.speaker, ownSaid, turn.imageCaption);
    const neighbours = turnsAround(dialogue.turns, index, settings.contextTurns, settings.contextTurnsAfter);

    let text = ownText;
    const contextWords: string[] = [];
    for (const neighbour of neighbours) {
      const other = dialogue.turns[neighbour];
      if (!other) continue;
      if (settings.contextPlacement === "text") {
        const otherText = [resolved[neighbour] ?? "", other.imageCaption ?? ""].join(" ").trim();
        if (!otherText) continue;
        const relation = neighbour < index ? "replying to" : "answered by";
        text += `\n(${relation} ${other.speaker}: "${clip(otherText, settings.contextChars)}")`;
      } else {
        contextWords.push(...lentWords(turnKeywords[neighbour] ?? []));
      }
    }

    const names = findNames([ownSaid, turn.imageCaption ?? ""].join("\n"), participants);
    const memory: MemoryInput = {
      id: turnEntryId(settings.namespace, turn.turnId),
      text,
      keywords: derivedList([...(turnKeywords[index] ?? []), ...codeFamilies(names.entities), ...contextWords], MAX_DERIVED_KEYWORDS),
      timestamp: turn.time,
      persons: derivedList([turn.speaker, ...names.persons], MAX_DERIVED_NAMES),
      speaker: turn.speaker,
      entities: derivedList(names.entities, MAX_DERIVED_NAMES),
      source: { turnIds: [turn.turnId], ...(turn.sessionId !== undefined ? { sessionId: turn.sessionId } : {}) },
    };
    if (names.location) memory.location = names.location;
    memories.push(memory);
    turnsSaid.push({ id: memory.id ?? "", label: `turn ${turn.turnId}`, speaker: turn.speaker, said: ownSaid, persons: names.persons });
  });
  return settings.supersession ? withRuleSupersessions(memories, turnsSaid, earlier) : memories;
}

/** A turn's own content words (what it said and its image's caption), which it also lends its neighbours. */
export function turnWords(said: string, imageCaption: string | undefined): string[] {
  return withoutFillers(keywords([said, imageCaption ?? ""].join("\n")));
}

/**
 * A neighbour's content words as context. A message with more of them than an entry carries (an
 * assistant's essay beside a user's one-line reply) lends only its first quarter, where it says what it
 * is about: whole, it filled the entry's keywords before the turn's other neighbours had their say (the
 * reply after the turn was cut off), and the turn was found by the essay's words. A chat's turns lend
 * all they have (LoCoMo's hold 29 content words at the 99th percentile).
 */
export function lentWords(words: readonly string[]): readonly string[] {
  return words.length > MAX_DERIVED_KEYWORDS ? words.slice(0, MAX_DERIVED_KEYWORDS / 4) : words;
}

/** The memories with what each supersedes (said[i] is memories[i]'s turn), looking back past them at `earlier`. */
function withRuleSupersessions(memories: MemoryInput[], said: readonly SaidTurn[], earlier: readonly SaidTurn[]): MemoryInput[] {
  for (const [index, link] of ruleSupersessions([...earlier, ...said], (index) => index >= earlier.length)) {
    const memory = memories[index - earlier.length];
    if (memory) Object.assign(memory, { supersedes: link.supersedes, supersessionReason: clip(link.reason, MAX_SUPERSESSION_REASON_CHARS) });
  }
  return memories;
}

/** A turn's words with relative dates made absolute against the turn's own time. */
export function resolveTurnText(turn: DialogueTurn, timeZone = "UTC"): string {
  const text = turn.text.trim();
  if (!text) return "";
  // No forced locale: each expression is restated in its own language, so mixed text stays readable.
  return resolveRelativeDates(text, { now: new Date(turn.time), timeZone });
}

/**
 * "<Speaker> said: <text> [shared an image: <caption>]"; in Chinese ("<Speaker>说：<text>") when the
 * turn is mostly Chinese, so the frame does not mix languages inside one sentence.
 */
export function restate(speaker: string, said: string, imageCaption?: string): string {
  const chinese = isMostlyChinese(said);
  const parts: string[] = [];
  if (said) parts.push(chinese ? `${speaker}说：${said}` : `${speaker} said: ${said}`);
  if (imageCaption) {
    if (chinese) parts.push(`［分享了一张图片：${imageCaption}］`);
    else parts.push(said ? `[shared an image: ${imageCaption}]` : `${speaker} shared an image: ${imageCaption}`);
  }
  return parts.join(chinese ? "" : " ");
}

/**
 * What `restate` was given, read back from a rule-built memory's text: undefined when the text is not
 * in that form (a model's memory, a text edited since, context quoted into it).
 */
export function unstate(speaker: string, text: string): { said: string; imageCaption?: string } | undefined {
  const readings: Array<{ said: string; imageCaption?: string }> = [];
  for (const [lead, open, close] of [
    [`${speaker} said: `, " [shared an image: ", "]"],
    [`${speaker}说：`, "［分享了一张图片：", "］"],
  ] as const) {
    if (!text.startsWith(lead)) continue;
    const rest = text.slice(lead.length);
    const opened = rest.lastIndexOf(open);
    if (opened >= 0 && rest.endsWith(close)) readings.push({ said: rest.slice(0, opened), imageCaption: rest.slice(opened + open.length, -close.length) });
    readings.push({ said: rest });
  }
  const captionOnly = `${speaker} shared an image: `;
  if (text.startsWith(captionOnly)) readings.push({ said: "", imageCaption: text.slice(captionOnly.length) });
  // A reading counts only when restating it gives the text back, so no guess is ever taken for what was said.
  return readings.find((reading) => restate(speaker, reading.said, reading.imageCaption) === text);
}

function isMostlyChinese(text: string): boolean {
  const han = text.match(/\p{Script=Han}/gu)?.length ?? 0;
  const latin = text.match(/[A-Za-z]/g)?.length ?? 0;
  return han > 0 && han >= latin;
}

function clip(text: string, maxChars: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= maxChars ? flat : `${flat.slice(0, maxChars - 1).trimEnd()}…`;
}
