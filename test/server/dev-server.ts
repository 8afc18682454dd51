/**
 * `langgraphjs dev` serving the project's langgraph.json on a free loopback port, for the server tests.
 * The configuration is the project's own file, copied into a folder of the test's with its paths
 * pointing back at the project, so the server keeps its state (`.langgraph_api/`) in that folder, where
 * the test can read it, and two servers of two test files never share it.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { setTimeout as delay } from "node:timers/promises";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const CLI = path.join(ROOT, "node_modules/@langchain/langgraph-cli/dist/cli/cli.mjs");

export interface Reply {
  status: number;
  text: string;
  json: () => unknown;
}

export interface DevServer {
  url: string;
  /** The folder holding the server's configuration and its state (`.langgraph_api/`). */
  folder: string;
  /** Everything the server printed so far. */
  output: () => string;
  /**
   * A request with an optional bearer key and JSON body; a streamed body is read for at most `readMs`
   * (default 30 s). A reply that had not begun by then comes back with status 0.
   */
  call(method: string, route: string, key: string | undefined, body?: unknown, options?: { headers?: Record<string, string>; readMs?: number }): Promise<Reply>;
  /** Stops the server (SIGTERM, so it flushes its state to disk) and waits for it to exit; the folder stays. */
  stop(): Promise<void>;
  /** Stops the server and removes its folder. */
  dispose(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

/** The project's langgraph.json with every module path made relative to `folder`. */
function configIn(folder: string): string {
  const config = JSON.parse(readFileSync(path.join(ROOT, "langgraph.json"), "utf8")) as { graphs: Record<string, string>; auth?: { path: string } };
  const moved = (spec: string) => {
    const [file = "", symbol] = spec.split(":");
    return `${path.relative(folder, path.join(ROOT, file))}${symbol ? `:${symbol}` : ""}`;
  };
  config.graphs = Object.fromEntries(Object.entries(config.graphs).map(([id, spec]) => [id, moved(spec)]));
  if (config.auth) config.auth.path = moved(config.auth.path);
  const file = path.join(folder, "langgraph.json");
  writeFileSync(file, JSON.stringify(config, null, 2));
  return file;
}

/** Spawns `langgraphjs dev` on the project's configuration (in a folder of its own) with `env`. */
export function spawnDevServer(env: NodeJS.ProcessEnv, port: number): { child: ChildProcess; folder: string; output: () => string } {
  const folder = mkdtempSync(path.join(tmpdir(), "recallgraph-server-"));
  const config = configIn(folder);
  const child = spawn(
    process.execPath,
    [CLI, "dev", "--config", config, "--port", String(port), "--host", "127.0.0.1", "--no-browser", "--no-reload", "--n-jobs-per-worker", "2"],
    { cwd: ROOT, env: { ...env, LANGGRAPH_CLI_NO_ANALYTICS: "1" }, detached: true, stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  return { child, folder, output: () => output };
}

/** Ends a spawned server's whole process group (the CLI and the server it started). */
function kill(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null) return;
  try {
    process.kill(-child.pid, "SIGTERM");
  } catch {
    // already gone
  }
}

/** Starts a server and waits until it answers `/info`, the route langgraph-api never asks a key for. */
export async function startDevServer(env: NodeJS.ProcessEnv): Promise<DevServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const { child, folder, output } = spawnDevServer(env, port);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const deadline = Date.now() + 120_000;
  for (;;) {
    const failure = child.exitCode !== null ? "exited early" : Date.now() > deadline ? "did not start" : undefined;
    if (failure) {
      kill(child);
      rmSync(folder, { recursive: true, force: true });
      throw new Error(`server ${failure}:\n${output()}`);
    }
    try {
      if ((await fetch(`${url}/info`)).ok) break;
    } catch {
      // not listening yet
    }
    await delay(300);
  }
  const server: DevServer = {
    url,
    folder,
    output,
    async call(method, route, key, body, options = {}) {
      const headers: Record<string, string> = { ...(body === undefined ? {} : { "content-type": "application/json" }), ...options.headers };
      if (key) headers.authorization = `Bearer ${key}`;
      const signal = AbortSignal.timeout(options.readMs ?? 30_000);
      let response: Response;
      try {
        response = await fetch(`${url}${route}`, { method, headers, signal, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      } catch (error) {
        if (signal.aborted) return { status: 0, text: "", json: () => undefined };
        throw error;
      }
      const text = await readBody(response);
      return { status: response.status, text, json: () => JSON.parse(text) as unknown };
    },
    async stop() {
      if (child.exitCode !== null) return;
      kill(child);
      await Promise.race([exited, delay(10_000, undefined, { ref: false })]);
    },
    async dispose() {
      await server.stop();
      rmSync(folder, { recursive: true, force: true });
    },
  };
  return server;
}

/** A response's body as text; a stream cut by the request's time limit gives what had arrived. */
async function readBody(response: Response): Promise<string> {
  if (!response.body) return "";
  const decoder = new TextDecoder();
  let text = "";
  try {
    for await (const chunk of response.body) text += decoder.decode(chunk as Uint8Array, { stream: true });
  } catch {
    // the time limit ended a stream that was still open
  }
  return text;
}
