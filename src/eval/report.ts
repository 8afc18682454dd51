import { storeLabel } from "./eval-store.js";
import { CATEGORY_NAMES, HEADLINE_CATEGORIES } from "./locomo-questions.js";
import { mean, percentile, roundTo as round, summarize, type PairedComparison, type QuestionResult, type Summary } from "./metrics.js";
import {
  byGroupJson,
  byK,
  comparisonJson,
  comparisonTable,
  fixed,
  groupComparisonJson,
  groupComparisonSections,
  latencyOf,
  measureTable,
  preferredK,
  primaryRun,
  questionGroups,
  recallColumns,
  table,
  timeLine,
  type ByK,
  type MeasureColumn,
  type PeerRowJson,
  type QuestionGroup,
  type RecallRunJson,
  type ScoredRow,
  PEERS_NOTE,
} from "./report-tables.js";
import { locomoQuestionId, type EvalRun, type RetrieverRun } from "./run.js";

export { table };

/** One retriever's row in the peers table (categories 1-4; versusPrimary too), and the categories reported apart. */
export interface PeerJson extends PeerRowJson {
  /** Category 5 (adversarial), never in the headline: its recall, and the requested mode against this row on its questions. */
  reportedApart?: { n: number; recall: ByK; versusPrimary?: Record<string, PairedComparison> };
  /** Every row but the requested mode's: the requested mode against this one within each conversation, per k (categories 1-4). */
  versusPrimaryByConversation?: Record<string, Record<string, PairedComparison>>;
}

/** The machine output of `recallgraph eval --json`; recall, hit and MRR are over categories 1-4. */
export interface EvalJson extends RecallRunJson {
  byCategory: Record<string, { n: number; recall: ByK }>;
  /** Recall of each conversation's questions of categories 1-4 (each conversation is its own memory). */
  byConversation: Record<string, { n: number; recall: ByK }>;
  llmCallsPerQuery: { mean: number; p50: number };
  turnsPerEntry: number;
  /** Only with --peers: every retriever of the run, the requested mode first. */
  peers?: PeerJson[];
}

export function evalJson(run: EvalRun): EvalJson {
  const primary = primaryRun(run);
  const conversations = conversationGroups(run);
  const headline = headlineSummary(primary.results, run.ks);
  const byCategory: EvalJson["byCategory"] = {};
  for (const category of categoriesOf(primary.results)) {
    const summary = categorySummary(primary.results, category, run.ks);
    byCategory[String(category)] = { n: summary.n, recall: byK(summary.recall, run.ks) };
  }
  const calls = primary.results.map((result) => result.llmCalls);
  const json: EvalJson = {
    dataset: run.dataset,
    embedder: run.embedder,
    store: run.store,
    questions: run.questions.length,
    skipped: run.skipped.length,
    mode: run.mode,
    recall: byK(headline.recall, run.ks),
    hit: byK(headline.hit, run.ks),
    mrr: round(mrrOf(headline, run.ks), 4),
    byCategory,
    byConversation: byGroupJson(headlineResults(primary.results), conversations, run.ks),
    llmCallsPerQuery: { mean: round(mean(calls), 3), p50: percentile(calls, 50) },
    latencyMs: latencyOf(primary.results),
    turnsPerEntry: round(run.turnsPerEntry, 3),
  };
  if (run.retrievers.length > 1) json.peers = run.retrievers.map((retriever) => peerJson(run, retriever, primary, conversations));
  return json;
}

function peerJson(run: EvalRun, retriever: RetrieverRun, primary: RetrieverRun, conversations: readonly QuestionGroup[]): PeerJson {
  const ks = run.ks;
  const summary = headlineSummary(retriever.results, ks);
  const peer: PeerJson = { name: retriever.name, recall: byK(summary.recall, ks), hit: byK(summary.hit, ks), mrr: round(mrrOf(summary, ks), 4), latencyMs: latencyOf(retriever.results) };
  // Keyed by k alone ("10"), as the JSON's recall is.
  const columns = recallColumns(ks, String);
  if (retriever !== primary) {
    const [primaryResults, peerResults] = [headlineResults(primary.results), headlineResults(retriever.results)];
    peer.versusPrimary = comparisonJson(primaryResults, peerResults, columns);
    peer.versusPrimaryByConversation = groupComparisonJson(primaryResults, peerResults, conversations, columns);
  }
  const apart = apartResults(retriever.results);
  if (apart.length) {
    const apartSummary = summarize(apart, ks);
    peer.reportedApart = { n: apartSummary.n, recall: byK(apartSummary.recall, ks) };
    if (retriever !== primary) peer.reportedApart.versusPrimary = comparisonJson(apartResults(primary.results), apart, columns);
  }
  return peer;
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
    `mode ${run.mode}, embedder ${run.embedder}, ${storeLabel(run.store)}, ${run.entries} entries (source turns per entry: ${round(run.turnsPerEntry, 2)}), top ${run.ks[run.ks.length - 1]} retrieved per question`,
    "",
  ];
}

/** The requested mode's recall and MRR per category, then over the headline categories. */
function categorySection(primary: RetrieverRun, ks: readonly number[]): string[] {
  const row = (label: string, summary: Summary) => [label, String(summary.n), ...ks.map((k) => fixed(summary.recall[k])), fixed(mrrOf(summary, ks))];
  const categoryRows = categoriesOf(primary.results).map((category) => row(categoryLabel(category), categorySummary(primary.results, category, ks)));
  categoryRows.push(row("1-4 (headline)", headlineSummary(primary.results, ks)));
  return [`${primary.name}, by category`, table(["category", "n", ...ks.map((k) => `recall@${k}`), "MRR"], categoryRows), ""];
}

/** With peers: every retriever side by side, the requested mode against each, and recall by category. */
function peerSections(run: EvalRun, primary: RetrieverRun): string[] {
  const rows = run.retrievers.map(headlineRow);
  const hitK = preferredK(run.ks);
  const maxK = run.ks[run.ks.length - 1] ?? hitK;
  const peerColumns: MeasureColumn[] = [...recallColumns(run.ks), { head: `hit@${hitK}`, measure: (score) => score.hit[hitK] }, { head: "MRR", measure: (score) => score.reciprocalRank[maxK] }];
  return [
    "Same entries, same vectors: categories 1-4",
    measureTable(rows, peerColumns),
    "",
    `${primary.name} against each row, question by question: recall difference (questions better/worse, sign-test p)`,
    comparisonTable(headlineRow(primary), rows.filter((row) => row.name !== primary.name), recallColumns(run.ks)),
    "",
    ...groupComparisonSections(headlineRow(primary), rows.filter((row) => row.name !== primary.name), conversationGroups(run), recallColumns(run.ks), "conversation"),
    ...categoryRecallTable(run.retrievers, primary, run.ks),
    "Each distinct text was embedded once; every retriever searched those same vectors (LangGraph's",
    "InMemoryStore was given an Embeddings that serves the cached vectors).",
    PEERS_NOTE,
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
  return [
    `LLM calls per question: mean ${round(mean(calls), 2)}, p50 ${percentile(calls, 50)}. Latency (${primary.name}): p50 ${latency.p50} ms, p95 ${latency.p95} ms, embedding-model time excluded.`,
    timeLine(run.timings),
  ];
}

/** LoCoMo's MRR: over every entry retrieved (the largest k). */
function mrrOf(summary: Summary, ks: readonly number[]): number {
  return summary.mrr[ks[ks.length - 1] ?? 10] ?? 0;
}

function categoryLabel(category: number): string {
  return `${category} ${CATEGORY_NAMES[category] ?? ""}`.trim();
}

function categorySummary(results: readonly QuestionResult[], category: number, ks: readonly number[]): Summary {
  return summarize(results.filter((result) => result.category === category), ks);
}

/** Each conversation's questions. */
function conversationGroups(run: EvalRun): QuestionGroup[] {
  return questionGroups(run.conversations, new Map(run.questions.map((question) => [locomoQuestionId(question), question.conversationId])));
}

function headlineResults(results: readonly QuestionResult[]): QuestionResult[] {
  return results.filter((result) => result.category !== undefined && HEADLINE_CATEGORIES.includes(result.category));
}

/** The questions of the categories outside the headline (category 5). */
function apartResults(results: readonly QuestionResult[]): QuestionResult[] {
  return results.filter((result) => result.category !== undefined && !HEADLINE_CATEGORIES.includes(result.category));
}

function headlineRow(retriever: RetrieverRun): ScoredRow {
  return { name: retriever.name, results: headlineResults(retriever.results) };
}

export function headlineSummary(results: readonly QuestionResult[], ks: readonly number[]): Summary {
  return summarize(headlineResults(results), ks);
}

function categoriesOf(results: readonly QuestionResult[]): number[] {
  return [...new Set(results.flatMap((result) => (result.category === undefined ? [] : [result.category])))].sort((a, b) => a - b);
}
