import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import { z } from "zod";
import { parseOrThrow, ValidationError } from "../core/errors.js";
import { RetrievalConfigSchema } from "../graph/configuration.js";
import { PRESET_NAMES, type PresetName } from "../graph/preset-names.js";
import { DialogueBuilderSettingsSchema } from "../ingest/dialogue-ingest.js";
import { parseJson } from "../ingest/json-text.js";
import { parseLocomo, type LocomoConversation } from "../ingest/locomo.js";
import { EmbedderConfigSchema } from "../text/embedders/create-embedder.js";
import { embedDialogueEntries, resultJudgedIds, savingOf, writeDialogueCorpus, type DialogueConversation } from "./dialogue-corpus.js";
import { outcomeFields, runBenchmark, sortedKs, type EvalCase, type EvalContext, type EvalTimings, type RetrieverRun } from "./harness.js";
import { evaluableQuestions, type EvalQuestion, type SkippedQuestion } from "./locomo-questions.js";
import { binaryJudgements } from "./metrics.js";
import { DEFAULT_EVAL_STORE, EvalStoreSchema, type EvalStoreKind } from "./eval-store.js";

export type { EvalContext, EvalProgress, EvalTimings, RetrieverRun } from "./harness.js";

/** The modes a LoCoMo peers run compares: the presets that make sense for conversations. */
export const EVAL_MODES = ["full", "dense", "lexical", "symbolic", "union", "no-plan", "no-reflect"] as const satisfies readonly PresetName[];
/** Any preset can be the mode scored. */
export type EvalMode = PresetName;

export const DEFAULT_KS = [5, 10, 25] as const;

/** The options of every dialogue benchmark (LoCoMo, BEAM, RealMem) beside its data and its selection. */
export const DIALOGUE_EVAL_FIELDS = {
  mode: z.enum(PRESET_NAMES).default("full").describe("the preset scored (the headline)"),
  peers: z.boolean().default(false).describe("also run LangGraph's InMemoryStore, a BM25 library baseline, every other mode and the default with each of its rules off, on the same entries and vectors"),
  ks: z
    .array(z.number().int().min(1).max(1000))
    .min(1)
    .default([...DEFAULT_KS])
    .describe("cut-offs for recall@k and hit@k; retrieval returns max(ks) entries so one run serves all"),
  embedder: EmbedderConfigSchema.default({ provider: "use-lite" }).describe("the embedder when none is handed over in the context; default USE-lite (offline)"),
  store: EvalStoreSchema.default(DEFAULT_EVAL_STORE),
  embeddingCache: z.string().min(1).optional().describe("a file keeping the vectors between runs (read first, written after)"),
  builder: DialogueBuilderSettingsSchema.optional().describe("memory builder settings; default the product's defaults (what a user gets)"),
  turnsPerSave: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe("write each conversation through the ingest this many turns at a time, as an agent saves while it talks; default whole"),
  supersessionBaseline: z
    .boolean()
    .default(false)
    .describe("also ask the mode of the same store with its supersessions hidden, compared question by question: what the builder's supersessions change"),
};

export const EvalOptionsSchema = z.strictObject({
  file: z.string().min(1, "file is required").describe("a file in LoCoMo's format"),
  limit: z.number().int().min(1).optional().describe("ask at most this many scorable questions, in file order (only the conversations they belong to are ingested)"),
  conversations: z.array(z.string().trim().min(1)).min(1).optional().describe("sample ids to evaluate; default all"),
  ...DIALOGUE_EVAL_FIELDS,
});
export type EvalOptions = z.input<typeof EvalOptionsSchema>;

export interface EvalRun {
  dataset: string;
  conversations: string[];
  mode: EvalMode;
  ks: number[];
  embedder: string;
  /** The kind of fresh store the recallgraph modes searched. */
  store: EvalStoreKind;
  /** Questions scored, all categories. */
  questions: EvalQuestion[];
  skipped: SkippedQuestion[];
  entries: number;
  /** Mean number of source turns per stored entry. */
  turnsPerEntry: number;
  /** The requested mode first, then (with peers) the other modes and the peers. */
  retrievers: RetrieverRun[];
  timings: EvalTimings;
}

type EvalSettings = z.output<typeof EvalOptionsSchema>;

/** The questions of a run and the conversations they come from. */
interface EvalSelection {
  selected: LocomoConversation[];
  questions: EvalQuestion[];
  skipped: SkippedQuestion[];
}

/**
 * Evaluates evidence retrieval on a LoCoMo-format file: each conversation is ingested by the product's
 * own rule-based memory builder into its own namespace of a fresh store (`store`), every scorable
 * question is asked with the conversation's last session as the reference time, and returned entries
 * are mapped back to turns through `source.turnIds`. Each distinct text is embedded once and shared by
 * every retriever; reported latencies exclude time inside the embedding model.
 */
export async function runEval(options: EvalOptions, context: EvalContext = {}): Promise<EvalRun> {
  const started = performance.now();
  const settings = parseOrThrow(EvalOptionsSchema, options, "options");
  if (context.retrieval) parseOrThrow(RetrievalConfigSchema, context.retrieval, "retrieval");
  const ks = sortedKs(settings.ks);
  const selection = await loadSelection(settings);
  const { selected, questions } = selection;
  const corpus = selected.map(dialogueOf);
  const outcome = await runBenchmark(
    {
      embedCorpus: (embeddings, progress) => embedDialogueEntries(corpus, settings.builder ?? {}, embeddings, progress),
      rounds: [{ write: (store, embedder, _prepared, progress) => writeDialogueCorpus(store, embedder, corpus, savingOf(settings), progress), cases: questionCases(questions, selected) }],
      ks,
      peerModes: EVAL_MODES,
      judgedIdsOf: resultJudgedIds(corpus),
    },
    settings,
    context,
    started,
  );
  const stored = [...outcome.corpus.values()].flat();
  return {
    dataset: basename(settings.file),
    conversations: selected.map((conversation) => conversation.sampleId),
    mode: settings.mode,
    ks,
    ...outcomeFields(outcome),
    questions,
    skipped: selection.skipped,
    entries: stored.length,
    turnsPerEntry: stored.length === 0 ? 0 : stored.reduce((sum, entry) => sum + entry.judgedIds.length, 0) / stored.length,
  };
}

/** Reads the file and picks the questions to ask; a selection with none to score is an error. */
async function loadSelection(settings: EvalSettings): Promise<EvalSelection> {
  const all = parseLocomo(parseJson(await readText(settings.file)));
  const selection = selectQuestions(all, settings.conversations, settings.limit);
  if (selection.questions.length === 0) throw new ValidationError("conversations", "no scorable question in the selection");
  return selection;
}

/** A question's id within its run: `conv-26:12` (its conversation's sample id, its index among the conversation's questions). */
export function locomoQuestionId(question: Pick<EvalQuestion, "conversationId" | "index">): string {
  return `${question.conversationId}:${question.index}`;
}

/** Each question as the harness asks it: in its conversation's namespace, at its last session, its evidence turns relevant. */
function questionCases(questions: readonly EvalQuestion[], selected: readonly LocomoConversation[]): EvalCase[] {
  const nowOf = new Map(selected.map((conversation) => [conversation.sampleId, conversation.lastSessionTime]));
  return questions.map((question) => ({
    id: locomoQuestionId(question),
    namespace: question.conversationId,
    question: question.question,
    now: nowOf.get(question.conversationId) ?? "",
    category: question.category,
    judgements: binaryJudgements(question.evidence),
  }));
}

/** Conversations and questions in file order, up to `limit` scorable questions; skipped ones counted on the way. */
function selectQuestions(
  conversations: LocomoConversation[],
  wanted: readonly string[] | undefined,
  limit: number | undefined,
): EvalSelection {
  if (wanted) {
    const known = new Set(conversations.map((conversation) => conversation.sampleId));
    const missing = wanted.filter((id) => !known.has(id));
    if (missing.length > 0) throw new ValidationError("conversations", `not in the file: ${missing.join(", ")} (it has ${[...known].join(", ")})`);
  }
  const cap = limit ?? Infinity;
  const selected: LocomoConversation[] = [];
  const questions: EvalQuestion[] = [];
  const skipped: SkippedQuestion[] = [];
  for (const conversation of conversations) {
    if (wanted && !wanted.includes(conversation.sampleId)) continue;
    if (questions.length >= cap) break;
    const split = evaluableQuestions(conversation);
    // Walk the qa list in order so that a limit cuts scorable and skipped questions at the same place.
    const byIndex = new Map<number, EvalQuestion | SkippedQuestion>();
    for (const question of split.questions) byIndex.set(question.index, question);
    for (const question of split.skipped) byIndex.set(question.index, question);
    let asked = 0;
    for (let index = 0; index < conversation.questions.length && questions.length < cap; index += 1) {
      const question = byIndex.get(index);
      if (!question) continue;
      if ("reason" in question) skipped.push(question);
      else {
        questions.push(question);
        asked += 1;
      }
    }
    if (asked > 0) selected.push(conversation);
  }
  return { selected, questions, skipped };
}

/** A conversation as the evaluation writes it: in its sample id's namespace, judged by turn id. */
function dialogueOf(conversation: LocomoConversation): DialogueConversation {
  return { namespace: conversation.sampleId, dialogue: conversation.dialogue, judgedIdsOf: (turnIds) => [...turnIds] };
}

async function readText(path: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch {
    throw new ValidationError("file", `cannot read ${path}`);
  }
}
