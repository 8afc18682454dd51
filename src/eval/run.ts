import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { z } from "zod";
import { parseOrThrow, ValidationError } from "../core/errors.js";
import { RetrievalConfigSchema, type RetrievalConfigInput } from "../graph/configuration.js";
import { createRetrievalGraph } from "../graph/graph.js";
import { buildRuleMemories, turnEntryId } from "../ingest/dialogue-rules.js";
import { DialogueBuilderSettingsSchema, writeDialogueMemories, type DialogueBuilderSettings } from "../ingest/dialogue-ingest.js";
import { parseJson } from "../ingest/json-text.js";
import { parseLocomo, type LocomoConversation } from "../ingest/locomo.js";
import { openSqliteStore } from "../stores/sqlite/store.js";
import type { MemoryInput } from "../memory/entry.js";
import type { MemoryStore } from "../stores/port.js";
import type { Embedder } from "../text/embedder.js";
import { createEmbedder, EmbedderConfigSchema, type EmbedderConfig } from "../text/embedders/create-embedder.js";
import { cachedEmbedder, type CachedEmbeddings } from "./cached-embeddings.js";
import { evaluableQuestions, type EvalQuestion, type SkippedQuestion } from "./locomo-questions.js";
import { scoreRanking, type QuestionResult } from "./metrics.js";
import { bm25Peer, inMemoryStorePeer, recallgraphRetriever, type CorpusEntry, type EvalRetriever } from "./peers.js";

/** The retrieval modes the evaluation compares: the presets that make sense for conversations. */
export const EVAL_MODES = ["full", "dense", "lexical", "symbolic", "union", "no-plan", "no-reflect"] as const;
export type EvalMode = (typeof EVAL_MODES)[number];

export const DEFAULT_KS = [5, 10, 25] as const;

export const EvalOptionsSchema = z.strictObject({
  /** A file in LoCoMo's format. */
  file: z.string().min(1, "file is required"),
  mode: z.enum(EVAL_MODES).default("full"),
  /** Also run LangGraph's InMemoryStore, a BM25 library baseline and every other mode on the same entries. */
  peers: z.boolean().default(false),
  /** Ask at most this many scorable questions, in file order (only the conversations they belong to are ingested). */
  limit: z.number().int().min(1).optional(),
  /** Sample ids to evaluate; default all. */
  conversations: z.array(z.string().trim().min(1)).min(1).optional(),
  /** Cut-offs for recall@k and hit@k; retrieval returns max(ks) entries so one run serves all. */
  ks: z.array(z.number().int().min(1).max(1000)).min(1).default([...DEFAULT_KS]),
  /** The embedder when none is handed over in the context; default USE-lite (offline). */
  embedder: EmbedderConfigSchema.default({ provider: "use-lite" }),
  /** Memory builder settings; default the product's defaults (what a user gets). */
  builder: DialogueBuilderSettingsSchema.optional(),
});
export type EvalOptions = z.input<typeof EvalOptionsSchema>;

export interface EvalProgress {
  phase: "embed entries" | "ingest" | "embed questions" | "ask";
  /** For "ask": the retriever being asked. */
  label?: string;
  done: number;
  total: number;
}

/** Live objects an evaluation may be given instead of configurations. */
export interface EvalContext {
  /** Overrides `options.embedder`. */
  embedder?: Embedder;
  /** A chat model for planning and reflection; default none (rules), the embedded default. */
  model?: BaseChatModel;
  /** Retrieval configuration laid over every recallgraph mode (e.g. to try a setting before making it a default). */
  retrieval?: RetrievalConfigInput;
  onProgress?: (progress: EvalProgress) => void;
}

/** One retriever's per-question results. */
export interface RetrieverRun {
  name: string;
  description: string;
  /** True for the mode the run was asked for (the headline row). */
  primary: boolean;
  results: QuestionResult[];
}

export interface EvalTimings {
  /** Embedding the entry texts once (the offline model is the slow part of the whole run). */
  embedEntriesSeconds: number;
  /** Writing the entries through the product's ingest path, vectors already computed. */
  ingestSeconds: number;
  embedQuestionsSeconds: number;
  /** Asking every question, per retriever (model time excluded). */
  askSeconds: Record<string, number>;
  totalSeconds: number;
  /** Texts the embedding model saw (each distinct text once) and the time it took. */
  textsEmbedded: number;
  modelSeconds: number;
}

export interface EvalRun {
  dataset: string;
  conversations: string[];
  mode: EvalMode;
  ks: number[];
  embedder: string;
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
type EvalEmbedder = ReturnType<typeof cachedEmbedder>;
type ReportProgress = (progress: EvalProgress) => void;

/** The questions of a run and the conversations they come from. */
interface EvalSelection {
  selected: LocomoConversation[];
  questions: EvalQuestion[];
  skipped: SkippedQuestion[];
}

/** A retriever to ask, and whether it is the requested mode. */
interface EvalEntrant {
  retriever: EvalRetriever;
  primary: boolean;
}

/**
 * Evaluates evidence retrieval on a LoCoMo-format file: each conversation is ingested by the product's
 * own rule-based memory builder into its own namespace of a fresh in-memory store, every scorable
 * question is asked with the conversation's last session as the reference time, and returned entries
 * are mapped back to turns through `source.turnIds`. Each distinct text is embedded once and shared by
 * every retriever; reported latencies exclude time inside the embedding model.
 */
export async function runEval(options: EvalOptions, context: EvalContext = {}): Promise<EvalRun> {
  const started = performance.now();
  const settings = parseOrThrow(EvalOptionsSchema, options, "options");
  if (context.retrieval) parseOrThrow(RetrievalConfigSchema, context.retrieval, "retrieval");
  const ks = [...new Set(settings.ks)].sort((a, b) => a - b);
  const progress = context.onProgress ?? (() => {});
  const selection = await loadSelection(settings);

  const embedder = cachedEmbedder(context.embedder ?? createEmbedder(settings.embedder));
  const embeddings = embedder.embeddings;
  const store = await openSqliteStore({ path: ":memory:", embedding: embedder.spec });
  try {
    const { selected, questions } = selection;
    const entries = await timed(() => embedEntries(selected, settings.builder ?? {}, embeddings, progress));
    const ingest = await timedOutsideModel(embeddings, () => ingestConversations(store, embedder, selected, entries.value, progress));
    const questionEmbedding = await timed(() => embedQuestions(questions, embeddings, progress));
    const entrants = await evalEntrants(store, embedder, ingest.value, settings, context);
    const asked = await askEveryEntrant(entrants, selection, ks, embeddings, progress);
    const stored = [...ingest.value.values()].flat();
    return {
      dataset: basename(settings.file),
      conversations: selected.map((conversation) => conversation.sampleId),
      mode: settings.mode,
      ks,
      embedder: `${embedder.spec.model} (${embedder.spec.dimension}-d)`,
      questions,
      skipped: selection.skipped,
      entries: stored.length,
      turnsPerEntry: stored.length === 0 ? 0 : stored.reduce((sum, entry) => sum + entry.turnIds.length, 0) / stored.length,
      retrievers: asked.runs,
      timings: {
        embedEntriesSeconds: entries.seconds,
        ingestSeconds: ingest.seconds,
        embedQuestionsSeconds: questionEmbedding.seconds,
        askSeconds: asked.askSeconds,
        totalSeconds: seconds(started),
        textsEmbedded: embeddings.textsEmbedded,
        modelSeconds: embeddings.modelMs / 1000,
      },
    };
  } finally {
    await store.close();
  }
}

/** Reads the file and picks the questions to ask; a selection with none to score is an error. */
async function loadSelection(settings: EvalSettings): Promise<EvalSelection> {
  const all = parseLocomo(parseJson(await readText(settings.file)));
  const selection = selectQuestions(all, settings.conversations, settings.limit);
  if (selection.questions.length === 0) throw new ValidationError("conversations", "no scorable question in the selection");
  return selection;
}

/**
 * Builds each conversation's entries once and embeds every text up front, in one length-sorted pass,
 * so the writes of the ingest find them all cached.
 */
async function embedEntries(
  selected: readonly LocomoConversation[],
  builder: DialogueBuilderSettings,
  embeddings: CachedEmbeddings,
  progress: ReportProgress,
): Promise<MemoryInput[][]> {
  const built = selected.map((conversation) => buildRuleMemories(conversation.dialogue, { ...builder, namespace: conversation.sampleId }));
  const entryTexts = built.flatMap((memories) => memories.map((memory) => memory.text.trim()));
  await embeddings.warm(entryTexts, (done, total) => progress({ phase: "embed entries", done, total }));
  return built;
}

/** Writes each conversation's built entries through the product's ingest path; returns what each stored, by sample id. */
async function ingestConversations(
  store: MemoryStore,
  embedder: EvalEmbedder,
  selected: readonly LocomoConversation[],
  built: readonly MemoryInput[][],
  progress: ReportProgress,
): Promise<Map<string, CorpusEntry[]>> {
  const corpus = new Map<string, CorpusEntry[]>();
  progress({ phase: "ingest", done: 0, total: selected.length });
  for (const [i, conversation] of selected.entries()) {
    await writeDialogueMemories(store, embedder, conversation.sampleId, conversation.dialogue, built[i] ?? []);
    corpus.set(conversation.sampleId, await storedEntries(store, conversation));
    progress({ phase: "ingest", done: i + 1, total: selected.length });
  }
  return corpus;
}

async function embedQuestions(questions: readonly EvalQuestion[], embeddings: CachedEmbeddings, progress: ReportProgress): Promise<void> {
  await embeddings.warm(
    questions.map((question) => question.question),
    (done, total) => progress({ phase: "embed questions", done, total }),
  );
}

/** The requested mode, then with peers every other mode, LangGraph's InMemoryStore and BM25. */
async function evalEntrants(
  store: MemoryStore,
  embedder: EvalEmbedder,
  corpus: ReadonlyMap<string, CorpusEntry[]>,
  settings: EvalSettings,
  context: EvalContext,
): Promise<EvalEntrant[]> {
  const graph = createRetrievalGraph(context.model ? { store, embedder, model: context.model } : { store, embedder });
  const entrants: EvalEntrant[] = [{ retriever: recallgraphRetriever(graph, settings.mode, context.retrieval), primary: true }];
  if (!settings.peers) return entrants;
  for (const mode of EVAL_MODES) {
    if (mode !== settings.mode) entrants.push({ retriever: recallgraphRetriever(graph, mode, context.retrieval), primary: false });
  }
  entrants.push({ retriever: await inMemoryStorePeer(embedder.embeddings, embedder.spec.dimension, corpus), primary: false });
  entrants.push({ retriever: bm25Peer(corpus), primary: false });
  return entrants;
}

/** Asks every question of every entrant in turn; ask time is per retriever, without embedding-model time. */
async function askEveryEntrant(
  entrants: readonly EvalEntrant[],
  selection: EvalSelection,
  ks: readonly number[],
  embeddings: CachedEmbeddings,
  progress: ReportProgress,
): Promise<{ runs: RetrieverRun[]; askSeconds: Record<string, number> }> {
  const maxK = ks[ks.length - 1] ?? 10;
  const nowOf = new Map(selection.selected.map((conversation) => [conversation.sampleId, conversation.lastSessionTime]));
  const askSeconds: Record<string, number> = {};
  const runs: RetrieverRun[] = [];
  for (const { retriever, primary } of entrants) {
    const asked = await timedOutsideModel(embeddings, () =>
      askAll(retriever, selection.questions, nowOf, ks, maxK, embeddings, (done, total) => progress({ phase: "ask", label: retriever.name, done, total })),
    );
    askSeconds[retriever.name] = asked.seconds;
    runs.push({ name: retriever.name, description: retriever.description, primary, results: asked.value });
  }
  return { runs, askSeconds };
}

/** Runs a phase; returns its value and the wall-clock seconds it took. */
async function timed<T>(phase: () => Promise<T>): Promise<{ value: T; seconds: number }> {
  const started = performance.now();
  const value = await phase();
  return { value, seconds: seconds(started) };
}

/** As `timed`, less the time the phase spent inside the embedding model. */
async function timedOutsideModel<T>(embeddings: CachedEmbeddings, phase: () => Promise<T>): Promise<{ value: T; seconds: number }> {
  const modelMsBefore = embeddings.modelMs;
  const { value, seconds } = await timed(phase);
  return { value, seconds: seconds - (embeddings.modelMs - modelMsBefore) / 1000 };
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

/** The entries the rule builder stored for a conversation (one per turn with text), as the peers index them. */
async function storedEntries(store: MemoryStore, conversation: LocomoConversation): Promise<CorpusEntry[]> {
  const namespace = conversation.sampleId;
  const entries = await store.get(namespace, conversation.dialogue.turns.map((turn) => turnEntryId(namespace, turn.turnId)));
  return entries.map((entry) => ({ id: entry.id, text: entry.text, turnIds: entry.source?.turnIds ?? [] }));
}

async function askAll(
  retriever: EvalRetriever,
  questions: readonly EvalQuestion[],
  nowOf: ReadonlyMap<string, string>,
  ks: readonly number[],
  maxK: number,
  embeddings: CachedEmbeddings,
  onProgress: (done: number, total: number) => void,
): Promise<QuestionResult[]> {
  const results: QuestionResult[] = [];
  onProgress(0, questions.length);
  for (const [i, question] of questions.entries()) {
    const modelMsBefore = embeddings.modelMs;
    const askStarted = performance.now();
    const answer = await retriever.ask({ namespace: question.conversationId, question: question.question, now: nowOf.get(question.conversationId) ?? "" }, maxK);
    // Time inside the embedding model (sub-queries, gap queries not seen before) is not retrieval time.
    const latencyMs = performance.now() - askStarted - (embeddings.modelMs - modelMsBefore);
    results.push({
      conversationId: question.conversationId,
      index: question.index,
      category: question.category,
      latencyMs,
      llmCalls: answer.llmCalls,
      ...scoreRanking(answer.ranked, question.evidence, ks),
    });
    if ((i + 1) % 25 === 0 || i + 1 === questions.length) onProgress(i + 1, questions.length);
  }
  return results;
}

function seconds(since: number): number {
  return (performance.now() - since) / 1000;
}

async function readText(path: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch {
    throw new ValidationError("file", `cannot read ${path}`);
  }
}
