import { VECTOR_INDEX_KINDS } from "../src/stores/sqlite/vector-search-fields.js";
import { GRAPH_NODES, type Breakdown, type SizeResult, type SpeedResults } from "./speed-results.js";
import { groupedBarChart } from "./svg.js";

type Results = Pick<SpeedResults, "sizes" | "queries" | "machine" | "load">;

const label = (entries: number) => (entries >= 1000 ? `${entries / 1000}k entries` : `${entries} entries`);
const loadNote = (results: Results) => `${results.machine}; load average ${results.load.before[0]?.toFixed(1)} to ${results.load.after[0]?.toFixed(1)}`;
const recallText = (value: number | undefined) => value?.toFixed(3);

/** A size's x-axis label: its entries and, where an index was measured, the recall@10 it kept. */
function sizeLabel(size: SizeResult): string {
  const ours = recallText(size.recallgraph.hnsw?.semanticRecallAt10?.tieAware);
  const theirs = recallText(size.lancedb?.vectorRecallAt10.tieAware);
  const refined = recallText(size.lancedb?.refined?.vectorRecallAt10.tieAware);
  const recall = [ours && `hnsw ${ours}`, theirs && `LanceDB ${theirs}`, refined && `refined ${refined}`].filter(Boolean).join(", ");
  return recall ? `${label(size.entries)} (recall@10: ${recall})` : label(size.entries);
}

/** p50 of the full graph with each dense search, beside each peer's, at each size, on a log axis. */
export function speedChart(results: Results): string {
  const sizes = Object.values(results.sizes);
  const series = [
    ...VECTOR_INDEX_KINDS.map((index) => ({
      name: `recallgraph, ${index} (plan + 3 views + RRF + reflection, rules)`,
      values: sizes.map((size) => size.recallgraph[index]?.retrieveMs.p50),
    })),
    { name: "InMemoryStore.search (dense only)", values: sizes.map((size) => size.inMemoryStore?.searchMs.p50) },
    { name: "LanceDB hybrid, exact", values: sizes.map((size) => size.lancedb?.hybridMs.exact.p50) },
    { name: "LanceDB hybrid, IVF_HNSW_SQ", values: sizes.map((size) => size.lancedb?.hybridMs.indexed.p50) },
    { name: "LanceDB hybrid, IVF_HNSW_SQ refined to recall@10 0.95", values: sizes.map((size) => size.lancedb?.refined?.hybridMs.p50) },
  ];
  return groupedBarChart({
    title: "Latency p50 (ms, log scale): recallgraph's full graph beside its peers, one run",
    subtitle: `Synthetic memories in one namespace, the same 512-d vectors and questions for every side, ${results.queries} questions per size`,
    note: loadNote(results),
    groups: sizes.map(sizeLabel),
    series: series.filter((line) => line.values.some((value) => value !== undefined)),
    yLabel: "milliseconds (p50)",
    scale: "log",
    format: (value) => (value >= 100 ? value.toFixed(0) : value.toFixed(1)),
  });
}

/** Peak RSS of each side at each size, each side in a process of its own, on a log axis. */
export function speedMemoryChart(results: Results): string {
  const sizes = Object.values(results.sizes);
  const series = [
    ...VECTOR_INDEX_KINDS.map((index) => ({ name: `recallgraph, ${index}`, values: sizes.map((size) => size.recallgraph[index]?.peakRssMb) })),
    { name: "InMemoryStore", values: sizes.map((size) => size.inMemoryStore?.peakRssMb) },
    { name: "LanceDB (exact and indexed)", values: sizes.map((size) => size.lancedb?.peakRssMb) },
  ];
  return groupedBarChart({
    title: "Peak RSS (MB, log scale): ingest, index and questions, each side in a process of its own",
    subtitle: "The same synthetic memories and 512-d vectors for every side",
    note: loadNote(results),
    groups: sizes.map((size) => label(size.entries)),
    series: series.filter((line) => line.values.some((value) => value !== undefined)),
    yLabel: "MB (peak RSS)",
    scale: "log",
    format: (value) => value.toFixed(0),
  });
}

/** Each measured (size, dense search) pair with its breakdown. */
function breakdowns(results: Pick<SpeedResults, "sizes">): Array<{ entries: number; index: string; breakdown: Breakdown }> {
  return Object.values(results.sizes).flatMap((size) =>
    VECTOR_INDEX_KINDS.flatMap((index) => {
      const run = size.recallgraph[index];
      return run ? [{ entries: size.entries, index, breakdown: run.breakdown }] : [];
    }),
  );
}

/** Where a question's time goes at each size and dense search (ms per question, log axis): each node's own time, and the framework's share. */
export function speedBreakdownChart(results: Results): string {
  const runs = breakdowns(results);
  return groupedBarChart({
    title: "Where a question's time goes (ms per question, log scale)",
    subtitle: `Each node's own wall time over its rounds, and the framework around them; means of ${results.queries} questions`,
    note: loadNote(results),
    groups: runs.map((run) => `${label(run.entries)}, ${run.index}`),
    series: [
      { name: "framework (LangGraph + LangChain), wall", values: runs.map((run) => run.breakdown.frameworkMs) },
      { name: "framework, CPU time", values: runs.map((run) => run.breakdown.cpu.frameworkMs) },
      ...GRAPH_NODES.map((node) => ({ name: node, values: runs.map((run) => run.breakdown.nodesMs[node]) })),
    ],
    yLabel: "milliseconds per question (mean)",
    scale: "log",
    format: (value) => (value >= 100 ? value.toFixed(0) : value >= 1 ? value.toFixed(1) : value.toFixed(2)),
  });
}

const count = (value: number) => Math.round(value).toLocaleString("en-US");
const ms = (value: number) => (value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2));
const row = (cells: readonly string[]) => `| ${cells.join(" | ")} |`;
const rule = (columns: number) => row(Array.from({ length: columns }, () => "---"));
const p50p95 = (latency: { p50: number; p95: number } | undefined) => (latency ? `${ms(latency.p50)} / ${ms(latency.p95)} ms` : "-");
const loadText = (load: { before: readonly number[]; after: readonly number[] }) => `${load.before[0]?.toFixed(1)}-${load.after[0]?.toFixed(1)}`;

/** recallgraph at each size and dense search: ingest, builds, latency, peak RSS, recall, load. */
function recallgraphTable(results: Pick<SpeedResults, "sizes">): string[] {
  const head = ["entries", "search", "ingest/s (no embedding)", "index build", "lexical terms read", "p50 / p95", "peak RSS", "semantic recall@10", "load (1 min)"];
  const rows = Object.values(results.sizes).flatMap((size) =>
    VECTOR_INDEX_KINDS.flatMap((index) => {
      const run = size.recallgraph[index];
      if (!run) return [];
      return [
        row([
          count(size.entries),
          index,
          count(run.ingestPerSec),
          run.indexBuildMs === null ? "-" : `${(run.indexBuildMs / 1000).toFixed(1)} s`,
          `${ms(run.lexicalBuildMs)} ms`,
          p50p95(run.retrieveMs),
          `${count(run.peakRssMb)} MB`,
          run.semanticRecallAt10 ? run.semanticRecallAt10.tieAware.toFixed(3) : "exact",
          loadText(run.load),
        ]),
      ];
    }),
  );
  return [row(head), rule(head.length), ...rows];
}

/** The peers at each size, and recallgraph's latency over theirs. */
function peersTable(results: Pick<SpeedResults, "sizes">): string[] {
  const head = ["entries", "InMemoryStore p50 / p95", "LanceDB exact hybrid", "LanceDB indexed hybrid", "LanceDB vector recall@10", "LanceDB refined hybrid (refineFactor, vector recall@10)", "LanceDB ingest/s, FTS / vector index build", "peak RSS (IMS / LanceDB)", "ratios p50, CPU (recallgraph / peer)"];
  const rows = Object.values(results.sizes).map((size) => {
    const lance = size.lancedb;
    const peaks = [size.inMemoryStore?.peakRssMb, lance?.peakRssMb].map((value) => (value === undefined ? "-" : count(value))).join(" / ");
    return row([
      count(size.entries),
      p50p95(size.inMemoryStore?.searchMs),
      p50p95(lance?.hybridMs.exact),
      p50p95(lance?.hybridMs.indexed),
      lance ? lance.vectorRecallAt10.tieAware.toFixed(3) : "-",
      lance?.refined ? `${p50p95(lance.refined.hybridMs)} (${lance.refined.refineFactor}, ${lance.refined.vectorRecallAt10.tieAware.toFixed(3)})` : "-",
      lance ? `${count(lance.ingestPerSec)}, ${(lance.ftsBuildMs / 1000).toFixed(1)} / ${(lance.vectorIndexBuildMs / 1000).toFixed(1)} s` : "-",
      `${peaks} MB`,
      size.ratios.map((ratio) => `${ratio.ours} / ${ratio.peer} ${ratio.p50.toFixed(2)}×${ratio.cpu === null ? "" : `, ${ratio.cpu.toFixed(2)}×`}`).join("; ") || "-",
    ]);
  });
  return [row(head), rule(head.length), ...rows];
}

/** Where a question's time goes, wall and CPU, per size and dense search. */
function breakdownTable(results: Pick<SpeedResults, "sizes">): string[] {
  const head = ["entries", "search", "invoke", "framework", ...GRAPH_NODES, "rounds", "CPU: invoke / nodes / framework", `CPU per node (${GRAPH_NODES.join(" / ")})`, "store calls per question (ms)"];
  const rows = breakdowns(results).map(({ entries, index, breakdown }) =>
    row([
      count(entries),
      index,
      `${ms(breakdown.invokeMs)} ms`,
      `${ms(breakdown.frameworkMs)} ms (${Math.round((100 * breakdown.frameworkMs) / breakdown.invokeMs)} %)`,
      ...GRAPH_NODES.map((node) => ms(breakdown.nodesMs[node])),
      breakdown.rounds.toFixed(2),
      `${ms(breakdown.cpu.invokeMs)} / ${ms(breakdown.cpu.nodesMs)} / ${ms(breakdown.cpu.frameworkMs)} ms`,
      GRAPH_NODES.map((node) => ms(breakdown.nodesCpuMs[node])).join(" / "),
      Object.entries(breakdown.storeCalls)
        .map(([operation, total]) => `${operation} ${total.calls} (${ms(total.ms)})`)
        .join(", "),
    ]),
  );
  return [row(head), rule(head.length), ...rows];
}

/**
 * The framework's floor in a sentence, beside LanceDB's indexed hybrid query at each size where it ran:
 * what any graph of this shape costs before its nodes do anything.
 */
function floorLines(results: Pick<SpeedResults, "sizes" | "frameworkFloor">): string[] {
  const floor = results.frameworkFloor;
  if (!floor) return [];
  const peers = Object.values(results.sizes).flatMap((size) =>
    size.lancedb ? [`${p50p95(size.lancedb.hybridMs.indexed)} at ${count(size.entries)} (${(floor.invokeMs.p50 / size.lancedb.hybridMs.indexed.p50).toFixed(2)}×)`] : [],
  );
  const beside = peers.length ? `; LanceDB's indexed hybrid query, the whole of it: ${peers.join(", ")}` : "";
  return [
    "",
    `The framework's floor (the same graph, one round, nodes that do nothing; bench/graph-floor.ts): p50 / p95 ${p50p95(floor.invokeMs)}, ${ms(floor.cpuMean)} ms of CPU per question${beside}.`,
  ];
}

/**
 * The speed tables (markdown) from the benchmark's results: recallgraph per size and dense search, the
 * peers and the ratios, then where a question's time goes. `npm run bench:speed -- --markdown` prints
 * them after a run; `--from bench/results/speed.json --markdown` from saved results.
 */
export function speedReadmeTables(results: Pick<SpeedResults, "sizes" | "frameworkFloor">): string {
  const hasPeers = Object.values(results.sizes).some((size) => size.inMemoryStore || size.lancedb);
  return [...recallgraphTable(results), ...(hasPeers ? ["", ...peersTable(results)] : []), "", ...breakdownTable(results), ...floorLines(results)].join("\n");
}
