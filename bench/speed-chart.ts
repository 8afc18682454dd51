import type { SpeedResults } from "./speed-results.js";
import { groupedBarChart } from "./svg.js";

/** Retrieve p50 of the full graph against InMemoryStore.search p50 at each size, on a log axis. */
export function speedChart(results: Pick<SpeedResults, "sizes" | "queries" | "machine">): string {
  const sizes = Object.values(results.sizes);
  const label = (entries: number) => (entries >= 1000 ? `${entries / 1000}k entries` : `${entries} entries`);
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
