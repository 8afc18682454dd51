/**
 * The LangGraph dev server as the load benchmark (bench/load.ts) runs it: `langgraphjs dev` on a free
 * loopback port, its own process group (so one signal stops it and every process it spawned), and
 * the resident memory of that whole group read from /proc.
 *
 * The server is given a copy of the project's langgraph.json in the benchmark's temp folder, its
 * paths rewritten to lead back to the project: the dev server keeps its runs and checkpoints in
 * `.langgraph_api/` beside its configuration, so this keeps a benchmark's thousands of runs out of
 * the checkout (where the test suite's server writes) and removes them with the temp folder.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join, relative, resolve } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { z } from "zod";

const LOG_TAIL_CHARS = 16_000;
const STOP_GRACE_MS = 10_000;

const LangGraphConfigSchema = z.looseObject({
  graphs: z.record(z.string(), z.string()),
  auth: z.looseObject({ path: z.string() }).optional(),
});

export interface ServerOptions {
  /** The project root: where langgraph.json, node_modules and tsconfig.json are. */
  root: string;
  /** A temp folder for the server's configuration and its `.langgraph_api/` files. */
  directory: string;
  env: NodeJS.ProcessEnv;
  /** The dev server's N_JOBS_PER_WORKER: how many runs it executes at once. */
  jobsPerWorker: number;
  startTimeoutMs: number;
  /** Each line the server prints on stdout (its log, JSON lines when LOG_JSON=true). */
  onLine?: (line: string) => void;
  /** Called as soon as the process exists, before it answers: a signal then must stop it too. */
  onSpawned?: (server: RunningServer) => void;
}

export interface RunningServer {
  url: string;
  /** Also the process group id: the server is started as a group leader. */
  pid: number;
  /** The last lines the server printed, for error messages. */
  log: () => string;
  /** SIGTERM to the group, then SIGKILL to whatever is left after a grace period. */
  stop: () => Promise<void>;
  /** SIGKILL to the group at once: for signal handlers and `exit`, where nothing can be awaited. */
  kill: () => void;
}

/**
 * "./src/server/graphs.ts:graph" as seen from `directory`: "../../work/main/src/server/graphs.ts:graph".
 * Relative, not absolute: the server's module hook joins the first graph's path to the config's
 * folder (path.join, which would append an absolute path to it), and splits specs at the first ':'.
 */
function specFrom(directory: string, root: string, spec: string): string {
  const [file = "", exported] = spec.split(":", 2);
  const path = relative(directory, resolve(root, file));
  return exported === undefined ? path : `${path}:${exported}`;
}

/** Writes the project's langgraph.json, paths leading back to the project, into `directory`; returns its path. */
export function writeServerConfig(root: string, directory: string): string {
  const config = LangGraphConfigSchema.parse(JSON.parse(readFileSync(join(root, "langgraph.json"), "utf8")));
  const graphs = Object.fromEntries(Object.entries(config.graphs).map(([name, spec]) => [name, specFrom(directory, root, spec)]));
  const auth = config.auth ? { auth: { ...config.auth, path: specFrom(directory, root, config.auth.path) } } : {};
  const path = join(directory, "langgraph.json");
  writeFileSync(path, `${JSON.stringify({ ...config, graphs, ...auth }, null, 2)}\n`);
  return path;
}

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const probe = createServer();
    probe.once("error", fail);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => (typeof address === "object" && address ? done(address.port) : fail(new Error("no free port"))));
    });
  });
}

/** Starts the dev server and resolves once /info (the one route that needs no key) answers. */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const config = writeServerConfig(options.root, options.directory);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const cli = join(options.root, "node_modules/@langchain/langgraph-cli/dist/cli/cli.mjs");
  const args = ["dev", "--config", config, "--port", String(port), "--host", "127.0.0.1", "--no-browser", "--no-reload", "--n-jobs-per-worker", String(options.jobsPerWorker)];
  // cwd stays the project root: tsx finds the project's tsconfig.json there.
  const child = spawn(process.execPath, [cli, ...args], { cwd: options.root, env: options.env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  const pid = child.pid;
  if (pid === undefined) throw new Error("the LangGraph dev server did not start (no pid)");
  let tail = "";
  let partial = "";
  const keep = (chunk: Buffer) => (tail = (tail + chunk.toString()).slice(-LOG_TAIL_CHARS));
  const split = (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) options.onLine?.(line);
  };
  child.stdout?.on("data", (chunk: Buffer) => (keep(chunk), split(chunk)));
  child.stderr?.on("data", keep);
  const server: RunningServer = { url, pid, log: () => tail, stop: () => stopGroup(pid, child), kill: () => signalGroup(pid, "SIGKILL") };
  options.onSpawned?.(server);
  try {
    await waitForServer(url, child, options.startTimeoutMs, () => tail);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return server;
}

async function waitForServer(url: string, child: ChildProcess, timeoutMs: number, log: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the LangGraph dev server exited early:\n${log()}`);
    try {
      if ((await fetch(`${url}/info`)).ok) return;
    } catch {
      // not listening yet
    }
    await delay(500);
  }
  throw new Error(`the LangGraph dev server did not answer within ${timeoutMs} ms:\n${log()}`);
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // the group is gone already
  }
}

async function stopGroup(pgid: number, child: ChildProcess): Promise<void> {
  signalGroup(pgid, "SIGTERM");
  const deadline = Date.now() + STOP_GRACE_MS;
  while (Date.now() < deadline && groupMembers(pgid).length > 0) await delay(100);
  if (groupMembers(pgid).length > 0) signalGroup(pgid, "SIGKILL");
  child.stdout?.destroy();
  child.stderr?.destroy();
}

/** The ids of the live processes in group `pgid` (zombies, already exited, left out). */
function groupMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readProc(`/proc/${name}/stat`);
    // Fields after the command name, which may itself hold spaces and parentheses: state ppid pgrp ...
    const fields = stat?.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (fields && fields[0] !== "Z" && Number(fields[2]) === pgid) members.push(Number(name));
  }
  return members;
}

/** Resident memory of every process in group `pgid`, in bytes (summed: pages they share count once per process). */
export function groupRssBytes(pgid: number): { bytes: number; processes: number } {
  const members = groupMembers(pgid);
  let kb = 0;
  for (const pid of members) {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(readProc(`/proc/${pid}/status`) ?? "");
    kb += match ? Number(match[1]) : 0;
  }
  return { bytes: kb * 1024, processes: members.length };
}

function readProc(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined; // the process ended between listing and reading
  }
}
