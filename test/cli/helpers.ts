/**
 * Running the `recallgraph` command the way a user does: a child process, in a folder of its own.
 * It runs the CLI's sources through tsx, not bin/recallgraph.js (which runs the build in dist/), so
 * these tests need no build step in a fresh clone; test/package/ checks the built command.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const CLI_SOURCE = path.join(ROOT, "src/cli/main.ts");
/** tsx's loader by URL: `--import tsx` would be resolved from the child's folder, which has no node_modules. */
const TSX_LOADER = import.meta.resolve("tsx");
/** The package's own tsconfig, not whatever tsconfig.json the folder the CLI runs in happens to hold. */
const TSCONFIG = path.join(ROOT, "tsconfig.json");
export const LOCOMO_PATH = path.resolve(ROOT, "../shared/data/locomo/locomo10.json");

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The environment without the variables that would point the CLI at a server, a model or another
 * store: the tests run offline and decide everything with flags.
 */
function offlineEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!/^(RECALLGRAPH_|OPENAI_|QDRANT_)/.test(name)) env[name] = value;
  }
  env.TSX_TSCONFIG_PATH = TSCONFIG;
  return env;
}

/** Runs `recallgraph ...args` in `cwd` (with `input` on its standard input, if given) and collects its exit code and output. */
export function runCli(args: readonly string[], cwd: string, input?: string): Promise<CliRun> {
  return runProcess(process.execPath, ["--import", TSX_LOADER, CLI_SOURCE, ...args], { cwd, env: offlineEnvironment() }, input);
}

/** Runs `command ...args` (with `input` on its standard input, else an empty one) and collects its exit code and output. */
export function runProcess(command: string, args: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv }, input?: string): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ["pipe", "pipe", "pipe"] });
    // No input is an input that ends at once, as from /dev/null.
    child.stdin.end(input ?? "");
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** Runs a command that must succeed and parses its `--json` output. */
export async function runJson(args: readonly string[], cwd: string): Promise<unknown> {
  const run = await runCli([...args, "--json"], cwd);
  if (run.code !== 0) throw new Error(`recallgraph ${args.join(" ")} exited ${run.code}: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

export async function temporaryFolder(): Promise<{ path: string; remove: () => Promise<void> }> {
  const folder = await mkdtemp(path.join(tmpdir(), "recallgraph-cli-"));
  return { path: folder, remove: () => rm(folder, { recursive: true, force: true }) };
}

/** A failed run's stderr is one line, with no stack trace. */
export function oneLineError(run: CliRun): string {
  const lines = run.stderr.trimEnd().split("\n");
  if (lines.length !== 1) throw new Error(`expected one line on stderr, got ${lines.length}:\n${run.stderr}`);
  return lines[0] ?? "";
}
