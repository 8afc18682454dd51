/**
 * Every route of the installed langgraph-api, called by a second identity. The route table is read
 * from langgraph-api's own files (every `get`, `post`, `put`, `patch` and `delete` it registers), so a
 * route a new version adds is probed without editing this test. Alice, with her own key, writes a
 * memory, creates a thread and leaves a run waiting; Bob, with his own valid key and every id of hers,
 * calls each route with her thread, run and assistant ids in its path and bodies aimed at her data
 * (her namespace in a run's input, her store namespace as a prefix, an empty prefix, her thread id in a
 * create). No reply may hold a byte of what she wrote, and what she sees through her own key must be
 * the same after every probe as before. A route the server does not serve answers 403 to both of them.
 *
 * The same server shows that forget means gone: after Alice forgets a memory and another expires, no
 * route she may call returns either, and nor does anything the server wrote to disk.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { SERVED_ROUTES } from "../../src/server/routes.js";
import { ROOT, startDevServer, type DevServer, type Reply } from "./dev-server.js";

const ALICE = "alice-route-key-0123456789";
const BOB = "bob-route-key-9876543210";

// ---- the route table of the installed langgraph-api ----

interface Route {
  method: string;
  path: string;
}

function filesBelow(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(folder, entry.name);
    return entry.isDirectory() ? filesBelow(file) : entry.name.endsWith(".mjs") ? [file] : [];
  });
}

/** Every route registered in langgraph-api's files: `<router>.<method>("<path>"`. */
function installedRoutes(): Route[] {
  const dist = path.join(ROOT, "node_modules/@langchain/langgraph-api/dist");
  const routes = new Map<string, Route>();
  for (const file of filesBelow(dist)) {
    for (const match of readFileSync(file, "utf8").matchAll(/\b\w+\.(get|post|put|patch|delete)\(\s*"(\/[^"]*)"/g)) {
      const route = { method: (match[1] ?? "").toUpperCase(), path: match[2] ?? "" };
      routes.set(`${route.method} ${route.path}`, route);
    }
  }
  return [...routes.values()];
}

const served = new Set<string>([...SERVED_ROUTES.map((route) => `${route.method} ${route.path}`), "GET /ok", "GET /info"]);
const isServed = (route: Route) => served.has(`${route.method} ${route.path}`);

/**
 * The status a route the server does not serve answers with: 403 from the auth handler, except where
 * langgraph-api does not ask it: GET /ui/*, generative-UI assets it serves without authentication, which
 * this configuration (no `ui` in langgraph.json) does not register at all.
 */
const refusal = (route: Route) => (route.method === "GET" && route.path.startsWith("/ui/") ? 404 : 403);

// ---- what Alice has, and what Bob knows of it ----

/** Strings only Alice wrote: none may appear in any reply to Bob. */
const secret = (what: string) => `${what}-${randomUUID().slice(0, 8)}`;
const SECRETS = { memory: secret("ledger-passphrase"), thread: secret("alice-thread-title"), run: secret("alice-run-question") };

interface AliceIds {
  memory: string;
  thread: string;
  /** Her stateless run that waits: in flight for the whole test. */
  run: string;
  /** The thread langgraph-api made for it. */
  runThread: string;
  /** Her stateless run that has answered, its events queued in the server with no reader. */
  answeredRun: string;
  assistant: string;
}

/** The bodies Bob tries on a route, aimed at Alice's data; a route not named here gets `{}` (or none for GET). */
function bodiesFor(route: Route, ids: AliceIds): unknown[] {
  const askAlice = { assistant_id: "recallgraph", input: { question: "What is the ledger passphrase?", namespaces: ["alice"] } };
  const forgetAlice = { assistant_id: "remember", input: { namespace: "alice", forget: [ids.memory] } };
  const writeAlice = { assistant_id: "remember", input: { namespace: "alice", memories: [{ text: "Planted by Bob." }] } };
  const askOwn = { assistant_id: "recallgraph", input: { question: "What is the ledger passphrase?", namespaces: ["bob"] } };
  const byRoute: Record<string, unknown[]> = {
    "POST /runs": [askAlice, forgetAlice, writeAlice],
    "POST /runs/wait": [askAlice, forgetAlice, writeAlice],
    "POST /runs/stream": [askAlice, forgetAlice],
    "POST /runs/batch": [[askAlice], [forgetAlice]],
    "POST /threads/:thread_id/runs": [askOwn, askAlice],
    "POST /threads/:thread_id/runs/wait": [askOwn, askAlice, { ...askOwn, if_not_exists: "create" }],
    "POST /threads/:thread_id/runs/stream": [askOwn, { ...askOwn, multitask_strategy: "interrupt" }],
    "POST /threads/:thread_id/runs/crons": [{ ...askAlice, schedule: "* * * * *" }],
    "POST /runs/crons": [{ ...askAlice, schedule: "* * * * *" }],
    "POST /threads": [{ thread_id: ids.thread, if_exists: "do_nothing" }, { thread_id: ids.thread, if_exists: "raise" }, { thread_id: ids.runThread }],
    "POST /threads/search": [{ limit: 100 }, { metadata: { owner: "alice" } }, { ids: [ids.thread, ids.runThread] }],
    "POST /threads/count": [{}, { metadata: { owner: "alice" } }],
    "PATCH /threads/:thread_id": [{ metadata: { owner: "bob", title: "taken by Bob" } }],
    "POST /threads/:thread_id/state": [{ values: { question: "planted by Bob" } }],
    "POST /threads/:thread_id/history": [{ limit: 10 }],
    "POST /threads/:thread_id/commands": [
      { id: 1, method: "state.get", params: {} },
      { id: 2, method: "run.input", params: { input: askAlice.input } },
    ],
    "POST /threads/:thread_id/stream/events": [{ channels: ["values", "updates", "messages", "lifecycle", "tools", "custom"] }],
    "POST /assistants": [{ graph_id: "recallgraph", name: "Bob's" }, { assistant_id: ids.assistant, graph_id: "recallgraph", if_exists: "do_nothing" }],
    "PATCH /assistants/:assistant_id": [{ config: { configurable: { finalK: 1 } }, metadata: { owner: "bob" } }],
    "POST /assistants/:assistant_id/latest": [{ version: 1 }],
    "POST /store/items/search": [{ namespace_prefix: [] }, { namespace_prefix: ["alice"] }, { namespace_prefix: ["al"] }, { namespace_prefix: ["bob"] }],
    "POST /store/namespaces": [{}, { prefix: ["alice"] }, { prefix: ["al"] }],
    "PUT /store/items": [{ namespace: ["alice"], key: "notes", value: { text: "planted by Bob" } }, { namespace: ["bob"], key: "notes", value: {} }],
    "DELETE /store/items": [{ namespace: ["alice"], key: "notes" }],
    "POST /internal/truncate": [{ runs: true, threads: true, assistants: true, checkpointer: true, store: true }],
  };
  return byRoute[`${route.method} ${route.path}`] ?? (route.method === "GET" ? [undefined] : [{}]);
}

/** The paths Bob calls for a route: Alice's ids in its parameters, each of her threads and runs where it takes one. */
function pathsFor(route: Route, ids: AliceIds): string[] {
  const threads = route.path.includes(":run_id") ? [ids.runThread] : [ids.thread, ids.runThread];
  const runs = [ids.run, ids.answeredRun];
  const paths = threads.flatMap((thread) =>
    runs.map((run) =>
      route.path
        .replace(/\/:namespace\?$/, "")
        .replace(":thread_id", thread)
        .replace(":run_id", run)
        .replace(":assistant_id", ids.assistant)
        .replace(/:\w+\??/g, randomUUID()),
    ),
  );
  return [...new Set(paths)].map((filled) => (route.method === "GET" && filled === "/store/items" ? `${filled}?namespace=alice&key=notes` : filled));
}

function assertNothingOfAlice(reply: Reply, where: string): void {
  for (const [what, text] of Object.entries(SECRETS)) assert.ok(!reply.text.includes(text), `${where}: Alice's ${what} came back: ${reply.text.slice(0, 300)}`);
}

describe("every route of langgraph-api, called by a second identity", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "recallgraph-routes-"));
  const env = {
    ...process.env,
    RECALLGRAPH_EMBEDDER: "hash",
    RECALLGRAPH_DB: path.join(dir, "memory.db"),
    RECALLGRAPH_API_KEYS: `${ALICE}:alice,${BOB}:bob`,
  };
  let server: DevServer;
  let ids: AliceIds;
  const routes = installedRoutes();

  const asAlice = async (method: string, route: string, body?: unknown) => {
    const reply = await server.call(method, route, ALICE, body);
    assert.ok(reply.status < 300, `Alice: ${method} ${route}: ${reply.status} ${reply.text}`);
    return reply.json();
  };
  const remember = (input: Record<string, unknown>) => asAlice("POST", "/runs/wait", { assistant_id: "remember", input: { namespace: "alice", ...input } }) as Promise<{ written: string[]; deleted: number }>;
  const recall = async (question: string) => {
    const answer = (await asAlice("POST", "/runs/wait", { assistant_id: "recallgraph", input: { question, namespaces: ["alice"] } })) as { results: Array<{ id: string; text: string }> };
    return answer.results.map((result) => `${result.id} ${result.text}`).sort();
  };

  /** What Alice sees of her own through her key. */
  async function aliceView() {
    const threads = (await asAlice("POST", "/threads/search", { limit: 100 })) as Array<{ thread_id: string; metadata: unknown; values?: unknown }>;
    const run = (await asAlice("GET", `/threads/${ids.runThread}/runs/${ids.run}`)) as { status: string; kwargs: { input: unknown } };
    const assistants = (await asAlice("POST", "/assistants/search", { limit: 100 })) as Array<{ assistant_id: string; version: number; config: unknown; metadata: unknown }>;
    return {
      threads: threads.map((thread) => ({ id: thread.thread_id, metadata: thread.metadata, values: thread.values ?? null })).sort((a, b) => a.id.localeCompare(b.id)),
      thread: await asAlice("GET", `/threads/${ids.thread}`),
      run: { status: run.status, input: run.kwargs.input },
      assistants: assistants.map(({ assistant_id, version, config, metadata }) => ({ assistant_id, version, config, metadata })).sort((a, b) => a.assistant_id.localeCompare(b.assistant_id)),
      versions: await asAlice("POST", `/assistants/${ids.assistant}/versions`, {}),
      memories: await recall("What is the ledger passphrase?"),
    };
  }

  before(async () => {
    server = await startDevServer(env);
    const written = await remember({ memories: [{ text: `Alice keeps the ledger passphrase ${SECRETS.memory} in the grey safe.` }] });
    const thread = (await asAlice("POST", "/threads", { metadata: { title: SECRETS.thread } })) as { thread_id: string };
    // A stateless run that waits five minutes: in flight for the whole test, so Bob can try to join it.
    const run = (await asAlice("POST", "/runs", { assistant_id: "recallgraph", input: { question: `Where is ${SECRETS.run}?`, namespaces: ["alice"] }, after_seconds: 300 })) as { run_id: string; thread_id: string };
    // A stateless run started and not waited for: its answer is queued in the server for a reader.
    const answered = (await asAlice("POST", "/runs", { assistant_id: "recallgraph", input: { question: "What is the ledger passphrase?", namespaces: ["alice"] } })) as { run_id: string; thread_id: string };
    // It has answered when its temporary thread is gone.
    for (let tries = 0; (await server.call("GET", `/threads/${answered.thread_id}`, ALICE)).status !== 404; tries++) {
      assert.ok(tries < 100, "Alice's run answers");
      await delay(100);
    }
    const assistants = (await asAlice("POST", "/assistants/search", { graph_id: "recallgraph" })) as Array<{ assistant_id: string }>;
    ids = { memory: written.written[0] ?? "", thread: thread.thread_id, run: run.run_id, runThread: run.thread_id, answeredRun: answered.run_id, assistant: assistants[0]?.assistant_id ?? "" };
  });

  after(async () => {
    await server?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it("reads a route table that holds the routes the issue named", () => {
    const names = new Set(routes.map((route) => `${route.method} ${route.path}`));
    for (const name of ["POST /internal/truncate", "POST /threads/:thread_id/commands", "POST /threads/:thread_id/stream/events", "GET /runs/:run_id/stream", "POST /store/items/search", "POST /runs/crons"]) {
      assert.ok(names.has(name), `${name} is in the table`);
    }
    assert.ok(routes.length >= 50, `${routes.length} routes`);
    for (const route of SERVED_ROUTES) assert.ok(names.has(`${route.method} ${route.path}`), `served ${route.method} ${route.path} exists in langgraph-api`);
  });

  it("gives Bob no byte of Alice's data on any route, and changes nothing of hers", async () => {
    const before = await aliceView();
    assert.ok(before.memories.some((memory) => memory.includes(SECRETS.memory)), "Alice finds her memory");
    assert.equal(before.run.status, "pending");
    const statuses = new Map<number, number>();
    for (const route of routes) {
      for (const routePath of pathsFor(route, ids)) {
        for (const body of bodiesFor(route, ids)) {
          const where = `Bob: ${route.method} ${routePath} ${JSON.stringify(body) ?? ""}`;
          const reply = await server.call(route.method, routePath, BOB, body, { readMs: 3_000 });
          assertNothingOfAlice(reply, where);
          assert.notEqual(reply.status, 0, `${where}: answered at once, not left waiting on Alice's run`);
          if (!isServed(route)) assert.equal(reply.status, refusal(route), `${where}: a route the server does not serve is refused: ${reply.text}`);
          statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
        }
      }
    }
    assert.deepEqual(await aliceView(), before, "what Alice sees of hers is unchanged");
    // The probes reached the routes' own checks, not only the route allowlist.
    assert.ok((statuses.get(404) ?? 0) > 10, JSON.stringify([...statuses]));
  });

  it("refuses every route it does not serve to the owner too, and leaves her data in place", async () => {
    for (const route of routes.filter((candidate) => !isServed(candidate))) {
      for (const routePath of pathsFor(route, ids)) {
        const reply = await server.call(route.method, routePath, ALICE, bodiesFor(route, ids)[0], { readMs: 3_000 });
        assert.equal(reply.status, refusal(route), `Alice: ${route.method} ${routePath}: ${reply.text}`);
      }
    }
    assert.ok((await recall("What is the ledger passphrase?")).some((memory) => memory.includes(SECRETS.memory)), "truncate did nothing");
  });

  it("asks for a key on every route but the health check, whatever header claims Studio", async () => {
    for (const route of routes) {
      for (const routePath of pathsFor(route, ids).slice(0, 1)) {
        const reply = await server.call(route.method, routePath, undefined, bodiesFor(route, ids)[0], { headers: { "x-auth-scheme": "langsmith" }, readMs: 3_000 });
        assertNothingOfAlice(reply, `no key: ${route.method} ${routePath}`);
        if (routePath === "/ok" || routePath === "/info") assert.equal(reply.status, 200);
        else if (refusal(route) === 404) assert.equal(reply.status, 404);
        else assert.equal(reply.status, 401, `no key: ${route.method} ${routePath}: ${reply.text}`);
      }
    }
  });

  it("answers the health check without a key and without data", async () => {
    for (const key of [undefined, "not-a-key-at-all", BOB]) {
      const reply = await server.call("GET", "/ok", key);
      assert.equal(reply.status, 200);
      assert.deepEqual(reply.json(), { ok: true });
    }
    assert.equal((await server.call("HEAD", "/ok", undefined)).status, 200);
    assert.equal((await server.call("GET", "/ok/", undefined)).status, 401, "only the health route itself");
    assert.equal((await server.call("GET", "/%6Fk/../threads/search", undefined)).status, 401);
  });

  it("holds a forgotten or an expired memory on no route and in no file the server wrote", async () => {
    const forgotten = secret("forgotten-memory");
    const expiring = secret("expiring-memory");
    const expiresAt = new Date(Date.now() + 3_000).toISOString();
    const written = await remember({ memories: [{ text: `Alice parked at ${forgotten} on level two.` }, { text: `Alice parked at ${expiring} on level three.`, expiresAt }] });
    const found = await recall("Where did Alice park?");
    assert.ok(found.some((memory) => memory.includes(forgotten)) && found.some((memory) => memory.includes(expiring)), found.join("\n"));
    assert.equal((await remember({ forget: [written.written[0]] })).deleted, 1);
    await delay(Math.max(0, Date.parse(expiresAt) - Date.now()) + 200);
    const gone = [forgotten, expiring];
    const afterwards = await recall("Where did Alice park?");
    assert.ok(!gone.some((text) => afterwards.some((memory) => memory.includes(text))), afterwards.join("\n"));

    // Every route Alice may read, with her ids.
    for (const route of routes.filter((candidate) => isServed(candidate) && (candidate.method === "GET" || /search|count|history|versions/.test(candidate.path)))) {
      for (const routePath of pathsFor(route, ids)) {
        const reply = await server.call(route.method, routePath, ALICE, route.method === "GET" ? undefined : { limit: 100 }, { readMs: 2_000 });
        for (const text of gone) assert.ok(!reply.text.includes(text), `Alice: ${route.method} ${routePath} still holds ${text}`);
      }
    }

    // What the server keeps on disk, flushed by stopping it.
    await server.stop();
    const state = path.join(server.folder, ".langgraph_api");
    assert.ok(existsSync(state), "the server wrote its state");
    const files = readdirSync(state);
    assert.ok(files.length > 0);
    for (const file of files) {
      const content = readFileSync(path.join(state, file), "utf8");
      for (const text of [...gone, SECRETS.memory]) assert.ok(!content.includes(text), `${file} holds ${text}`);
    }
    // The store erased the forgotten one; the expired one stays in it, unreturned, until it is pruned.
    for (const file of [env.RECALLGRAPH_DB, `${env.RECALLGRAPH_DB}-wal`].filter(existsSync)) {
      assert.ok(!readFileSync(file).includes(forgotten), `${file} holds ${forgotten}`);
    }
  });
});
