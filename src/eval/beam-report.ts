import type { BeamRun } from "./beam-run.js";
import type { RetrieverRun } from "./harness.js";
import { mean, percentile, roundTo as round, separation, summarize } from "./metrics.js";
import {
  byK,
  byKindJson,
  comparisonJson,
  comparisonTable,
  fixed,
  kindRecallSection,
  latencyOf,
  measureTable,
  preferredK,
  primaryRun,
  recallColumns,
  table,
  timeLine,
  type ByK,
  type PeerRowJson,
  type RecallRunJson,
  PEERS_NOTE,
} from "./report-tables.js";
import { storeLabel } from "./eval-store.js";

/**
 * What the abstention questions got back. The product has no absolute "nothing relevant" threshold in
 * its conversation modes (the dense view's floor, denseMinScore, is 0 by default; BM25's is relative to
 * the best hit), so the share answered with nothing at all is what a user would see, and is reported
 * as it is rather than as a score.
 */
export interface AbstentionJson {
  n: number;
  /** Share of abstention questions answered with no entry at all. */
  returnedNothing: number;
  /** Mean entries returned (at most the largest k). */
  meanReturned: number;
  /**
   * Whether a threshold on the answer's best dense similarity could answer "nothing": its median for the
   * abstention questions and for the scored ones, and how well it tells them apart (metrics.ts
   * `separation`: the chance that a scored question's exceeds an abstention question's; 0.5 is chance).
   * Only for a retriever that reports similarities.
   */
  similarity?: { abstentionMedian: number; answerableMedian: number; separation: number };
}

export interface BeamPeerJson extends PeerRowJson {
  abstention: AbstentionJson;
  newestFirst: NewestFirstJson;
}

/** Knowledge-update questions whose evidence holds an older and a newer statement: does the newer rank first? */
export interface NewestFirstJson {
  /** Questions with both an updated and an older evidence message. */
  n: number;
  /** Of those, how many had both in the top k (the largest). */
  bothReturned: number;
  /** Share of `bothReturned` with the newest evidence ranked above the older. */
  newestAbove: number;
  /** Mean rank (1-based) of the newest evidence where it was returned; null when it never was. */
  meanNewestRank: number | null;
}

/** The machine output of `recallgraph eval DIR --format beam --json`; recall, hit and MRR are over every scored question. */
export interface BeamJson extends RecallRunJson {
  format: "beam";
  conversations: number;
  /** When each question was asked: BEAM gives its questions no place in the conversation, so after all of it. */
  askedAfter: "the whole conversation";
  byKind: Record<string, { n: number; recall: ByK }>;
  abstention: AbstentionJson;
  newestFirst: NewestFirstJson;
  /** Only with --peers: every retriever of the run, the requested mode first. */
  peers?: BeamPeerJson[];
}

export function beamJson(run: BeamRun): BeamJson {
  const primary = primaryRun(run);
  const summary = summarize(primary.results, run.ks);
  const json: BeamJson = {
    dataset: run.dataset,
    format: "beam",
    embedder: run.embedder,
    store: run.store,
    conversations: run.conversations.length,
    askedAfter: "the whole conversation",
    questions: run.questions.length,
    skipped: run.skipped.length,
    mode: run.mode,
    recall: byK(summary.recall, run.ks),
    hit: byK(summary.hit, run.ks),
    mrr: round(summary.mrr[maxK(run)] ?? 0, 4),
    byKind: byKindJson(primary.results, run.kinds, run.ks),
    abstention: abstentionOf(primary),
    newestFirst: newestFirstOf(primary),
    latencyMs: latencyOf(primary.results),
  };
  if (run.retrievers.length > 1) json.peers = run.retrievers.map((retriever) => peerJson(run, retriever, primary));
  return json;
}

function peerJson(run: BeamRun, retriever: RetrieverRun, primary: RetrieverRun): BeamPeerJson {
  const summary = summarize(retriever.results, run.ks);
  const peer: BeamPeerJson = {
    name: retriever.name,
    recall: byK(summary.recall, run.ks),
    hit: byK(summary.hit, run.ks),
    mrr: round(summary.mrr[maxK(run)] ?? 0, 4),
    latencyMs: latencyOf(retriever.results),
    abstention: abstentionOf(retriever),
    newestFirst: newestFirstOf(retriever),
  };
  if (retriever !== primary) peer.versusPrimary = comparisonJson(primary.results, retriever.results, recallColumns(run.ks, String));
  return peer;
}

/** The human report: what was measured, recall per kind, peers (when run), abstention apart, cost. */
export function beamText(run: BeamRun): string {
  const primary = primaryRun(run);
  const rows = run.retrievers.length > 1 ? run.retrievers : [primary];
  return [
    ...header(run),
    `recall@k over every scored question`,
    measureTable(rows, recallColumns(run.ks)),
    "",
    ...kindRecallSection(rows, run.kinds, preferredK(run.ks)),
    ...(run.retrievers.length > 1 ? comparisonLines(run, primary) : []),
    ...newestFirstLines(run, rows),
    ...abstentionLines(run, rows),
    ...costLines(run, primary),
  ].join("\n");
}

function header(run: BeamRun): string[] {
  const skipped = run.skipped.length ? ` (${run.skipped.length} skipped: ${skipReasons(run)})` : "";
  const split = run.splitMessages > 0 ? `; ${run.splitMessages} message(s) longer than a memory may be, written in parts (a message ranks where its best part does)` : "";
  return [
    `BEAM evidence retrieval: ${run.dataset}, ${run.conversations.length} conversation(s), ${run.questions.length} questions scored${skipped}, ${run.abstentions.length} abstention questions apart`,
    `mode ${run.mode}, embedder ${run.embedder}, ${storeLabel(run.store)}, ${run.entries} entries${split}, top ${maxK(run)} retrieved per question`,
    "Every question is asked after the whole conversation: BEAM gives its probing questions no earlier place.",
    "Recall@k is LoCoMo's, at message level: the share of a question's evidence messages (source_chat_ids) in the top k.",
    "",
  ];
}

function skipReasons(run: BeamRun): string {
  const counts = new Map<string, number>();
  for (const skipped of run.skipped) counts.set(skipped.reason, (counts.get(skipped.reason) ?? 0) + 1);
  return [...counts].map(([reason, n]) => `${n} ${reason}`).join(", ");
}

function comparisonLines(run: BeamRun, primary: RetrieverRun): string[] {
  return [
    `${primary.name} against each row, question by question: recall difference (questions better/worse, sign-test p)`,
    comparisonTable(primary, run.retrievers.filter((retriever) => retriever !== primary), recallColumns(run.ks)),
    "",
    "Same entries, same vectors: every retriever searched what the rule-based builder stored (LangGraph's InMemoryStore",
    "was given an Embeddings that serves the cached vectors).",
    PEERS_NOTE,
    "",
  ];
}

function abstentionLines(run: BeamRun, rows: readonly RetrieverRun[]): string[] {
  if (run.abstentions.length === 0) return [];
  const cells = rows.map((row) => {
    const { returnedNothing, meanReturned, similarity } = abstentionOf(row);
    const similarityCells = similarity ? [fixed(similarity.abstentionMedian), fixed(similarity.answerableMedian), fixed(similarity.separation)] : ["–", "–", "–"];
    return [row.name, fixed(returnedNothing), meanReturned.toFixed(1), ...similarityCells];
  });
  return [
    `Abstention questions (${run.abstentions.length}): the right answer is that nothing relevant was said. The conversation modes have`,
    "no absolute relevance threshold (the dense view keeps any cosine above denseMinScore, 0 by default; BM25 keeps what shares a",
    "word), so what each returned is shown as it is, with what a threshold on the answer's best dense similarity could do: its",
    "median for these questions and for the scored ones, and how well it tells them apart (0.5: no better than chance, 1: exactly).",
    table(["retriever", "returned nothing", "mean returned", "best similarity, abstention", "best similarity, scored", "separation"], cells),
    "",
  ];
}

function costLines(run: BeamRun, primary: RetrieverRun): string[] {
  const latency = latencyOf(primary.results);
  return [
    `LLM calls per question: mean ${round(mean(primary.results.map((result) => result.llmCalls)), 2)}. Latency (${primary.name}): p50 ${latency.p50} ms, p95 ${latency.p95} ms, embedding-model time excluded.`,
    timeLine(run.timings),
  ];
}

function newestFirstLines(run: BeamRun, rows: readonly RetrieverRun[]): string[] {
  const counted = rows.map((row) => ({ row, newest: newestFirstOf(row) }));
  if (!counted.some(({ newest }) => newest.n > 0)) return [];
  const cells = counted.map(({ row, newest }) => [row.name, String(newest.bothReturned), fixed(newest.newestAbove), newest.meanNewestRank === null ? "-" : newest.meanNewestRank.toFixed(2)]);
  return [
    `Updated facts (${counted[0]?.newest.n ?? 0} knowledge-update questions with an older and a newer evidence message): does the newer rank first?`,
    table(["retriever", `both in top ${maxK(run)}`, "newest above older", "mean rank of newest"], cells),
    "",
  ];
}

function newestFirstOf(run: RetrieverRun): NewestFirstJson {
  const ranked = run.results.flatMap((result) => (result.newestFirst ? [result.newestFirst] : []));
  const both = ranked.filter((pair) => pair.newestRank !== null && pair.olderRank !== null);
  const newestRanks = ranked.flatMap((pair) => (pair.newestRank === null ? [] : [pair.newestRank]));
  return {
    n: ranked.length,
    bothReturned: both.length,
    newestAbove: round(mean(both.map((pair) => ((pair.newestRank ?? 0) < (pair.olderRank ?? 0) ? 1 : 0))), 4),
    meanNewestRank: newestRanks.length ? round(mean(newestRanks), 2) : null,
  };
}

function abstentionOf({ results, unjudged = [] }: RetrieverRun): AbstentionJson {
  const abstention: AbstentionJson = {
    n: unjudged.length,
    returnedNothing: round(mean(unjudged.map((result) => (result.returned === 0 ? 1 : 0))), 4),
    meanReturned: round(mean(unjudged.map((result) => result.returned)), 2),
  };
  const abstaining = similaritiesOf(unjudged);
  const answerable = similaritiesOf(results);
  const apart = separation(answerable, abstaining);
  if (apart !== undefined) {
    abstention.similarity = { abstentionMedian: round(percentile(abstaining, 50), 4), answerableMedian: round(percentile(answerable, 50), 4), separation: round(apart, 4) };
  }
  return abstention;
}

function similaritiesOf(results: readonly { bestSimilarity?: number }[]): number[] {
  return results.flatMap((result) => result.bestSimilarity ?? []);
}

function maxK(run: BeamRun): number {
  return run.ks[run.ks.length - 1] ?? 10;
}
