import { storeLabel } from "./eval-store.js";
import type { RetrieverRun } from "./harness.js";
import { mean, roundTo as round, summarize, type PairedComparison, type QuestionResult } from "./metrics.js";
import { TURN_LEVEL, type RealmemRun } from "./realmem-run.js";
import {
  byGroupJson,
  byK,
  byKindJson,
  comparisonJson,
  comparisonTable,
  fixed,
  groupComparisonJson,
  groupComparisonSections,
  kindRecallSection,
  latencyOf,
  measureTable,
  preferredK,
  primaryRun,
  questionGroups,
  recallColumns,
  table,
  timeLine,
  type ByK,
  type PeerRowJson,
  type QuestionGroup,
  type RecallRunJson,
  type ScoredRow,
  PEERS_NOTE,
} from "./report-tables.js";

/** Recall, hit and MRR of one level of scoring. */
interface LevelJson {
  recall: ByK;
  hit: ByK;
  mrr: number;
}

/** The turn-level figures beside the session-level headline. */
export interface RealmemTurnJson extends LevelJson {
  /** Questions scored at turn level: those with at least one evidence turn found. */
  n: number;
  byKind: Record<string, { n: number; recall: ByK }>;
}

export interface RealmemPeerJson extends PeerRowJson {
  turn: LevelJson & { versusPrimary?: Record<string, PairedComparison> };
  /** Every row but the requested mode's: the requested mode against this one within each persona, per k (session recall). */
  versusPrimaryByPersona?: Record<string, Record<string, PairedComparison>>;
}

/** The machine output of `recallgraph eval PATH --format realmem --json`; recall, hit and MRR are at session level, over every scored question. */
export interface RealmemJson extends RecallRunJson {
  format: "realmem";
  personas: number;
  /** What each question was asked with as memory. */
  askedWith: "the sessions before its own";
  /** Questions whose answer names no session before them: not scored. */
  withoutEvidence: number;
  byKind: Record<string, { n: number; recall: ByK }>;
  /** Session-level recall of each persona's questions (each persona is its own memory). */
  byPersona: Record<string, { n: number; recall: ByK }>;
  turn: RealmemTurnJson;
  evidence: RealmemRun["tally"];
  sessionsWritten: number;
  entries: number;
  splitMessages: number;
  truncatedQuestions: number;
  datesOutOfOrder: number;
  /** Only with --peers: every retriever of the run, the requested mode first. */
  peers?: RealmemPeerJson[];
}

export function realmemJson(run: RealmemRun): RealmemJson {
  const primary = primaryRun(run);
  const turns = turnResults(primary);
  const personas = personaGroups(run);
  const json: RealmemJson = {
    dataset: run.dataset,
    format: "realmem",
    embedder: run.embedder,
    store: run.store,
    personas: run.personas.length,
    askedWith: "the sessions before its own",
    questions: run.questions.length,
    skipped: run.skipped.length,
    withoutEvidence: run.withoutEvidence.length,
    mode: run.mode,
    ...levelJson(primary.results, run.ks),
    byKind: byKindJson(primary.results, run.kinds, run.ks),
    byPersona: byGroupJson(primary.results, personas, run.ks),
    turn: { n: turns.length, ...levelJson(turns, run.ks), byKind: byKindJson(turns, run.kinds, run.ks) },
    evidence: run.tally,
    sessionsWritten: run.sessionsWritten,
    entries: run.entries,
    splitMessages: run.splitMessages,
    truncatedQuestions: run.truncated,
    datesOutOfOrder: run.datesOutOfOrder,
    latencyMs: latencyOf(primary.results),
  };
  if (run.retrievers.length > 1) json.peers = run.retrievers.map((retriever) => peerJson(run, retriever, primary, personas));
  return json;
}

function peerJson(run: RealmemRun, retriever: RetrieverRun, primary: RetrieverRun, personas: readonly QuestionGroup[]): RealmemPeerJson {
  const peer: RealmemPeerJson = { name: retriever.name, ...levelJson(retriever.results, run.ks), latencyMs: latencyOf(retriever.results), turn: levelJson(turnResults(retriever), run.ks) };
  if (retriever !== primary) {
    const columns = recallColumns(run.ks, String);
    peer.versusPrimary = comparisonJson(primary.results, retriever.results, columns);
    peer.turn.versusPrimary = comparisonJson(turnResults(primary), turnResults(retriever), columns);
    peer.versusPrimaryByPersona = groupComparisonJson(primary.results, retriever.results, personas, columns);
  }
  return peer;
}

function levelJson(results: readonly QuestionResult[], ks: readonly number[]): LevelJson {
  const summary = summarize(results, ks);
  return { recall: byK(summary.recall, ks), hit: byK(summary.hit, ks), mrr: round(summary.mrr[ks[ks.length - 1] ?? 10] ?? 0, 4) };
}

/** Each persona's questions. */
function personaGroups(run: RealmemRun): QuestionGroup[] {
  return questionGroups(run.personas, new Map(run.questions.map((question) => [question.id, question.persona])));
}

function turnResults(retriever: RetrieverRun): QuestionResult[] {
  return retriever.levels?.[TURN_LEVEL] ?? [];
}

/** The human report: what was measured, recall at both levels (per kind), peers (when run), the evidence's accounting, cost. */
export function realmemText(run: RealmemRun): string {
  const primary = primaryRun(run);
  const rows = run.retrievers.length > 1 ? run.retrievers : [primary];
  const turnRows = rows.map((row) => ({ name: row.name, results: turnResults(row) }));
  const k = preferredK(run.ks);
  return [
    ...header(run),
    primaryKindTable(run, primary),
    "",
    ...(rows.length > 1
      ? [
          ...peerLines(run, rows, turnRows),
          ...personaLines(run, rows),
          ...kindRecallSection(rows, run.kinds, k, `session recall@${k}`),
          ...kindRecallSection(turnRows, run.kinds, k, `turn recall@${k}`),
        ]
      : []),
    ...evidenceLines(run),
    ...costLines(run, primary),
  ].join("\n");
}

function header(run: RealmemRun): string[] {
  const skipped = run.skipped.length ? ` (${run.skipped.length} skipped: ${reasons(run)})` : "";
  const split = run.splitMessages > 0 ? `; ${run.splitMessages} message(s) longer than a memory may be, written in parts` : "";
  return [
    `RealMem evidence retrieval: ${run.dataset}, ${run.personas.length} persona(s), ${run.questions.length} questions scored${skipped}, ${run.withoutEvidence.length} without an evidence session before them (not scored)`,
    `mode ${run.mode}, embedder ${run.embedder}, ${storeLabel(run.store)}, ${run.sessionsWritten} sessions written as ${run.entries} entries${split}, top ${run.ks[run.ks.length - 1] ?? 10} entries retrieved per question`,
    "Each question is asked with only the sessions before its own as memory (in file order), at its session's date.",
    "Recall@k is the share of a question's evidence found in the first k: sessions (memory_session_uuids), an entry counting for its",
    "session and a session ranked where its first entry ranks; turns (the source turns of memory_used), a message ranked where its best part ranks.",
    "",
  ];
}

function reasons(run: RealmemRun): string {
  const counts = new Map<string, number>();
  for (const { skipped } of run.skipped) if (skipped) counts.set(skipped, (counts.get(skipped) ?? 0) + 1);
  return [...counts].map(([reason, n]) => `${n} ${reason}`).join(", ");
}

/** The requested mode's recall at every k, per kind and over all, at session then turn level. */
function primaryKindTable(run: RealmemRun, primary: RetrieverRun): string {
  const turns = turnResults(primary);
  const row = (label: string, category: number | undefined) => {
    const ofKind = (results: readonly QuestionResult[]) => (category === undefined ? results : results.filter((result) => result.category === category));
    const [session, turn] = [summarize(ofKind(primary.results), run.ks), summarize(ofKind(turns), run.ks)];
    return [label, String(session.n), ...run.ks.map((k) => fixed(session.recall[k])), String(turn.n), ...run.ks.map((k) => fixed(turn.recall[k]))];
  };
  const head = ["kind", "n", ...run.ks.map((k) => `session@${k}`), "turn n", ...run.ks.map((k) => `turn@${k}`)];
  return [`${primary.name}, recall by question kind`, table(head, [...run.kinds.map((kind, index) => row(kind, index + 1)), row("all", undefined)])].join("\n");
}

function peerLines(run: RealmemRun, rows: readonly RetrieverRun[], turnRows: readonly ScoredRow[]): string[] {
  const [primary, ...others] = rows;
  const [turnPrimary, ...turnOthers] = turnRows;
  if (!primary || !turnPrimary) return [];
  return [
    "session level: recall@k, same entries, same vectors",
    measureTable(rows, recallColumns(run.ks)),
    "",
    "turn level: recall@k",
    measureTable(turnRows, recallColumns(run.ks)),
    "",
    `${primary.name} against each row, question by question: recall difference (questions better/worse, sign-test p), session level`,
    comparisonTable(primary, others, recallColumns(run.ks)),
    "",
    "... and at turn level",
    comparisonTable(turnPrimary, turnOthers, recallColumns(run.ks)),
    "",
    "Every retriever searched what the rule-based builder stored, session by session (LangGraph's InMemoryStore was given an",
    "Embeddings that serves the cached vectors).",
    PEERS_NOTE,
    "",
  ];
}

/** The requested mode against each row within each persona, at every k (session level). */
function personaLines(run: RealmemRun, rows: readonly RetrieverRun[]): string[] {
  const [primary, ...others] = rows;
  return primary ? groupComparisonSections(primary, others, personaGroups(run), recallColumns(run.ks, (k) => `session recall@${k}`), "persona") : [];
}

function evidenceLines(run: RealmemRun): string[] {
  const { sessionsNotBefore, memories, memoriesUnmatched, memoriesWithoutTurn } = run.tally;
  const turnless = run.questions.length - turnResults(primaryRun(run)).length;
  const lines = [
    `Evidence: ${memories} memories used (memory_used) from sessions before their question; ${memoriesUnmatched} match no extracted_memory of their session`,
    `by content; ${memoriesWithoutTurn} have no source turn to be found (source_turn counts from 1 in some sessions and from 0 in others: the`,
    `turn is the reading whose text is source_content_snapshot; none is when no turn is given or neither matches). ${turnless} question(s)`,
    "are left with no evidence turn and are scored at session level only.",
  ];
  if (sessionsNotBefore > 0) lines.push(`${sessionsNotBefore} evidence session(s) named were the asking session itself or a later one: left out (not memory when asked).`);
  if (run.datesOutOfOrder > 0) lines.push(`${run.datesOutOfOrder} session(s) are dated earlier than the session before them in their file; sessions are written in file order, the benchmark's.`);
  if (run.truncated > 0) lines.push(`${run.truncated} question(s) longer than a retrieval takes were cut to its limit.`);
  return [...lines, ""];
}

function costLines(run: RealmemRun, primary: RetrieverRun): string[] {
  const latency = latencyOf(primary.results);
  return [
    `LLM calls per question: mean ${round(mean(primary.results.map((result) => result.llmCalls)), 2)}. Latency (${primary.name}): p50 ${latency.p50} ms, p95 ${latency.p95} ms, embedding-model time excluded.`,
    timeLine(run.timings),
  ];
}
