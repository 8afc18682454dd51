import type { BeirRun } from "./beir-run.js";
import { storeLabel, type EvalStoreKind } from "./eval-store.js";
import type { RetrieverRun } from "./harness.js";
import { mean, roundTo as round, type PairedComparison } from "./metrics.js";
import { comparisonJson, comparisonTable, latencyOf, meanOf, measureTable, primaryRun, timeLine, type MeasureColumn, PEERS_NOTE } from "./report-tables.js";

/** BEIR's measures as the reports name them, the headline first. */
const COLUMNS: readonly MeasureColumn[] = [
  { head: "nDCG@10", measure: (score) => score.ndcg[10] },
  { head: "recall@10", measure: (score) => score.recall[10] },
  { head: "recall@100", measure: (score) => score.recall[100] },
  { head: "MRR@10", measure: (score) => score.reciprocalRank[10] },
];

/** The measures keyed as the JSON's `versusPrimary` names them. */
const JSON_COLUMNS: readonly MeasureColumn[] = COLUMNS.map((column) => ({ ...column, head: column.head.replace("nDCG", "ndcg").replace("MRR", "mrr") }));

interface Measures {
  ndcg: { "10": number };
  recall: { "10": number; "100": number };
  mrr: { "10": number };
  latencyMs: { p50: number; p95: number };
}

/** One retriever's row with --peers. */
export interface BeirPeerJson extends Measures {
  name: string;
  /** Every row but the requested mode's: the requested mode against this one, per measure (`ndcg@10`, `recall@10`, `recall@100`, `mrr@10`). */
  versusPrimary?: Record<string, PairedComparison>;
}

/** The machine output of `recallgraph eval DIR --format beir --json` and `recallgraph eval FILE --format squad --json`. */
export interface BeirJson extends Measures {
  dataset: string;
  /** beir (a folder) or squad (a SQuAD-layout file, paragraphs as documents). */
  format: "beir" | "squad";
  /** BEIR only: the qrels split judged. */
  split?: string;
  /** The embedder whose vectors every row searched, e.g. "onnx:all-MiniLM-L6-v2-int8:q8 (384-d)". */
  embedder: string;
  /** The kind of fresh store the recallgraph rows searched: "sqlite" (in memory) or "qdrant" (a collection dropped after the run). */
  store: EvalStoreKind;
  queries: number;
  mode: string;
  /** Only with --peers: every retriever of the run, the requested mode first. */
  peers?: BeirPeerJson[];
}

export function beirJson(run: BeirRun): BeirJson {
  const primary = primaryRun(run);
  const { ndcg, recall, mrr, latencyMs } = measuresOf(primary);
  const json: BeirJson = {
    dataset: run.dataset,
    format: run.format,
    ...(run.split !== undefined ? { split: run.split } : {}),
    embedder: run.embedder,
    store: run.store,
    queries: run.queries,
    mode: run.mode,
    ndcg,
    recall,
    mrr,
    latencyMs,
  };
  if (run.retrievers.length > 1) {
    json.peers = run.retrievers.map((retriever) => ({
      name: retriever.name,
      ...measuresOf(retriever),
      ...(retriever === primary ? {} : { versusPrimary: comparisonJson(primary.results, retriever.results, JSON_COLUMNS) }),
    }));
  }
  return json;
}

function measuresOf(retriever: RetrieverRun): Measures {
  const [ndcg10, recall10, recall100, mrr10] = COLUMNS.map((column) => round(meanOf(retriever.results, column.measure), 4));
  return { ndcg: { "10": ndcg10 ?? 0 }, recall: { "10": recall10 ?? 0, "100": recall100 ?? 0 }, mrr: { "10": mrr10 ?? 0 }, latencyMs: latencyOf(retriever.results) };
}

/** The human report: what was measured, the requested mode (and with peers every row), cost and timings. */
export function beirText(run: BeirRun): string {
  const primary = primaryRun(run);
  const rows = run.retrievers.length > 1 ? run.retrievers : [primary];
  return [
    ...header(run),
    run.retrievers.length > 1 ? `Same documents, same vectors, every query${run.format === "beir" ? " of the split" : ""}` : `${primary.name}`,
    measureTable(rows, COLUMNS),
    "",
    ...(run.retrievers.length > 1 ? comparisonLines(run, primary) : []),
    ...costLines(run, primary),
  ].join("\n");
}

function header(run: BeirRun): string[] {
  const { corpus, judgements } = run;
  const notes = [
    judgements.emptyQueries > 0 ? `${judgements.emptyQueries} without text left out` : "",
    judgements.queriesWithoutRelevant > 0 ? `${judgements.queriesWithoutRelevant} judged without a relevant document left out` : "",
    judgements.relevantMissing > 0 ? `${judgements.relevantMissing} relevant judgement(s) name a document the corpus lacks (counted, never findable)` : "",
  ].filter(Boolean);
  const parts = [
    corpus.splitDocuments > 0 ? `${corpus.splitDocuments} longer than a memory may be, split into parts (a document ranks where its best part does)` : "",
    corpus.emptyDocuments > 0 ? `${corpus.emptyDocuments} empty, left out` : "",
  ].filter(Boolean);
  return [
    `${sourceLine(run)}, ${run.queries} queries scored${notes.length ? ` (${notes.join("; ")})` : ""}`,
    `mode ${run.mode}, embedder ${run.embedder}, ${storeLabel(run.store)}, ${corpus.documents} documents as ${corpus.entries} memories${parts.length ? ` (${parts.join("; ")})` : ""}, ` +
      `top ${run.ks[run.ks.length - 1]} retrieved per query`,
    "nDCG@10, recall@k and MRR@10 as BEIR scores them (trec_eval's definitions, linear gains, a result whose id is the query's ignored).",
    "",
  ];
}

/** What was read: a BEIR folder and its split, or a SQuAD-layout file whose paragraphs are the documents. */
function sourceLine(run: BeirRun): string {
  if (run.format === "squad") return `Retrieval on a SQuAD-layout file (paragraphs as documents, each question's own paragraph relevant): ${run.dataset}`;
  return `BEIR retrieval: ${run.dataset}, split ${run.split ?? "test"}`;
}

function comparisonLines(run: BeirRun, primary: RetrieverRun): string[] {
  return [
    `${primary.name} against each row, query by query: difference (queries better/worse, sign-test p)`,
    comparisonTable(primary, run.retrievers.filter((retriever) => retriever !== primary), COLUMNS),
    "",
    "Each distinct text was embedded once; every retriever searched those same vectors (LangGraph's",
    "InMemoryStore was given an Embeddings that serves the cached vectors).",
    PEERS_NOTE,
    "",
  ];
}

function costLines(run: BeirRun, primary: RetrieverRun): string[] {
  const latency = latencyOf(primary.results);
  const calls = primary.results.map((result) => result.llmCalls);
  return [
    `LLM calls per query: mean ${round(mean(calls), 2)}. Latency (${primary.name}): p50 ${latency.p50} ms, p95 ${latency.p95} ms, embedding-model time excluded.`,
    timeLine(run.timings, { entries: "documents", questions: "queries" }),
  ];
}
