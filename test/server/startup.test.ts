/**
 * A configuration the server cannot use stops it: `npm run dev` exits 1 with one line naming the
 * variable before anything is started, and a server process started on it anyway (as a deployment's
 * entrypoint would) ends with the same line instead of staying up without listening.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { describe, it } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { ValidationError } from "../../src/core/errors.js";
import { serverSettingsFromEnv } from "../../src/server/settings.js";
import { freePort, ROOT, spawnDevServer } from "./dev-server.js";

const GOOD = { RECALLGRAPH_EMBEDDER: "hash", RECALLGRAPH_DB: ":memory:" };

/** Configurations the server cannot use, with the variable each error must name. */
const BAD: Array<{ env: Record<string, string>; names: string }> = [
  { env: { RECALLGRAPH_API_KEYS: "short:alice" }, names: "RECALLGRAPH_API_KEYS" },
  { env: { RECALLGRAPH_API_KEYS: "a-long-enough-token:al/ice" }, names: "RECALLGRAPH_API_KEYS" },
  { env: { RECALLGRAPH_API_KEYS: "a-long-enough-token:alice", RECALLGRAPH_THREAD_HISTORY: "keep" }, names: "RECALLGRAPH_THREAD_HISTORY" },
  { env: { RECALLGRAPH_THREAD_HISTORY: "sometimes" }, names: "RECALLGRAPH_THREAD_HISTORY" },
  { env: { RECALLGRAPH_EMBEDDER: "bogus" }, names: "RECALLGRAPH_EMBEDDER" },
  { env: { RECALLGRAPH_STORE: "qdrant" }, names: "QDRANT_URL" },
];

/** The environment of a child process: this one's, without the project's variables, with `extra`. */
function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env)) if (/^(RECALLGRAPH_|OPENAI_|QDRANT_)/.test(name)) delete env[name];
  return { ...env, ...GOOD, ...extra };
}

/** Runs a command in its own process group, ending the group if it has not exited within `limitMs`. */
async function runBounded(command: string, args: string[], env: NodeJS.ProcessEnv, limitMs: number): Promise<{ code: number | null; stderr: string; timedOut: boolean }> {
  const child = spawn(command, args, { cwd: ROOT, env, detached: true, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const result = await Promise.race([exited, delay(limitMs, undefined, { ref: false }).then(() => "timeout" as const)]);
  if (result === "timeout") {
    if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
    return { code: null, stderr, timedOut: true };
  }
  return { code: result, stderr, timedOut: false };
}

describe("a configuration the server cannot use", () => {
  it("is refused by the settings with an error naming the variable", () => {
    for (const { env, names } of BAD) {
      assert.throws(
        () => serverSettingsFromEnv({ ...GOOD, ...env }),
        (error) => error instanceof ValidationError && error.field === names,
        JSON.stringify(env),
      );
    }
    assert.equal(serverSettingsFromEnv(GOOD).threadHistory, "none", "answers are kept in no thread by default");
    assert.equal(serverSettingsFromEnv({ ...GOOD, RECALLGRAPH_THREAD_HISTORY: "keep" }).threadHistory, "keep", "an open server may keep them");
  });

  it("stops `npm run dev` with exit code 1 and one line, before anything is started", async () => {
    for (const { env, names } of BAD) {
      const { code, stderr, timedOut } = await runBounded("npm", ["run", "--silent", "dev"], childEnv(env), 60_000);
      assert.equal(timedOut, false, `${JSON.stringify(env)}: npm run dev did not stop`);
      assert.equal(code, 1, JSON.stringify(env));
      const lines = stderr.trim().split("\n");
      assert.equal(lines.length, 1, stderr);
      assert.match(lines[0] ?? "", new RegExp(`^recallgraph: the server cannot start: ${names}: `));
    }
  });

  it("ends a server process started on it anyway with the same line, not a server that never listens", async () => {
    const port = await freePort();
    const { child, folder, output } = spawnDevServer(childEnv({ RECALLGRAPH_API_KEYS: "short:alice" }), port);
    const ended = await Promise.race([new Promise<boolean>((resolve) => child.once("exit", () => resolve(true))), delay(90_000, undefined, { ref: false }).then(() => false)]);
    if (!ended && child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
    assert.ok(ended, `the server stopped:\n${output()}`);
    assert.match(output(), /recallgraph: the server cannot start: RECALLGRAPH_API_KEYS: entry 1: /);
    await assert.rejects(fetch(`http://127.0.0.1:${port}/ok`), "nothing listens on its port");
    rmSync(folder, { recursive: true, force: true });
  });
});
