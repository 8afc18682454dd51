/**
 * Ingest memory benchmark (a script, not a test): peak RSS of `recallgraph ingest` on JSON Lines files
 * of 10 MB, 100 MB and 1 GB, with the hashing embedder (so the embedder's own memory is not measured).
 *
 *   npm run build && npm run bench:ingest-memory -- [--sizes 10,100,1000] [--no-write]
 *
 * Each line is one memory of about 1 KB of text. An ingest is all or nothing, so it holds its input
 * whole: a file over 256 MiB, or with more than 100,000 memories, is refused before it is read, and the
 * figure for it is the refusal's. Writes bench/results/ingest-memory.json.
 */
import { spawnSync } from "node:child_process";
import { createWriteStream, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { z } from "zod";
import { machineDescription } from "./machine.js";
import { PEAK_RSS_IMPORT, peakRssMb } from "./peak-rss.js";

const HERE = dirname(fileURLToPath(import.meta.url));
const COMMAND = join(HERE, "..", "bin", "recallgraph.js");
const RESULTS_PATH = join(HERE, "results", "ingest-memory.json");
/** What the benchmark saves (bench/results/ingest-memory.json). */
export const IngestMemoryResultsSchema = z.object({
  machine: z.string(),
  embedder: z.literal("hash"),
  rows: z.array(
    z.object({
      fileMb: z.number(),
      lines: z.number().int().describe("Memories in the file, one a line"),
      seconds: z.number().describe("Spawn to exit"),
      code: z.number().int().nullable().describe("The command's exit code: 0 written, 1 refused"),
      peakRssMb: z.number(),
      line: z.string().describe("What the command said: its summary, or its error line"),
    }),
  ),
});

const WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango".split(" ");

/** A JSON Lines file of about `megabytes` MB, one memory of about 1 KB a line. */
async function writeJsonl(file: string, megabytes: number): Promise<number> {
  const out = createWriteStream(file);
  const target = megabytes * 1_000_000;
  let written = 0;
  let lines = 0;
  while (written < target) {
    const words = Array.from({ length: 160 }, (_, i) => WORDS[(lines * 7 + i * 3) % WORDS.length]).join(" ");
    const line = `${JSON.stringify({ text: `Note ${lines}: ${words}.`, timestamp: "2025-01-01T00:00:00Z" })}\n`;
    written += Buffer.byteLength(line);
    lines += 1;
    if (!out.write(line)) await new Promise<void>((resolve) => out.once("drain", () => resolve()));
  }
  await new Promise<void>((resolve) => out.end(() => resolve()));
  return lines;
}

function ingest(folder: string, file: string): { seconds: number; code: number | null; peakRssMb: number; line: string } {
  const started = performance.now();
  const child = spawnSync(process.execPath, ["--import", PEAK_RSS_IMPORT, COMMAND, "--db", "memory.db", "--embedder", "hash", "ingest", file, "-n", "bench", "--json"], {
    cwd: folder,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    env: { PATH: process.env.PATH ?? "", RECALLGRAPH_LOG_LEVEL: "error" },
  });
  const seconds = Math.round((performance.now() - started) / 100) / 10;
  const line = child.status === 0 ? `wrote ${(JSON.parse(child.stdout) as { entries: number }).entries} memories` : (child.stderr.split("\n").find((text) => text.startsWith("error")) ?? child.stderr.slice(0, 300));
  return { seconds, code: child.status, peakRssMb: peakRssMb(child.stderr), line };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { sizes: { type: "string", default: "10,100,1000" }, "no-write": { type: "boolean", default: false } } });
  const rows = [];
  for (const megabytes of values.sizes.split(",").map(Number)) {
    const folder = mkdtempSync(join(tmpdir(), "recallgraph-ingest-memory-"));
    try {
      const file = join(folder, `memories-${megabytes}mb.jsonl`);
      const lines = await writeJsonl(file, megabytes);
      const result = ingest(folder, file);
      const row = { fileMb: Math.round(statSync(file).size / 1e5) / 10, lines, ...result };
      rows.push(row);
      process.stdout.write(`${String(row.fileMb).padStart(7)} MB ${String(lines).padStart(8)} lines: exit ${row.code}, ${row.seconds} s, peak ${row.peakRssMb} MB  ${row.line.slice(0, 160)}\n`);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }
  if (!values["no-write"]) writeFileSync(RESULTS_PATH, `${JSON.stringify({ machine: machineDescription(), embedder: "hash", rows }, null, 2)}\n`);
}

// Run only as a script: bench/docs-results.ts imports the schema.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
