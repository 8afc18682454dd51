/**
 * End to end through the LangGraph server: `langgraphjs dev` serves langgraph.json on a loopback port
 * with two API keys; the graphs open their store and embedder from the environment; callers write
 * through the `remember` graph, ask through `recallgraph`, and only ever touch their own namespaces
 * (and the shared one), threads included.
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
const ALICE = "alice-key-0123456789";
const BOB = "bob-key-9876543210";

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

/** Waits for the server to answer /info, the one route that needs no key. */
async function waitForServer(url: string, server: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`server exited early:\n${log()}`);
    try {
      if ((await fetch(`${url}/info`)).ok) return;
    } catch {
      // not listening yet
    }
    await delay(500);
  }
  throw new Error(`server did not start:\n${log()}`);
}

interface Reply {
  status: number;
  text: string;
  json: () => unknown;
}

describe("the graphs served by langgraphjs dev, secured by API keys", () => {
  const dir = mkdtempSync(join(tmpdir(), "recallgraph-server-"));
  const env = {
    ...process.env,
    RECALLGRAPH_EMBEDDER: "hash",
    RECALLGRAPH_DB: join(dir, "memory.db"),
    RECALLGRAPH_API_KEYS: `${ALICE}:alice,${BOB}:bob`,
    RECALLGRAPH_SHARED_NAMESPACES: "team",
    LANGGRAPH_CLI_NO_ANALYTICS: "1",
  };
  let server: ChildProcess | undefined;
  let url = "";
  let output = "";

  async function call(method: string, path: string, key: string | undefined, body?: unknown): Promise<Reply> {
    const headers: Record<string, string> = body === undefined ? {} : { "content-type": "application/json" };
    if (key) headers.authorization = `Bearer ${key}`;
    const response = await fetch(`${url}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const text = await response.text();
    return { status: response.status, text, json: () => JSON.parse(text) as unknown };
  }

  const run = (key: string | undefined, body: unknown, path = "/runs/wait") => call("POST", path, key, body);
  const ask = (key: string, input: Record<string, unknown>, extra: Record<string, unknown> = {}) => run(key, { assistant_id: "recallgraph", input, ...extra });
  const write = (key: string, input: Record<string, unknown>) => run(key, { assistant_id: "remember", input });

  before(async () => {
    const memory = await openRecallGraph({ env, model: null });
    await memory.remember("team", TEAM);
    await memory.close();
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    server = spawn(
      process.execPath,
      [join(root, "node_modules/@langchain/langgraph-cli/dist/cli/cli.mjs"), "dev", "--port", String(port), "--host", "127.0.0.1", "--no-browser", "--no-reload", "--n-jobs-per-worker", "2"],
      { cwd: root, env, detached: true, stdio: ["ignore", "pipe", "pipe"] },
    );
    server.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    server.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    await waitForServer(url, server, () => output);
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

  it("refuses a request without a valid key with 401", async () => {
    assert.equal((await ask("not-a-key-at-all", { question: "anything", namespaces: ["alice"] })).status, 401);
    assert.equal((await run(undefined, { assistant_id: "recallgraph", input: { question: "anything", namespaces: ["team"] } })).status, 401);
    assert.equal((await call("POST", "/threads/search", undefined, {})).status, 401);
  });

  it("publishes both graphs' input, output, state and configuration schemas", async () => {
    const schemasOf = async (graph: string) =>
      (await call("GET", `/assistants/${graph}/schemas`, ALICE)).json() as Record<string, { properties: Record<string, { description?: string }>; required?: string[] } | undefined>;
    const retrieval = await schemasOf("recallgraph");
    assert.deepEqual(Object.keys(retrieval.input_schema?.properties ?? {}).sort(), ["filter", "namespaces", "now", "question"]);
    // The server publishes every input field as optional; the descriptions say which the graph requires.
    assert.match(retrieval.input_schema?.properties.question?.description ?? "", /required/);
    assert.match(retrieval.input_schema?.properties.namespaces?.description ?? "", /required/);
    assert.ok(retrieval.output_schema?.required?.includes("results"), JSON.stringify(retrieval.output_schema?.required));
    assert.ok(retrieval.state_schema && "results" in retrieval.state_schema.properties);
    assert.ok(retrieval.config_schema && "semanticTopK" in retrieval.config_schema.properties && "preset" in retrieval.config_schema.properties);
    assert.equal(retrieval.config_schema?.required, undefined, "every configuration field has a default");
    const writing = await schemasOf("remember");
    assert.deepEqual(Object.keys(writing.input_schema?.properties ?? {}).sort(), ["dialogue", "forget", "memories", "namespace"]);
    assert.deepEqual(writing.output_schema?.required?.sort(), ["deleted", "namespace", "retired", "written"]);
  });

  it("lets Alice write a memory through the write graph and find it through the retrieval graph", async () => {
    const written = await write(ALICE, { namespace: "alice", memories: [{ id: "drawer", text: "Alice keeps the spare office key in the blue drawer." }] });
    assert.equal(written.status, 200, written.text);
    assert.deepEqual((written.json() as { written: string[] }).written, ["drawer"]);
    const found = await ask(ALICE, { question: "Where is the spare office key?", namespaces: ["alice"], now: NOW }, { context: { finalK: 3 } });
    assert.equal(found.status, 200, found.text);
    const answer = found.json() as { results: Array<{ id: string; namespace: string }>; account?: { nodeMs: Record<string, number> }; viewHits?: unknown };
    assert.equal(answer.results[0]?.id, "drawer");
    assert.ok(answer.results.length <= 3, "configuration given as context is applied");
    assert.equal(answer.viewHits, undefined, "the answer, not the working state");
    assert.ok(answer.account && answer.account.nodeMs.finalize !== undefined);
  });

  it("answers from a shared namespace every caller may read, and refuses writing it", async () => {
    const found = await ask(ALICE, { question: "What happened with ERR_1024?", namespaces: ["team"], now: NOW });
    assert.equal(found.status, 200, found.text);
    assert.equal((found.json() as { results: Array<{ id: string }> }).results[0]?.id, "err-1024");
    assert.equal((await write(ALICE, { namespace: "team", memories: [{ text: "Alice was here." }] })).status, 403);
  });

  it("refuses Alice Bob's namespace with 403 before anything is read, and shows her none of his memories", async () => {
    const secret = "Bob hides the vault code under the plant pot.";
    assert.equal((await write(BOB, { namespace: "bob", memories: [{ id: "vault", text: secret }] })).status, 200);
    for (const namespaces of [["bob"], ["alice", "bob"], ["bob/notes"]]) {
      const refused = await ask(ALICE, { question: "Where is the vault code?", namespaces });
      assert.equal(refused.status, 403, `${JSON.stringify(namespaces)}: ${refused.text}`);
      assert.ok(!refused.text.includes("plant pot"), refused.text);
    }
    assert.equal((await write(ALICE, { namespace: "bob", forget: ["vault"] })).status, 403);
    const bobs = await ask(BOB, { question: "Where is the vault code?", namespaces: ["bob"] });
    assert.equal((bobs.json() as { results: Array<{ text: string }> }).results[0]?.text, secret, "Bob's memory is still there");
  });

  it("keeps each caller's threads their own", async () => {
    const thread = (await call("POST", "/threads", BOB, {})).json() as { thread_id: string };
    const ran = await run(BOB, { assistant_id: "recallgraph", input: { question: "vault code", namespaces: ["bob"] } }, `/threads/${thread.thread_id}/runs/wait`);
    assert.equal(ran.status, 200, ran.text);
    const seen = (await call("POST", "/threads/search", ALICE, { limit: 100 })).json() as Array<{ thread_id: string }>;
    assert.ok(!seen.some((t) => t.thread_id === thread.thread_id), "Alice's search shows none of Bob's threads");
    assert.equal((await call("GET", `/threads/${thread.thread_id}/state`, ALICE)).status, 404);
    const theirs = (await call("POST", "/threads/search", BOB, { limit: 100 })).json() as Array<{ thread_id: string }>;
    assert.ok(theirs.some((t) => t.thread_id === thread.thread_id), "Bob sees his own");
  });

  it("starts every run on a reused thread afresh: a run without `now` reads the clock", async () => {
    const thread = (await call("POST", "/threads", ALICE, {})).json() as { thread_id: string };
    const path = `/threads/${thread.thread_id}/runs/wait`;
    const first = (await run(ALICE, { assistant_id: "recallgraph", input: { question: "What did Alice do last week?", namespaces: ["alice"], now: NOW } }, path)).json() as { referenceTime: string };
    assert.equal(first.referenceTime, NOW);
    const before = Date.now();
    const second = (await run(ALICE, { assistant_id: "recallgraph", input: { question: "What did Alice do last week?", namespaces: ["alice"] } }, path)).json() as { referenceTime: string };
    assert.ok(Date.parse(second.referenceTime) >= before - 1000, `second run's reference time ${second.referenceTime}`);
  });

  it("names the field of bad input in one line", async () => {
    const reply = await ask(ALICE, { question: "Where is the key?" });
    const message = JSON.stringify(reply.json());
    assert.match(message, /input\.namespaces: namespaces is required/);
    assert.ok(!message.includes("invalid_type"), "not a raw zod error");
  });
});
