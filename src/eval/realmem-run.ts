import { basename, resolve } from "node:path";
import { z } from "zod";
import { parseOrThrow, ValidationError } from "../core/errors.js";
import { RetrievalConfigSchema } from "../graph/configuration.js";
import type { PresetName } from "../graph/preset-names.js";
import { embedDialogueEntries, messageOfTurn, resultJudgedIds, savingOf, writeDialogueCorpus, type DialogueConversation, type DialogueSaving } from "./dialogue-corpus.js";
import type { EvalStoreKind } from "./eval-store.js";
import { outcomeFields, runBenchmark, sortedKs, type BenchmarkRound, type EvalCase, type EvalContext, type EvalTimings, type RankingOf, type RetrieverRun } from "./harness.js";
import { binaryJudgements, firstMentions } from "./metrics.js";
import { readRealmem, type EvidenceTally, type RealmemPersona, type RealmemQuestion, type RealmemSession } from "./realmem-data.js";
import { DIALOGUE_EVAL_FIELDS, EVAL_MODES } from "./run.js";

export const RealmemEvalOptionsSchema = z.strictObject({
  path: z.string().min(1, "path is required").describe("a RealMem persona file (<Person>_dialogues_256k.json) or a folder of them"),
  limit: z.number().int().min(1).optional().describe("ask at most this many scorable questions, in file order; sessions after the last one asked are not written"),
  personas: z.array(z.string().trim().min(1)).min(1).optional().describe("person names to evaluate (e.g. Kenta_Tanaka); default all"),
  ...DIALOGUE_EVAL_FIELDS,
});
export type RealmemEvalOptions = z.input<typeof RealmemEvalOptionsSchema>;

/** The level a result's `levels` key names: the same answers scored against the evidence turns. */
export const TURN_LEVEL = "turn";

export interface RealmemRun {
  /** The file's or folder's name. */
  dataset: string;
  personas: string[];
  mode: PresetName;
  ks: number[];
  embedder: string;
  store: EvalStoreKind;
  /** Question kinds (category_name) in order of first appearance; a result's `category` is its kind's place here, from 1. */
  kinds: string[];
  /** Questions scored at session level (every one with an evidence session before it). */
  questions: RealmemQuestion[];
  /** Questions of the selection whose answer names no session before them: counted, not asked. */
  withoutEvidence: RealmemQuestion[];
  skipped: RealmemQuestion[];
  /** Summed over the scored questions. */
  tally: EvidenceTally;
  /** Scored questions cut to the longest question a retrieval takes. */
  truncated: number;
  sessionsWritten: number;
  entries: number;
  splitMessages: number;
  /** Sessions of the selected personas whose date is earlier than the one before them in the file. */
  datesOutOfOrder: number;
  /** The requested mode first, then (with peers) the other modes and the peers; `results` at session level, `levels.turn` at turn level. */
  retrievers: RetrieverRun[];
  timings: EvalTimings;
}

type RealmemSettings = z.output<typeof RealmemEvalOptionsSchema>;

interface RealmemSelection {
  personas: RealmemPersona[];
  questions: RealmemQuestion[];
  withoutEvidence: RealmemQuestion[];
  skipped: RealmemQuestion[];
}

/** A round of the run: the persona's sessions since its previous round written, then the questions of the next session asked. */
export interface RealmemRound {
  persona: RealmemPersona;
  sessions: RealmemSession[];
  questions: RealmemQuestion[];
}

/**
 * Evaluates evidence retrieval on RealMem as the benchmark asks: each question with only what was said
 * before it as memory. One namespace per persona in a fresh store; the persona's sessions are written
 * in file order by the product's rule-based builder (one entry per message), and before session k is
 * written every question asked in it is asked, at session k's date. Recall@k is scored at session level
 * (memory_session_uuids; an entry counts for its session) and at turn level (the source turns of the
 * memories used), each session or turn once, where it first ranks.
 */
export async function runRealmemEval(options: RealmemEvalOptions, context: EvalContext = {}): Promise<RealmemRun> {
  const started = performance.now();
  const settings = parseOrThrow(RealmemEvalOptionsSchema, options, "options");
  if (context.retrieval) parseOrThrow(RetrievalConfigSchema, context.retrieval, "retrieval");
  const ks = sortedKs(settings.ks);
  const selection = selectQuestions(await readRealmem(settings.path), settings);
  const kinds = [...new Set(selection.questions.map((question) => question.kind))];
  const rounds = realmemRounds(selection.personas, selection.questions);
  const writes = rounds.map((round) => round.sessions.flatMap((session) => sessionConversation(round.persona, session)));
  const corpus = writes.flat();
  const turnJudgements = new Map(selection.questions.map((question) => [question.id, binaryJudgements(question.turns)]));
  const outcome = await runBenchmark(
    {
      embedCorpus: (embeddings, progress) => embedDialogueEntries(corpus, settings.builder ?? {}, embeddings, progress),
      rounds: benchmarkRounds(rounds, writes, kinds, savingOf(settings)),
      ks,
      peerModes: EVAL_MODES,
      judgedIdsOf: resultJudgedIds(corpus),
      rankingOf: sessionRanking,
      levels: [{ name: TURN_LEVEL, rankingOf: turnRanking, judgementsOf: (question) => turnJudgements.get(question.id) }],
    },
    settings,
    context,
    started,
  );
  return {
    dataset: basename(resolve(settings.path)),
    personas: selection.personas.map((persona) => persona.name),
    mode: settings.mode,
    ks,
    ...outcomeFields(outcome),
    kinds,
    questions: selection.questions,
    withoutEvidence: selection.withoutEvidence,
    skipped: selection.skipped,
    tally: sumTallies(selection.questions),
    truncated: selection.questions.filter((question) => question.truncated).length,
    sessionsWritten: rounds.reduce((sum, round) => sum + round.sessions.length, 0),
    entries: [...outcome.corpus.values()].reduce((sum, entries) => sum + entries.length, 0),
    splitMessages: rounds.reduce((sum, round) => sum + round.sessions.reduce((parts, session) => parts + session.splitMessages, 0), 0),
    datesOutOfOrder: selection.personas.reduce((sum, persona) => sum + persona.datesOutOfOrder, 0),
  };
}

/**
 * The run's schedule: per persona, for each session asking a selected question (in file order), the
 * sessions since the previous such session, then that session's questions. A question therefore sees
 * exactly the sessions before its own; sessions after the last question are never written.
 */
export function realmemRounds(personas: readonly RealmemPersona[], questions: readonly RealmemQuestion[]): RealmemRound[] {
  const rounds: RealmemRound[] = [];
  for (const persona of personas) {
    const bySession = new Map<number, RealmemQuestion[]>();
    for (const question of questions) if (question.persona === persona.name) bySession.set(question.sessionIndex, [...(bySession.get(question.sessionIndex) ?? []), question]);
    let written = 0;
    for (const [index, asked] of [...bySession].sort(([a], [b]) => a - b)) {
      rounds.push({ persona, sessions: persona.sessions.slice(written, index), questions: asked });
      written = index;
    }
  }
  return rounds;
}

/** Each round as the harness plays it: its sessions (their texts embedded up front) written, then its questions asked. */
function benchmarkRounds(
  rounds: readonly RealmemRound[],
  writes: readonly DialogueConversation[][],
  kinds: readonly string[],
  saving: DialogueSaving,
): BenchmarkRound<void>[] {
  return rounds.map((round, i) => ({
    write: (store, embedder, _prepared, progress) => writeDialogueCorpus(store, embedder, writes[i] ?? [], saving, progress),
    cases: round.questions.map((question) => questionCase(question, kinds)),
  }));
}

/** A session as the evaluation writes it: in its persona's namespace, a part of a long message judged as the message; none when it has no turn. */
function sessionConversation(persona: RealmemPersona, session: RealmemSession): DialogueConversation[] {
  if (!session.dialogue) return [];
  return [{ namespace: namespaceOf(persona.name), dialogue: session.dialogue, judgedIdsOf: (turnIds) => turnIds.map(messageOfTurn) }];
}

function namespaceOf(persona: string): string {
  return `realmem-${persona}`;
}

/** A question as the harness asks it: in its persona's namespace, at its session's date, its evidence sessions relevant. */
function questionCase(question: RealmemQuestion, kinds: readonly string[]): EvalCase {
  return {
    id: question.id,
    namespace: namespaceOf(question.persona),
    question: question.question,
    now: question.askedAt,
    category: kinds.indexOf(question.kind) + 1,
    judgements: binaryJudgements(question.sessions),
  };
}

/** The session an entry's turn (`UUID:N`) belongs to. */
export function sessionOfTurn(turn: string): string {
  const colon = turn.lastIndexOf(":");
  return colon < 0 ? turn : turn.slice(0, colon);
}

/** Session-level ranking: a session once, where its first entry ranks. */
export const sessionRanking: RankingOf = (ranked) => firstMentions(ranked.map((turns) => turns.map(sessionOfTurn)));

/** Turn-level ranking: a message once, where its best part ranks. */
export const turnRanking: RankingOf = (ranked) => firstMentions(ranked);

/** Personas and questions in order, up to `limit` scorable questions; a selection with none to score is an error. */
function selectQuestions(personas: readonly RealmemPersona[], settings: RealmemSettings): RealmemSelection {
  const names = personas.map((persona) => persona.name);
  const repeated = names.find((name, i) => names.indexOf(name) !== i);
  if (repeated !== undefined) throw new ValidationError("path", `two persona files are both ${repeated}'s`);
  const wanted = settings.personas;
  const missing = (wanted ?? []).filter((name) => !names.includes(name));
  if (missing.length > 0) throw new ValidationError("personas", `not in ${settings.path}: ${missing.join(", ")} (it has ${names.join(", ")})`);
  let room = settings.limit ?? Infinity;
  const selection: RealmemSelection = { personas: [], questions: [], withoutEvidence: [], skipped: [] };
  for (const persona of personas) {
    if ((wanted && !wanted.includes(persona.name)) || room <= 0) continue;
    const scored = selection.questions.length;
    for (const question of persona.questions) {
      if (room <= 0) break;
      if (question.skipped) selection.skipped.push(question);
      else if (question.sessions.length === 0) selection.withoutEvidence.push(question);
      else {
        selection.questions.push(question);
        room -= 1;
      }
    }
    if (selection.questions.length > scored) selection.personas.push(persona);
  }
  if (selection.questions.length === 0) throw new ValidationError("personas", "no scorable question in the selection");
  return selection;
}

function sumTallies(questions: readonly RealmemQuestion[]): EvidenceTally {
  const sum: EvidenceTally = { sessionsNotBefore: 0, memories: 0, memoriesUnmatched: 0, memoriesWithoutTurn: 0 };
  for (const { tally } of questions) {
    sum.sessionsNotBefore += tally.sessionsNotBefore;
    sum.memories += tally.memories;
    sum.memoriesUnmatched += tally.memoriesUnmatched;
    sum.memoriesWithoutTurn += tally.memoriesWithoutTurn;
  }
  return sum;
}
