import { GRAPH_NODES, type SpeedResults } from "./speed-results.js";
import { groupedBarChart } from "./svg.js";

const label = (entries: number) => (entries >= 1000 ? `${entries / 1000}k entries` : `${entries} entries`);

/** Retrieve p50 of the full graph against InMemoryStore.search p50 at each size, on a log axis. */
export function speedChart(results: Pick<SpeedResults, "sizes" | "queries" | "machine">): string {
  const sizes = Object.values(results.sizes);
  return groupedBarChart({
    title: "Retrieve latency p50 (ms, log scale): recallgraph vs LangGraph InMemoryStore",
    subtitle: `Synthetic memories in one namespace, the same 512-d vectors for both, ${results.queries} questions per size`,
    note: results.machine,
    groups: sizes.map((size) => label(size.entries)),
    series: [
      { name: "recallgraph retrieve (plan + 3 views + RRF + reflection, rules, no LLM)", values: sizes.map((size) => size.retrieveMs.p50) },
      { name: "InMemoryStore.search (dense only)", values: sizes.map((size) => size.inMemoryStoreMs.p50) },
    ],
    yLabel: "milliseconds (p50)",
    scale: "log",
    format: (value) => (value >= 100 ? value.toFixed(0) : value.toFixed(1)),
  });
}

/**
 * Where a question's time goes at each size (the benchmark's breakdown, ms per question, log axis):
 * each node's own time over all its rounds, and the framework's share. Sizes measured without a
 * breakdown (older results) are left out.
 */
export function speedBreakdownChart(results: Pick<SpeedResults, "sizes" | "queries" | "machine">): string {
  const sizes = Object.values(results.sizes).flatMap((size) => (size.breakdown ? [{ entries: size.entries, breakdown: size.breakdown }] : []));
  return groupedBarChart({
    title: "Where a question's time goes (ms per question, log scale)",
    subtitle: `Each node's own time over its rounds, and the framework around them; means of ${results.queries} questions`,
    note: results.machine,
    groups: sizes.map((size) => label(size.entries)),
    series: [
      { name: "framework (LangGraph + LangChain), wall", values: sizes.map((size) => size.breakdown.frameworkMs) },
      { name: "framework, CPU time", values: sizes.map((size) => size.breakdown.cpu.frameworkMs) },
      ...GRAPH_NODES.map((node) => ({ name: node, values: sizes.map((size) => size.breakdown.nodesMs[node]) })),
    ],
    yLabel: "milliseconds per question (mean)",
    scale: "log",
    format: (value) => (value >= 100 ? value.toFixed(0) : value >= 1 ? value.toFixed(1) : value.toFixed(2)),
  });
}

/**
 * The README's speed tables (markdown) from the benchmark's results: latency against InMemoryStore at
 * each size, then where a question's time goes. `npm run bench:speed -- --markdown` prints them after a
 * run; `--from bench/results/speed.json --markdown` prints them from saved results.
 */
export function speedReadmeTables(results: Pick<SpeedResults, "sizes">): string {
  const sizes = Object.values(results.sizes);
  const count = (value: number) => Math.round(value).toLocaleString("en-US");
  const ms = (value: number) => (value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2));
  const ratio = (value: number) => `${value >= 10 ? value.toFixed(1) : value.toFixed(2)}×`;
  const row = (cells: readonly string[]) => `| ${cells.join(" | ")} |`;
  const lines = [
    row(["entries", "ingest/s (no embedding)", "ingest/s with hash embedding", "retrieve p50 / p95", "`InMemoryStore.search` p50 / p95", "ratio p50", "peak RSS (recallgraph / InMemoryStore)"]),
    row(Array.from({ length: 7 }, () => "---")),
    ...sizes.map((size) =>
      row([
        count(size.entries),
        count(size.ingestPerSec),
        count(size.ingestWithHashEmbeddingPerSec),
        `${ms(size.retrieveMs.p50)} / ${ms(size.retrieveMs.p95)} ms`,
        `${ms(size.inMemoryStoreMs.p50)} / ${ms(size.inMemoryStoreMs.p95)} ms`,
        ratio(size.ratioP50),
        `${count(size.peakRssMb)} / ${count(size.inMemoryStorePeakRssMb)} MB`,
      ]),
    ),
  ];
  const withBreakdown = sizes.flatMap((size) => (size.breakdown ? [{ entries: size.entries, breakdown: size.breakdown }] : []));
  if (withBreakdown.length) {
    lines.push(
      "",
      row(["entries", "invoke", "framework", ...GRAPH_NODES, "reflection rounds", "CPU: invoke / nodes / framework"]),
      row(Array.from({ length: GRAPH_NODES.length + 5 }, () => "---")),
      ...withBreakdown.map(({ entries, breakdown }) =>
        row([
          count(entries),
          `${ms(breakdown.invokeMs)} ms`,
          `${ms(breakdown.frameworkMs)} ms (${Math.round((100 * breakdown.frameworkMs) / breakdown.invokeMs)} %)`,
          ...GRAPH_NODES.map((node) => ms(breakdown.nodesMs[node])),
          breakdown.rounds.toFixed(2),
          `${ms(breakdown.cpu.invokeMs)} / ${ms(breakdown.cpu.nodesMs)} / ${ms(breakdown.cpu.frameworkMs)} ms`,
        ]),
      ),
    );
  }
  return lines.join("\n");
}
