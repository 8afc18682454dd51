/**
 * Draws the README's charts as SVG files (no chart dependency):
 *
 *   node --import tsx bench/chart.ts recall <eval.json> [--out bench/results/recall.svg]
 *   node --import tsx bench/chart.ts speed [bench/results/speed.json] [--out bench/results/speed.svg]   (and speed-breakdown.svg, speed-memory.svg beside it)
 *
 * `recall` reads the output of `recallgraph eval <file> --peers --json` (aggregate numbers only) and
 * plots recall@k over LoCoMo categories 1-4 for every retriever of the run; `speed` re-draws the
 * charts that `npm run bench:speed` writes, from its saved results.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { speedBreakdownChart, speedChart, speedMemoryChart } from "./speed-chart.js";
import { SpeedResultsSchema } from "./speed-results.js";
import { groupedBarChart } from "./svg.js";

const RESULTS_DIR = join(dirname(fileURLToPath(import.meta.url)), "results");

const ByKSchema = z.record(z.string(), z.number());
const EvalJsonSchema = z.object({
  dataset: z.string(),
  questions: z.number(),
  skipped: z.number(),
  mode: z.string(),
  recall: ByKSchema,
  byCategory: z.record(z.string(), z.object({ n: z.number() })),
  peers: z
    .array(z.object({ name: z.string(), recall: ByKSchema, hit: ByKSchema, mrr: z.number() }))
    .min(1, "run the evaluation with --peers to chart every retriever"),
});

/** recall@k (categories 1-4) per retriever: one group per retriever, one bar per k. */
export function recallChart(evaluation: z.infer<typeof EvalJsonSchema>, subtitle: string): string {
  const ks = Object.keys(evaluation.recall);
  // The headline is over categories 1-4; `questions` also counts the adversarial ones, reported apart.
  const headline = ["1", "2", "3", "4"].reduce((sum, category) => sum + (evaluation.byCategory[category]?.n ?? 0), 0);
  return groupedBarChart({
    title: `LoCoMo evidence recall, categories 1-4 (${evaluation.dataset}, ${headline.toLocaleString("en-US")} questions)`,
    subtitle,
    groups: evaluation.peers.map((peer) => peer.name.replace(/^recallgraph /, "rg ").replace("LangGraph InMemoryStore", "InMemoryStore")),
    series: ks.map((k) => ({ name: `recall@${k}`, values: evaluation.peers.map((peer) => peer.recall[k]) })),
    yLabel: "share of evidence turns retrieved",
    yMax: 1,
    format: (value) => value.toFixed(2).replace(/^0/, ""),
    reference: { value: 0.7, label: "target recall@10 0.70" },
    note: `Reproduce: recallgraph eval ${evaluation.dataset} --peers --json > eval.json; node --import tsx bench/chart.ts recall eval.json`,
  });
}

function main(argv: readonly string[]): void {
  const [kind, input] = argv;
  const outAt = argv.indexOf("--out");
  const out = outAt >= 0 ? argv[outAt + 1] : undefined;
  if (kind === "recall") {
    if (!input) throw new Error("usage: bench/chart.ts recall <eval.json> [--out file.svg] [--subtitle text]");
    const subtitleAt = argv.indexOf("--subtitle");
    const subtitle = subtitleAt >= 0 ? (argv[subtitleAt + 1] ?? "") : "Same entries and vectors for every retriever; offline embedder (USE-lite, 512-d), no LLM";
    const evaluation = EvalJsonSchema.parse(JSON.parse(readFileSync(input, "utf8")));
    const target = out ?? join(RESULTS_DIR, "recall.svg");
    writeFileSync(target, recallChart(evaluation, subtitle));
    process.stderr.write(`wrote ${target}\n`);
  } else if (kind === "speed") {
    const results = SpeedResultsSchema.parse(JSON.parse(readFileSync(input && !input.startsWith("--") ? input : join(RESULTS_DIR, "speed.json"), "utf8")));
    const target = out ?? join(RESULTS_DIR, "speed.svg");
    const beside = (name: string) => join(dirname(target), name);
    writeFileSync(target, speedChart(results));
    writeFileSync(beside("speed-breakdown.svg"), speedBreakdownChart(results));
    writeFileSync(beside("speed-memory.svg"), speedMemoryChart(results));
    process.stderr.write(`wrote ${target}, speed-breakdown.svg and speed-memory.svg beside it\n`);
  } else {
    throw new Error("usage: bench/chart.ts recall <eval.json> | speed [speed.json]");
  }
}

main(process.argv.slice(2));
