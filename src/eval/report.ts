import { CATEGORY_NAMES, HEADLINE_CATEGORIES } from "./locomo-questions.js";
import { comparePaired, latencySummary, mean, percentile, roundTo as round, summarize, type PairedComparison, type QuestionResult, type Summary } from "./metrics.js";
import type { EvalRun, RetrieverRun } from "./run.js";

type ByK = Record<string, number>;

/** One retriever's row in the peers table (categories 1-4). */
export interface PeerJson {
  name: string;
  recall: ByK;
  hit: ByK;
  mrr: number;
  latencyMs: { p50: number; p95: number };
  /** Every row but the requested mode's: how the requested mode compares with this one, per k (categories 1-4). */
  versusPrimary?: Record<string, PairedComparison>;
}

/** The machine output of `recallgraph eval --json`; recall, hit and MRR are over categories 1-4. */
export interface EvalJson {
  dataset: string;
  questions: number;
  skipped: number;
  mode: string;
  recall: ByK;
  hit: ByK;
  mrr: number;
  byCategory: Record<string, { n: number; recall: ByK }>;
  llmCallsPerQuery: { mean: number; p50: number };
  latencyMs: { p50: number; p95: number };
  turnsPerEntry: number;
  /** Only with --peers: every retriever of the run, the requested mode first. */
  peers?: PeerJson[];
}

export function evalJson(run: EvalRun): EvalJson {
  const primary = primaryRun(run);
  const headline = headlineSummary(primary.results, run.ks);
  const byCategory: EvalJson["byCategory"] = {};
  for (const category of categoriesOf(primary.results)) {
    const summary = categorySummary(primary.results, category, run.ks);
    byCategory[String(category)] = { n: summary.n, recall: byK(summary.recall, run.ks) };
  }
  const calls = primary.results.map((result) => result.llmCalls);
  const json: EvalJson = {
    dataset: run.dataset,
    questions: run.questions.length,
    skipped: run.skipped.length,
    mode: run.mode,
    recall: byK(headline.recall, run.ks),
    hit: byK(headline.hit, run.ks),
    mrr: round(headline.mrr, 4),
    byCategory,
    llmCallsPerQuery: { mean: round(mean(calls), 3), p50: percentile(calls, 50) },
    latencyMs: latencyOf(primary.results),
    turnsPerEntry: round(run.turnsPerEntry, 3),
  };
  if (run.retrievers.length > 1) json.peers = run.retrievers.map((retriever) => peerJson(retriever, primary, run.ks));
  return json;
}

function peerJson(retriever: RetrieverRun, primary: RetrieverRun, ks: readonly number[]): PeerJson {
  const summary = headlineSummary(retriever.results, ks);
  const peer: PeerJson = { name: retriever.name, recall: byK(summary.recall, ks), hit: byK(summary.hit, ks), mrr: round(summary.mrr, 4), latencyMs: latencyOf(retriever.results) };
  if (retriever !== primary) {
    peer.versusPrimary = Object.fromEntries(
      ks.map((k) => {
        const comparison = headlineComparison(primary, retriever, k);
        // p keeps three significant digits: rounded to decimals, a clear win would print as an impossible 0.
        return [String(k), { ...comparison, difference: round(comparison.difference, 4), pValue: Number(comparison.pValue.toPrecision(3)) }];
      }),
    );
  }
  return peer;
}

/** The requested mode against another row on categories 1-4, question by question. */
function headlineComparison(primary: RetrieverRun, other: RetrieverRun, k: number): PairedComparison {
  const headline = (results: readonly QuestionResult[]) => results.filter((result) => HEADLINE_CATEGORIES.includes(result.category));
  return comparePaired(headline(primary.results), headline(other.results), k);
}

/** The human report: headline, categories, peers (when run), cost and timings. */
export function evalText(run: EvalRun): string {
  const primary = primaryRun(run);
  const peerLines = run.retrievers.length > 1 ? peerSections(run, primary) : [];
  return [...runHeader(run), ...categorySection(primary, run.ks), ...peerLines, ...costLines(run, primary)].join("\n");
}

function runHeader(run: EvalRun): string[] {
  const skippedNote = run.skipped.length ? ` (${run.skipped.length} skipped: missing or malformed evidence ids)` : "";
  return [
    `LoCoMo evidence retrieval: ${run.dataset}, ${run.conversations.length} conversation(s), ${run.questions.length} questions scored${skippedNote}`,
    `mode ${run.mode}, embedder ${run.embedder}, ${run.entries} entries (source turns per entry: ${round(run.turnsPerEntry, 2)}), top ${run.ks[run.ks.length - 1]} retrieved per question`,
    "",
  ];
}

/** The requested mode's recall and MRR per category, then over the headline categories. */
function categorySection(primary: RetrieverRun, ks: readonly number[]): string[] {
  const categoryRows = categoriesOf(primary.results).map((category) => {
    const summary = categorySummary(primary.results, category, ks);
    return [categoryLabel(category), String(summary.n), ...ks.map((k) => fixed(summary.recall[k])), fixed(summary.mrr)];
  });
  const headline = headlineSummary(primary.results, ks);
  categoryRows.push([`1-4 (headline)`, String(headline.n), ...ks.map((k) => fixed(headline.recall[k])), fixed(headline.mrr)]);
  return [`${primary.name}, by category`, table(["category", "n", ...recallHeads(ks), "MRR"], categoryRows), ""];
}

/** With peers: every retriever side by side, the requested mode against each, and recall by category. */
function peerSections(run: EvalRun, primary: RetrieverRun): string[] {
  return [
    ...peerTable(run.retrievers, run.ks),
    ...comparisonTable(run.retrievers, primary, run.ks),
    ...categoryRecallTable(run.retrievers, primary, run.ks),
    "Each distinct text was embedded once; every retriever searched those same vectors (LangGraph's",
    "InMemoryStore was given an Embeddings that serves the cached vectors). BM25 is MiniSearch with its defaults.",
    "",
  ];
}

function peerTable(retrievers: readonly RetrieverRun[], ks: readonly number[]): string[] {
  const hitK = preferredK(ks);
  const peerRows = retrievers.map((retriever) => {
    const summary = headlineSummary(retriever.results, ks);
    return [retriever.name, ...ks.map((k) => fixed(summary.recall[k])), fixed(summary.hit[hitK]), fixed(summary.mrr), ms(percentile(latencies(retriever.results), 50))];
  });
  return ["Same entries, same vectors: categories 1-4", table(["retriever", ...recallHeads(ks), `hit@${hitK}`, "MRR", "p50 ms"], peerRows), ""];
}

function comparisonTable(retrievers: readonly RetrieverRun[], primary: RetrieverRun, ks: readonly number[]): string[] {
  const others = retrievers.filter((retriever) => retriever !== primary);
  const comparisonRows = others.map((retriever) => [
    retriever.name,
    ...ks.map((k) => {
      const { difference, wins, losses, pValue } = headlineComparison(primary, retriever, k);
      return `${signed(difference)} (${wins}/${losses}, p ${pValue < 0.001 ? "<0.001" : pValue.toFixed(3)})`;
    }),
  ]);
  return [
    `${primary.name} against each row, question by question: recall difference (questions better/worse, sign-test p)`,
    table(["against", ...recallHeads(ks)], comparisonRows),
    "",
  ];
}

/** Every retriever's recall at one k, per category of the requested mode's questions. */
function categoryRecallTable(retrievers: readonly RetrieverRun[], primary: RetrieverRun, ks: readonly number[]): string[] {
  const categories = categoriesOf(primary.results);
  const recallK = preferredK(ks);
  const byCategoryRows = retrievers.map((retriever) => [
    retriever.name,
    ...categories.map((category) => fixed(categorySummary(retriever.results, category, ks).recall[recallK])),
  ]);
  return [`recall@${recallK} by category`, table(["retriever", ...categories.map(categoryLabel)], byCategoryRows), ""];
}

function costLines(run: EvalRun, primary: RetrieverRun): string[] {
  const calls = primary.results.map((result) => result.llmCalls);
  const latency = latencyOf(primary.results);
  const t = run.timings;
  return [
    `LLM calls per question: mean ${round(mean(calls), 2)}, p50 ${percentile(calls, 50)}. Latency (${primary.name}): p50 ${latency.p50} ms, p95 ${latency.p95} ms, embedding-model time excluded.`,
    `Time: embed ${t.textsEmbedded} texts ${round(t.modelSeconds, 1)} s (entries ${round(t.embedEntriesSeconds, 1)} s, questions ${round(t.embedQuestionsSeconds, 1)} s), ` +
      `ingest ${round(t.ingestSeconds, 1)} s, ask ${Object.values(t.askSeconds).reduce((sum, s) => sum + s, 0).toFixed(1)} s, total ${round(t.totalSeconds, 1)} s.`,
  ];
}

/** The single k a table shows when it has room for one: 10 when asked for, else the smallest. */
function preferredK(ks: readonly number[]): number {
  return ks.includes(10) ? 10 : (ks[0] ?? 10);
}

function recallHeads(ks: readonly number[]): string[] {
  return ks.map((k) => `recall@${k}`);
}

function categoryLabel(category: number): string {
  return `${category} ${CATEGORY_NAMES[category] ?? ""}`.trim();
}

function categorySummary(results: readonly QuestionResult[], category: number, ks: readonly number[]): Summary {
  return summarize(results.filter((result) => result.category === category), ks);
}

function primaryRun(run: EvalRun): RetrieverRun {
  const primary = run.retrievers.find((retriever) => retriever.primary) ?? run.retrievers[0];
  if (!primary) throw new Error("an evaluation run without results");
  return primary;
}

export function headlineSummary(results: readonly QuestionResult[], ks: readonly number[]): Summary {
  return summarize(results.filter((result) => HEADLINE_CATEGORIES.includes(result.category)), ks);
}

function categoriesOf(results: readonly QuestionResult[]): number[] {
  return [...new Set(results.map((result) => result.category))].sort((a, b) => a - b);
}

function latencies(results: readonly QuestionResult[]): number[] {
  return results.map((result) => result.latencyMs);
}

function latencyOf(results: readonly QuestionResult[]): { p50: number; p95: number } {
  return latencySummary(latencies(results));
}

function byK(values: Record<number, number>, ks: readonly number[]): ByK {
  return Object.fromEntries(ks.map((k) => [String(k), round(values[k] ?? 0, 4)]));
}

function fixed(value: number | undefined): string {
  return (value ?? 0).toFixed(3);
}

function signed(value: number): string {
  return `${value >= 0 ? "+" : "-"}${Math.abs(value).toFixed(3)}`;
}

function ms(value: number): string {
  return value.toFixed(1);
}

/** A plain text table: first column left-aligned, the rest right-aligned. */
export function table(head: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const widths = head.map((cell, column) => Math.max(cell.length, ...rows.map((row) => (row[column] ?? "").length)));
  const line = (cells: readonly string[]) =>
    cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0))).join("  ").trimEnd();
  return [line(head), widths.map((width) => "-".repeat(width)).join("  "), ...rows.map(line)].join("\n");
}
