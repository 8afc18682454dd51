/**
 * End to end through the LangGraph server: `langgraphjs dev` serves langgraph.json on a loopback port
 * with two API keys; the graphs open their store and embedder from the environment; callers write
 * through the `remember` graph, ask through `recallgraph`, and only ever touch their own namespaces
 * (and the shared one), threads included. The route-by-route probes of a second identity are in
 * served-routes.test.ts.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { openRecallGraph } from "../../src/library/open-recallgraph.js";
import { TEAM, NOW } from "../support/team-memory.js";
import { startDevServer, type DevServer } from "./dev-server.js";

const ALICE = "alice-key-0123456789";
const BOB = "bob-key-9876543210";

describe("the graphs served by langgraphjs dev, secured by API keys", () => {
  const dir = mkdtempSync(join(tmpdir(), "recallgraph-server-"));
  const env = {
    ...process.env,
    RECALLGRAPH_EMBEDDER: "hash",
    RECALLGRAPH_DB: join(dir, "memory.db"),
    RECALLGRAPH_API_KEYS: `${ALICE}:alice,${BOB}:bob`,
    RECALLGRAPH_SHARED_NAMESPACES: "team",
  };
  let server: DevServer;
  const call = (method: string, path: string, key: string | undefined, body?: unknown) => server.call(method, path, key, body);
  const run = (key: string | undefined, body: unknown, path = "/runs/wait") => call("POST", path, key, body);
  const ask = (key: string, input: Record<string, unknown>, extra: Record<string, unknown> = {}) => run(key, { assistant_id: "recallgraph", input, ...extra });
  const write = (key: string, input: Record<string, unknown>) => run(key, { assistant_id: "remember", input });

  before(async () => {
    const memory = await openRecallGraph({ env, model: null });
    await memory.remember("team", TEAM);
    await memory.close();
    server = await startDevServer(env);
  });

  after(async () => {
    await server?.dispose();
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
    assert.deepEqual(Object.keys(retrieval.input_schema?.properties ?? {}).sort(), ["asOf", "filter", "namespaces", "now", "question"]);
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

  it("answers as of a time, and says what is superseded, through the served graph", async () => {
    const desks = [
      { id: "desk-1", text: "Alice sits at desk 12 on the third floor.", timestamp: "2026-01-05T09:00:00Z" },
      { id: "desk-2", text: "Alice moved to desk 40 on the fifth floor.", timestamp: "2026-02-05T09:00:00Z", supersedes: ["desk-1"] },
    ];
    const written = await write(ALICE, { namespace: "alice", memories: desks });
    assert.equal(written.status, 200, written.text);
    type Answer = { results: Array<{ id: string; provenance: { supersededBy?: string[] } }> };
    const question = "Which desk does Alice sit at on the third floor?";
    const current = ((await ask(ALICE, { question, namespaces: ["alice"], now: "2026-03-01T00:00:00Z" })).json() as Answer).results;
    const order = current.map((result) => result.id);
    assert.equal(order.indexOf("desk-2") + 1, order.indexOf("desk-1"), order.join(","));
    assert.deepEqual(current.find((result) => result.id === "desk-1")?.provenance.supersededBy, ["desk-2"]);
    const then = await ask(ALICE, { question, namespaces: ["alice"], asOf: "2026-01-10T00:00:00Z" });
    assert.equal(then.status, 200, then.text);
    const before = (then.json() as Answer).results;
    assert.ok(before.some((result) => result.id === "desk-1") && !before.some((result) => result.id === "desk-2"), JSON.stringify(before.map((r) => r.id)));
    assert.equal(before.find((result) => result.id === "desk-1")?.provenance.supersededBy, undefined);
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
    const thread = (await call("POST", "/threads", BOB, { metadata: { title: "Bob's planning", owner: "alice" } })).json() as { thread_id: string; metadata: Record<string, unknown> };
    assert.equal(thread.metadata.owner, "bob", "the owner is the caller, whatever the request says");
    const seen = (await call("POST", "/threads/search", ALICE, { limit: 100 })).json() as Array<{ thread_id: string }>;
    assert.ok(!seen.some((t) => t.thread_id === thread.thread_id), "Alice's search shows none of Bob's threads");
    assert.equal((await call("GET", `/threads/${thread.thread_id}/state`, ALICE)).status, 404);
    const theirs = (await call("POST", "/threads/search", BOB, { limit: 100 })).json() as Array<{ thread_id: string }>;
    assert.ok(theirs.some((t) => t.thread_id === thread.thread_id), "Bob sees his own");
  });

  it("answers stateless runs only: a run whose answer the server would keep is refused with 403", async () => {
    const thread = (await call("POST", "/threads", ALICE, {})).json() as { thread_id: string };
    const input = { question: "Where is the spare office key?", namespaces: ["alice"] };
    const onThread = await run(ALICE, { assistant_id: "recallgraph", input }, `/threads/${thread.thread_id}/runs/wait`);
    assert.equal(onThread.status, 403, onThread.text);
    assert.match(onThread.text, /stateless run/);
    assert.equal((await run(ALICE, { assistant_id: "remember", input: { namespace: "alice", forget: [] } }, `/threads/${thread.thread_id}/runs`)).status, 403);
    const kept = await run(ALICE, { assistant_id: "recallgraph", input, on_completion: "keep" });
    assert.equal(kept.status, 403, kept.text);
    const webhook = await run(ALICE, { assistant_id: "recallgraph", input, webhook: "http://127.0.0.1:9/hook" });
    assert.equal(webhook.status, 403, webhook.text);
    const state = (await call("GET", `/threads/${thread.thread_id}/state`, ALICE)).json() as { values: unknown };
    assert.deepEqual(state.values, {}, "the thread holds nothing");
  });

  it("names the field of bad input in one line", async () => {
    const reply = await ask(ALICE, { question: "Where is the key?" });
    const message = JSON.stringify(reply.json());
    assert.match(message, /input\.namespaces: namespaces is required/);
    assert.ok(!message.includes("invalid_type"), "not a raw zod error");
  });
});

describe("an open server that keeps thread history, for LangGraph Studio", () => {
  const dir = mkdtempSync(join(tmpdir(), "recallgraph-server-"));
  const env: NodeJS.ProcessEnv = { ...process.env, RECALLGRAPH_EMBEDDER: "hash", RECALLGRAPH_DB: join(dir, "memory.db"), RECALLGRAPH_THREAD_HISTORY: "keep" };
  delete env.RECALLGRAPH_API_KEYS;
  let server: DevServer;

  before(async () => {
    server = await startDevServer(env);
  });

  after(async () => {
    await server?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it("starts every run on a reused thread afresh: a run without `now` reads the clock", async () => {
    const thread = (await server.call("POST", "/threads", undefined, {})).json() as { thread_id: string };
    const path = `/threads/${thread.thread_id}/runs/wait`;
    const ask = async (input: Record<string, unknown>) => (await server.call("POST", path, undefined, { assistant_id: "recallgraph", input })).json() as { referenceTime: string };
    const first = await ask({ question: "What did Alice do last week?", namespaces: ["alice"], now: NOW });
    assert.equal(first.referenceTime, NOW);
    const before = Date.now();
    const second = await ask({ question: "What did Alice do last week?", namespaces: ["alice"] });
    assert.ok(Date.parse(second.referenceTime) >= before - 1000, `second run's reference time ${second.referenceTime}`);
    const history = (await server.call("GET", `/threads/${thread.thread_id}/history`, undefined)).json() as unknown[];
    assert.ok(history.length > 0, "the thread keeps its history");
  });
});
