/**
 * Running the `recallgraph` command the way a user does: a child process, in a folder of its own,
 * started from bin/recallgraph.js, the command the package installs. It runs the build in dist/,
 * which `npm test` makes first: through tsx every start cost about 0.8 s more (its loader hooks see
 * each of the CLI's few hundred modules), and the CLI tests start the command a few hundred times.
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
/** The installed command's script; it runs dist/cli/main.js. */
export const CLI_COMMAND = path.join(ROOT, "bin/recallgraph.js");
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
  return env;
}

/** The modification times of the files under `folder` whose names end with `suffix`. */
function modificationTimes(folder: string, suffix: string): number[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(suffix))
    .map((entry) => statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
}

let buildChecked = false;

/**
 * Fails, saying what to run, when dist/ is missing or older than a source file: the tests would
 * otherwise run a build that is not the code under test. `npm test` builds first; a test file run
 * on its own after an edit needs `npm run build`.
 */
export function assertBuildIsCurrent(): void {
  if (buildChecked) return;
  const built = modificationTimes(path.join(ROOT, "dist"), ".js");
  if (built.length === 0) throw new Error("dist/ holds no build: run `npm run build` (npm test does) before these tests");
  const edited = Math.max(...modificationTimes(path.join(ROOT, "src"), ".ts"));
  if (edited > Math.min(...built)) throw new Error("dist/ is older than src/: run `npm run build` (npm test does) before these tests");
  buildChecked = true;
}

/**
 * Runs `recallgraph ...args` in `cwd` (with `input` on its standard input, if given) and collects its
 * exit code and output; `variables` are laid over the offline environment (e.g. QDRANT_URL of a stub).
 */
export function runCli(args: readonly string[], cwd: string, input?: string, variables: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  assertBuildIsCurrent();
  return runProcess(process.execPath, [CLI_COMMAND, ...args], { cwd, env: { ...offlineEnvironment(), ...variables } }, input);
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
