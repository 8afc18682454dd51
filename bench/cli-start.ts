/**
 * Command-line start-up benchmark (a script, not a test): how long `recallgraph <command>` takes from
 * spawn to exit on a small store, its peak memory, and how many modules of which packages it loads.
 *
 *   npm run build && npm run bench:cli -- [--rounds 7] [--json] [--no-write]
 *
 * Honest setup notes, also written with the results:
 * - It runs the built command (bin/recallgraph.js, as installed), so `npm run build` comes first.
 * - The store is a fresh sqlite file of 20 memories written with the hashing embedder, so no command
 *   loads a model: what is measured is the command's own start, open and exit. A question with the
 *   offline default (USE-lite) adds loading its model on top.
 * - The commands alternate round by round, so load from other processes falls on all alike; medians
 *   and minima are reported with the load average. Peak RSS is the child's own at exit (bench/peak-rss.ts).
 * - Modules are counted in one extra run per command, with a module hook (which slows it), never in
 *   the timed runs.
 *
 * Writes bench/results/cli-start.json.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { z } from "zod";
import { LOADED_MODULES_IMPORT, packageCounts } from "./loaded-packages.js";
import { machineDescription } from "./machine.js";
import { PEAK_RSS_IMPORT, peakRssMb } from "./peak-rss.js";

const HERE = dirname(fileURLToPath(import.meta.url));
const COMMAND = join(HERE, "..", "bin", "recallgraph.js");
const RESULTS_PATH = join(HERE, "results", "cli-start.json");

/** What the benchmark saves (bench/results/cli-start.json). */
export const CliStartResultsSchema = z.object({
  machine: z.string(),
  node: z.string(),
  rounds: z.number().int().describe("Timed starts per command"),
  loadAverage: z.object({ before: z.number(), after: z.number() }).describe("1-minute load average"),
  commands: z.array(
    z.object({
      command: z.string(),
      medianMs: z.number().describe("Spawn to exit, median of the rounds"),
      minMs: z.number(),
      peakRssMb: z.number().describe("The child's own peak RSS, median of the rounds"),
      modulesFromPackages: z.number().int().describe("Modules loaded from node_modules, counted in one extra run"),
      packages: z.record(z.string(), z.number().int()),
      samplesMs: z.array(z.number()),
    }),
  ),
});

const COMMANDS: Record<string, string[]> = {
  help: ["--help"],
  stats: ["stats"],
  list: ["list", "-n", "demo"],
  export: ["export", "-n", "demo"],
  query: ["query", "-n", "demo", "Who did Alice meet in Shanghai?"],
};


function run(folder: string, importUrl: string | undefined, args: readonly string[], input?: string): { ms: number; stderr: string } {
  const started = performance.now();
  const child = spawnSync(process.execPath, [...(importUrl ? ["--import", importUrl] : []), COMMAND, "--db", "memory.db", "--embedder", "hash", ...args], {
    cwd: folder,
    input: input ?? "",
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "", RECALLGRAPH_LOG_LEVEL: "error" },
  });
  const ms = performance.now() - started;
  if (child.status !== 0) throw new Error(`recallgraph ${args.join(" ")} exited ${child.status}: ${child.stderr}`);
  return { ms, stderr: child.stderr };
}


const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
};
const rounded = (ms: number): number => Math.round(ms);

function main(): void {
  const { values } = parseArgs({ options: { rounds: { type: "string", default: "7" }, json: { type: "boolean", default: false }, "no-write": { type: "boolean", default: false } } });
  const rounds = Number(values.rounds);
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error("--rounds must be a positive integer");
  const folder = mkdtempSync(join(tmpdir(), "recallgraph-cli-start-"));
  try {
    const memories = Array.from({ length: 20 }, (_, i) => JSON.stringify({ text: `Alice met contact ${i} in Shanghai about order ${i}.` })).join("\n");
    run(folder, undefined, ["ingest", "-", "-n", "demo"], memories);
    const loadBefore = loadavg()[0] ?? 0;
    const samples = new Map<string, { ms: number[]; rssMb: number[] }>(Object.keys(COMMANDS).map((name) => [name, { ms: [], rssMb: [] }]));
    for (let round = 0; round < rounds; round += 1) {
      for (const [name, args] of Object.entries(COMMANDS)) {
        const { ms, stderr } = run(folder, PEAK_RSS_IMPORT, args);
        samples.get(name)?.ms.push(ms);
        samples.get(name)?.rssMb.push(peakRssMb(stderr));
      }
    }
    const commands = Object.entries(COMMANDS).map(([name, args]) => {
      const { ms, rssMb } = samples.get(name) ?? { ms: [], rssMb: [] };
      const packages = packageCounts(run(folder, LOADED_MODULES_IMPORT, args).stderr);
      return {
        command: `recallgraph ${args.join(" ")}`,
        medianMs: rounded(median(ms)),
        minMs: rounded(Math.min(...ms)),
        peakRssMb: median(rssMb),
        modulesFromPackages: Object.values(packages).reduce((sum, count) => sum + count, 0),
        packages,
        samplesMs: ms.map(rounded),
      };
    });
    const result: z.infer<typeof CliStartResultsSchema> = { machine: machineDescription(), node: process.version, rounds, loadAverage: { before: loadBefore, after: loadavg()[0] ?? 0 }, commands };
    if (values.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    else {
      process.stdout.write(`${result.machine}; load average ${result.loadAverage.before.toFixed(2)} -> ${result.loadAverage.after.toFixed(2)}\n`);
      for (const row of commands) {
        process.stdout.write(`${row.command.padEnd(62)} median ${String(row.medianMs).padStart(5)} ms  min ${String(row.minMs).padStart(5)} ms  peak ${row.peakRssMb} MB  ${row.modulesFromPackages} package modules\n`);
      }
    }
    if (!values["no-write"]) writeFileSync(RESULTS_PATH, `${JSON.stringify(result, null, 2)}\n`);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

// Run only as a script: bench/docs-results.ts imports the schema.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
