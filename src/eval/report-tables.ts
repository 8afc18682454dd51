import { comparePaired, latencySummary, mean, percentile, roundTo as round, type Measure, type PairedComparison, type QuestionResult } from "./metrics.js";

/**
 * The pieces every evaluation report is made of, whatever the benchmark: a table of retrievers by
 * measure, the requested mode against each other row question by question (sign test), latencies.
 * A benchmark's report (report.ts for LoCoMo, beir-report.ts for BEIR) picks its measures and rows.
 */

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
