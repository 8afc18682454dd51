import { basename, resolve } from "node:path";
import { z } from "zod";
import { parseOrThrow, ValidationError } from "../core/errors.js";
import { RetrievalConfigSchema } from "../graph/configuration.js";
import type { PresetName } from "../graph/preset-names.js";
import { ABSTENTION_KIND, readBeamFolder, type BeamConversation, type BeamQuestion, type SkippedBeamQuestion } from "./beam-data.js";
import { embedDialogueEntries, messageOfTurn, resultJudgedIds, savingOf, writeDialogueCorpus, type DialogueConversation } from "./dialogue-corpus.js";
import { outcomeFields, runBenchmark, sortedKs, type EvalCase, type EvalContext, type EvalTimings, type RankingOf, type RetrieverRun } from "./harness.js";
import { binaryJudgements, firstMentions } from "./metrics.js";
import { DIALOGUE_EVAL_FIELDS, EVAL_MODES } from "./run.js";
import type { EvalStoreKind } from "./eval-store.js";

export const BeamEvalOptionsSchema = z.strictObject({
  folder: z.string().min(1, "folder is required").describe("a BEAM conversation folder (chat.json, probing_questions/) or a folder of them (e.g. beam/100K)"),
  limit: z.number().int().min(1).optional().describe("ask at most this many questions (abstention ones included), in folder and file order; only their conversations are ingested"),
  conversations: z.array(z.string().trim().min(1)).min(1).optional().describe("conversation folder names to evaluate (e.g. 1, 7); default all"),
  ...DIALOGUE_EVAL_FIELDS,
});
export type BeamEvalOptions = z.input<typeof BeamEvalOptionsSchema>;

export interface BeamRun {
  /** The folder's name, e.g. "100K". */
  dataset: string;
  conversations: string[];
  mode: PresetName;
  ks: number[];
  embedder: string;
  /** The kind of fresh store the recallgraph modes searched. */
  store: EvalStoreKind;
  /** Question kinds in order of first appearance; a result's `category` is its kind's place here, from 1. */
  kinds: string[];
  questions: BeamQuestion[];
  /** Abstention questions asked: their right answer is no evidence, so they are counted apart, not scored. */
  abstentions: BeamQuestion[];
  skipped: SkippedBeamQuestion[];
  /** Entries stored (one per message, more for a message split into parts). */
  entries: number;
  splitMessages: number;
  /** The requested mode first, then (with peers) the other modes and the peers. */
  retrievers: RetrieverRun[];
  timings: EvalTimings;
}

type BeamSettings = z.output<typeof BeamEvalOptionsSchema>;

/**
 * Evaluates evidence retrieval on BEAM as on LoCoMo: each conversation is written by the product's
 * rule-based memory builder (one entry per message) into its own namespace of a fresh store (`store`);
 * every question is asked after the whole conversation (BEAM gives its questions no earlier place),
 * and returned entries are mapped back to message ids through `source.turnIds`. Recall@k is the share
 * of a question's evidence messages found in the top k, per question kind. Abstention questions have
 * no evidence: they are asked of every retriever and what comes back is counted (beam-report.ts).
 */
export async function runBeamEval(options: BeamEvalOptions, context: EvalContext = {}): Promise<BeamRun> {
  const started = performance.now();
  const settings = parseOrThrow(BeamEvalOptionsSchema, options, "options");
  if (context.retrieval) parseOrThrow(RetrievalConfigSchema, context.retrieval, "retrieval");
  const ks = sortedKs(settings.ks);
  const selection = selectQuestions(await readBeamFolder(settings.folder), settings);
  const kinds = kindsOf(selection);
  const corpus = selection.selected.map(dialogueOf);
  const outcome = await runBenchmark(
    {
      embedCorpus: (embeddings, progress) => embedDialogueEntries(corpus, settings.builder ?? {}, embeddings, progress),
      rounds: [
        {
          write: (store, embedder, _prepared, progress) => writeDialogueCorpus(store, embedder, corpus, savingOf(settings), progress),
          cases: selection.questions.map((question) => questionCase(question, selection.selected, kinds)),
          unjudged: selection.abstentions.map((question) => questionCase(question, selection.selected, kinds)),
        },
      ],
      ks,
      peerModes: EVAL_MODES,
      judgedIdsOf: resultJudgedIds(corpus),
      rankingOf: messageRanking,
    },
    settings,
    context,
    started,
  );
  const stored = [...outcome.corpus.values()].flat();
  return {
    dataset: basename(resolve(settings.folder)),
    conversations: selection.selected.map((conversation) => conversation.name),
    mode: settings.mode,
    ks,
    ...outcomeFields(outcome),
    kinds,
    questions: selection.questions,
    abstentions: selection.abstentions,
    skipped: selection.skipped,
    entries: stored.length,
    splitMessages: selection.selected.reduce((sum, conversation) => sum + conversation.splitMessages, 0),
  };
}

interface BeamSelection {
  selected: BeamConversation[];
  questions: BeamQuestion[];
  abstentions: BeamQuestion[];
  skipped: SkippedBeamQuestion[];
}

/** Conversations and questions in order, up to `limit` asked (scored and abstention alike); a selection with none to score is an error. */
function selectQuestions(conversations: readonly BeamConversation[], settings: BeamSettings): BeamSelection {
  const wanted = settings.conversations;
  if (wanted) {
    const known = new Set(conversations.map((conversation) => conversation.name));
    const missing = wanted.filter((name) => !known.has(name));
    if (missing.length > 0) throw new ValidationError("conversations", `not in the folder: ${missing.join(", ")} (it has ${[...known].join(", ")})`);
  }
  let room = settings.limit ?? Infinity;
  const selection: BeamSelection = { selected: [], questions: [], abstentions: [], skipped: [] };
  for (const conversation of conversations) {
    if ((wanted && !wanted.includes(conversation.name)) || room <= 0) continue;
    // File order across scored and abstention questions, so a limit cuts both at the same place.
    const asked = [...conversation.questions, ...conversation.abstentions].sort((a, b) => a.position - b.position).slice(0, room);
    room -= asked.length;
    selection.questions.push(...asked.filter((question) => question.kind !== ABSTENTION_KIND));
    selection.abstentions.push(...asked.filter((question) => question.kind === ABSTENTION_KIND));
    selection.skipped.push(...conversation.skipped);
    if (asked.length > 0) selection.selected.push(conversation);
  }
  if (selection.questions.length === 0) throw new ValidationError("conversations", "no scorable question in the selection");
  return selection;
}

function kindsOf(selection: BeamSelection): string[] {
  return [...new Set([...selection.questions, ...selection.abstentions].map((question) => question.kind))];
}

/** A question as the harness asks it: in its conversation's namespace, after its last message, its evidence messages relevant. */
function questionCase(question: BeamQuestion, selected: readonly BeamConversation[], kinds: readonly string[]): EvalCase {
  const conversation = selected.find((candidate) => candidate.name === question.conversation);
  return {
    id: question.id,
    namespace: namespaceOf(question.conversation),
    question: question.question,
    now: conversation?.askedAt ?? "",
    category: kinds.indexOf(question.kind) + 1,
    judgements: binaryJudgements(question.evidence),
    ...(question.newest ? { newest: question.newest } : {}),
  };
}

function namespaceOf(conversation: string): string {
  return `beam-${conversation}`;
}

/** A conversation as the evaluation writes it: in its own namespace, a part of a long message judged as the message. */
function dialogueOf(conversation: BeamConversation): DialogueConversation {
  return { namespace: namespaceOf(conversation.name), dialogue: conversation.dialogue, judgedIdsOf: (turnIds) => turnIds.map(messageOfTurn) };
}

/** Message-level ranking: a message once, where its best part ranks (only a long message has several). */
export const messageRanking: RankingOf = (ranked) => firstMentions(ranked);
