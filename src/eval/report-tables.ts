import { ValidationError } from "../core/errors.js";
import type { EvalStoreKind } from "./eval-store.js";
import type { EvalTimings, RetrieverRun } from "./harness.js";
import { comparePaired, latencySummary, mean, percentile, roundTo as round, summarize, type Measure, type PairedComparison, type QuestionResult } from "./metrics.js";

/**
 * The pieces every evaluation report is made of, whatever the benchmark: a table of retrievers by
 * measure, the requested mode against each other row question by question (sign test), latencies.
 * A benchmark's report (report.ts for LoCoMo, beir-report.ts for BEIR) picks its measures and rows.
 */

/** A measure per cut-off as the JSON reports print it: keyed by k alone ("10"), rounded to four decimals. */
export type ByK = Record<string, number>;

/** What the recall@k reports (LoCoMo, BEAM) print of one retriever: recall and hit per k, MRR over the largest k, latency. */
export interface RecallAtKJson {
  recall: ByK;
  hit: ByK;
  mrr: number;
  latencyMs: { p50: number; p95: number };
}

/** One retriever's row of a recall@k report run with --peers. */
export interface PeerRowJson extends RecallAtKJson {
  name: string;
  /** Every row but the requested mode's: the requested mode against this one, per k (recall). */
  versusPrimary?: Record<string, PairedComparison>;
}

/** The fields every recall@k report's JSON has; recall, hit and MRR are the requested mode's, over the questions its headline counts. */
export interface RecallRunJson extends RecallAtKJson {
  dataset: string;
  /** The embedder whose vectors every row searched, e.g. "use-lite-v1 (512-d)". */
  embedder: string;
  /** The kind of fresh store the recallgraph rows searched: "sqlite" (in memory) or "qdrant" (a collection dropped after the run). */
  store: EvalStoreKind;
  questions: number;
  skipped: number;
  mode: string;
}

/** One column of a report: its heading and the per-question measure it averages. */
export interface MeasureColumn {
  head: string;
  measure: Measure;
}

/** A row of a report: a retriever's name and the questions it is scored on. */
export interface ScoredRow {
  name: string;
  results: readonly QuestionResult[];
}

/** Mean of a measure over the questions (0 for none). */
export function meanOf(results: readonly QuestionResult[], measure: Measure): number {
  return mean(results.map((result) => measure(result) ?? 0));
}

/** Every row's mean of every column, and its p50 latency. */
export function measureTable(rows: readonly ScoredRow[], columns: readonly MeasureColumn[]): string {
  const cells = rows.map((row) => [row.name, ...columns.map((column) => fixed(meanOf(row.results, column.measure))), ms(percentile(latencies(row.results), 50))]);
  return table(["retriever", ...columns.map((column) => column.head), "p50 ms"], cells);
}

/** The requested row against each other row, per column: mean difference (questions better/worse, sign-test p). */
export function comparisonTable(primary: ScoredRow, others: readonly ScoredRow[], columns: readonly MeasureColumn[]): string {
  const cells = others.map((other) => [
    other.name,
    ...columns.map((column) => {
      const { difference, wins, losses, pValue } = comparePaired(primary.results, other.results, column.measure);
      return `${signed(difference)} (${wins}/${losses}, p ${pValue < 0.001 ? "<0.001" : pValue.toFixed(3)})`;
    }),
  ]);
  return table(["against", ...columns.map((column) => column.head)], cells);
}

/** The requested row against another, per column, as JSON prints it. */
export function comparisonJson(primary: readonly QuestionResult[], other: readonly QuestionResult[], columns: readonly MeasureColumn[]): Record<string, PairedComparison> {
  return Object.fromEntries(
    columns.map((column) => {
      const comparison = comparePaired(primary, other, column.measure);
      // p keeps three significant digits: rounded to decimals, a clear win would print as an impossible 0.
      return [column.head, { ...comparison, difference: round(comparison.difference, 4), pValue: Number(comparison.pValue.toPrecision(3)) }];
    }),
  );
}

/** Recall at each k as report columns, headed `recall@k` unless told otherwise (the JSON keys them by k alone). */
export function recallColumns(ks: readonly number[], head: (k: number) => string = (k) => `recall@${k}`): MeasureColumn[] {
  return ks.map((k) => ({ head: head(k), measure: (score) => score.recall[k] }));
}

export function byK(values: Record<number, number>, ks: readonly number[]): ByK {
  return Object.fromEntries(ks.map((k) => [String(k), round(values[k] ?? 0, 4)]));
}

/** The single k a table shows when it has room for one: 10 when asked for, else the smallest. */
export function preferredK(ks: readonly number[]): number {
  return ks.includes(10) ? 10 : (ks[0] ?? 10);
}

/** Recall per k of each question kind (a result's `category` is its kind's place in `kinds`, from 1); kinds without results left out. */
export function byKindJson(results: readonly QuestionResult[], kinds: readonly string[], ks: readonly number[]): Record<string, { n: number; recall: ByK }> {
  return byGroupJson(
    results,
    kinds.map((kind, index) => ({ name: kind, has: (result) => result.category === index + 1 })),
    ks,
  );
}

/**
 * A part of a run's questions reported apart: a persona, a conversation. Questions of one group share
 * their memories and their asker, so they do not vary independently; a set's lean that one group carries
 * says less about data held apart than the per-question sign test over the set suggests.
 */
export interface QuestionGroup {
  name: string;
  has: (result: QuestionResult) => boolean;
}

/** Groups named in `order`, each holding the questions `groupOf` (question id -> group name) puts in it. */
export function questionGroups(order: readonly string[], groupOf: ReadonlyMap<string, string>): QuestionGroup[] {
  return order.map((name) => ({ name, has: (result) => groupOf.get(result.questionId) === name }));
}

/** With several groups: the requested row against each other row within each group, a table per column. */
export function groupComparisonSections(primary: ScoredRow, others: readonly ScoredRow[], groups: readonly QuestionGroup[], columns: readonly MeasureColumn[], what: string): string[] {
  if (groups.length < 2) return [];
  return columns.flatMap((column) => [
    `${primary.name} against each row within each ${what}, ${column.head}: questions better/worse (▲ / ▼: sign-test p < 0.05)`,
    groupComparisonTable(primary, others, groups, column),
    "",
  ]);
}

/** Recall per k of each group's questions; groups without results left out. */
export function byGroupJson(results: readonly QuestionResult[], groups: readonly QuestionGroup[], ks: readonly number[]): Record<string, { n: number; recall: ByK }> {
  return Object.fromEntries(
    groups.flatMap((group) => {
      const ofGroup = results.filter(group.has);
      return ofGroup.length === 0 ? [] : [[group.name, { n: ofGroup.length, recall: byK(summarize(ofGroup, ks).recall, ks) }]];
    }),
  );
}

/** The requested row against another within each group, per column, as JSON prints it. */
export function groupComparisonJson(
  primary: readonly QuestionResult[],
  other: readonly QuestionResult[],
  groups: readonly QuestionGroup[],
  columns: readonly MeasureColumn[],
): Record<string, Record<string, PairedComparison>> {
  return Object.fromEntries(groups.map((group) => [group.name, comparisonJson(primary.filter(group.has), other.filter(group.has), columns)]));
}

/** The requested row against each other row within each group on one column: questions better/worse, ▲ / ▼ where the sign test gives p < 0.05. */
export function groupComparisonTable(primary: ScoredRow, others: readonly ScoredRow[], groups: readonly QuestionGroup[], column: MeasureColumn): string {
  const cells = others.map((other) => [
    other.name,
    ...groups.map((group) => {
      const { wins, losses, pValue } = comparePaired(primary.results.filter(group.has), other.results.filter(group.has), column.measure);
      return `${wins}/${losses}${pValue < 0.05 ? (wins > losses ? " ▲" : " ▼") : ""}`;
    }),
  ]);
  return table(["against", ...groups.map((group) => group.name)], cells);
}

/** Every row's recall at one k per question kind (as byKindJson), counted on the first row's questions; titled, then a blank line. */
export function kindRecallSection(rows: readonly ScoredRow[], kinds: readonly string[], k: number, title = `recall@${k}`): string[] {
  const counted = rows[0]?.results ?? [];
  const present = kinds.map((kind, index) => ({ kind, category: index + 1 })).filter(({ category }) => counted.some((result) => result.category === category));
  const counts = present.map(({ category }) => counted.filter((result) => result.category === category).length);
  const cells = rows.map((row) => [row.name, ...present.map(({ category }) => fixed(summarize(row.results.filter((result) => result.category === category), [k]).recall[k]))]);
  return [`${title} by question kind (n: ${present.map(({ kind }, i) => `${kind} ${counts[i]}`).join(", ")})`, table(["retriever", ...present.map(({ kind }) => kind)], cells), ""];
}

/** The report's time line: what the model embedded, each phase, the total (`entries` and `questions` as the benchmark calls them). */
export function timeLine(t: EvalTimings, names: { entries: string; questions: string } = { entries: "entries", questions: "questions" }): string {
  const cached = t.vectorsFromCache > 0 ? `, ${t.vectorsFromCache} vectors read from the cache file` : "";
  return (
    `Time: embed ${t.textsEmbedded} texts ${round(t.modelSeconds, 1)} s${cached} (${names.entries} ${round(t.embedEntriesSeconds, 1)} s, ${names.questions} ${round(t.embedQuestionsSeconds, 1)} s), ` +
    `ingest ${round(t.ingestSeconds, 1)} s, ask ${Object.values(t.askSeconds).reduce((sum, s) => sum + s, 0).toFixed(1)} s, total ${round(t.totalSeconds, 1)} s.`
  );
}

/** The requested mode's run: the headline row. */
export function primaryRun(run: { retrievers: readonly RetrieverRun[] }): RetrieverRun {
  const primary = run.retrievers.find((retriever) => retriever.primary) ?? run.retrievers[0];
  if (!primary) throw new ValidationError("retrievers", "an evaluation run without results");
  return primary;
}

export function latencies(results: readonly QuestionResult[]): number[] {
  return results.map((result) => result.latencyMs);
}

export function latencyOf(results: readonly QuestionResult[]): { p50: number; p95: number } {
  return latencySummary(latencies(results));
}

export function fixed(value: number | undefined): string {
  return (value ?? 0).toFixed(3);
}

export function signed(value: number): string {
  return `${value >= 0 ? "+" : "-"}${Math.abs(value).toFixed(3)}`;
}

export function ms(value: number): string {
  return value.toFixed(1);
}

/** A plain text table: first column left-aligned, the rest right-aligned. */
export function table(head: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const widths = head.map((cell, column) => Math.max(cell.length, ...rows.map((row) => (row[column] ?? "").length)));
  const line = (cells: readonly string[]) =>
    cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0))).join("  ").trimEnd();
  return [line(head), widths.map((width) => "-".repeat(width)).join("  "), ...rows.map(line)].join("\n");
}

/** What the peers rows are, under every report's comparison. */
export const PEERS_NOTE =
  "BM25 is MiniSearch with its defaults; LanceDB hybrid (where its package loads) is its full-text index and cosine search fused by its RRF reranker.";
