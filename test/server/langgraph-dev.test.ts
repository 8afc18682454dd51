/**
 * End to end through the LangGraph server: `langgraphjs dev` serves langgraph.json on a loopback port,
 * the graph opens its store and embedder from the environment, and a run answers over HTTP.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { openRecallGraph } from "../../src/library/open-recallgraph.js";
import { TEAM, NOW } from "../support/team-memory.js";

const root = fileURLToPath(new URL("../..", import.meta.url));

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

async function waitForOk(url: string, server: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`server exited early:\n${log()}`);
    try {
      if ((await fetch(`${url}/ok`)).ok) return;
    } catch {
      // not listening yet
    }
    await delay(500);
  }
  throw new Error(`server did not start:\n${log()}`);
}

describe("the graph served by langgraphjs dev", () => {
  const dir = mkdtempSync(join(tmpdir(), "recallgraph-server-"));
  const env = { ...process.env, RECALLGRAPH_EMBEDDER: "hash", RECALLGRAPH_DB: join(dir, "memory.db"), LANGGRAPH_CLI_NO_ANALYTICS: "1" };
  let server: ChildProcess | undefined;
  let url = "";
  let output = "";

  before(async () => {
    const memory = await openRecallGraph({ env, model: null });
    await memory.remember("team", TEAM);
    await memory.close();
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    server = spawn(
      process.execPath,
      [join(root, "node_modules/@langchain/langgraph-cli/dist/cli/cli.mjs"), "dev", "--port", String(port), "--host", "127.0.0.1", "--no-browser", "--no-reload", "--n-jobs-per-worker", "1"],
      { cwd: root, env, detached: true, stdio: ["ignore", "pipe", "pipe"] },
    );
    server.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    server.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    await waitForOk(url, server, () => output);
  });

  after(() => {
    if (server?.pid) {
      try {
        process.kill(-server.pid, "SIGTERM");
      } catch {
        // already gone
      }
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it("lists the graph with its input and configuration schemas", async () => {
    const assistants = (await (await fetch(`${url}/assistants/search`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).json()) as Array<{ assistant_id: string; graph_id: string }>;
    const assistant = assistants.find((a) => a.graph_id === "recallgraph");
    assert.ok(assistant, "recallgraph is registered");
    const schemas = (await (await fetch(`${url}/assistants/${assistant.assistant_id}/schemas`)).json()) as {
      input_schema: { properties: Record<string, unknown> };
      config_schema: { properties: Record<string, unknown> };
    };
    assert.deepEqual(Object.keys(schemas.input_schema.properties).sort(), ["namespaces", "now", "question"]);
    assert.ok("semanticTopK" in schemas.config_schema.properties);
    assert.ok("preset" in schemas.config_schema.properties);
  });

  it("answers a run over HTTP from the store the environment names", async () => {
    const response = await fetch(`${url}/runs/wait`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        assistant_id: "recallgraph",
        input: { question: "What happened with ERR_1024?", namespaces: ["team"], now: NOW },
        config: { configurable: { finalK: 3 } },
      }),
    });
    assert.equal(response.status, 200);
    const state = (await response.json()) as { results: Array<{ id: string; namespace: string }> };
    assert.equal(state.results[0]?.id, "err-1024");
    assert.ok(state.results.length <= 3);
    assert.ok(state.results.every((r) => r.namespace === "team"));
  });
});
