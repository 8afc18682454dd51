import assert from "node:assert/strict";
import { request } from "node:http";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { oneLineError, runCli, temporaryFolder } from "../cli/helpers.js";
import { callTool, savedId, startHttpChild, testEnvironment, type HttpChild } from "./helpers.js";

const STEP = { timeout: 30_000 };
const ALICE_TOKEN = "tok-alice-0001";
const BOB_TOKEN = "tok-bob-00002";
const KEYS = `${ALICE_TOKEN}:alice,${BOB_TOKEN}:bob`;

describe("recallgraph mcp --http", () => {
  let folder: Awaited<ReturnType<typeof temporaryFolder>>;
  let server: HttpChild;
  const clients: Client[] = [];

  /** A client connected with `token` as its bearer token. */
  async function connectAs(token: string): Promise<Client> {
    const transport = new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
    const client = new Client({ name: "recallgraph-test", version: "0.0.0" });
    await client.connect(transport, { timeout: 20_000 });
    clients.push(client);
    return client;
  }

  before(async () => {
    folder = await temporaryFolder();
    server = await startHttpChild(path.join(folder.path, "m.db"), [], testEnvironment({ RECALLGRAPH_API_KEYS: KEYS }));
  });

  after(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await server?.kill();
    await folder?.remove();
  });

  it("listens on loopback and says how callers authenticate, on stderr", () => {
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    assert.match(server.stderr(), /bearer token from RECALLGRAPH_API_KEYS \(2 identities\)/);
  });

  it("lets Alice save and recall her memory, and keeps it from Bob", STEP, async () => {
    const alice = await connectAs(ALICE_TOKEN);
    const id = savedId((await callTool(alice, "save_memory", { text: "Alice's locker code is 4417.", persons: ["Alice"] })).text);
    const recalled = await callTool(alice, "recall_memories", { question: "What is Alice's locker code?" });
    assert.ok(recalled.text.includes(`(id: ${id}) Alice's locker code is 4417.`), recalled.text);

    const bob = await connectAs(BOB_TOKEN);
    assert.deepEqual(await callTool(bob, "recall_memories", { question: "What is Alice's locker code?" }), { text: "No stored memory matches.", isError: false });
    assert.deepEqual(await callTool(bob, "list_memories", {}), { text: "No stored memories.", isError: false });
    const refused = await callTool(bob, "forget_memories", { ids: [id] });
    assert.equal(refused.isError, true, "Bob cannot forget Alice's memory by its id");
    assert.match(refused.text, /in namespace "bob"/);
    assert.ok((await callTool(alice, "list_memories", {})).text.includes(`(id: ${id})`), "Alice's memory is still there");
  });

  it("answers 401 to a request without a valid bearer token, before reading any MCP message", STEP, async () => {
    const initialize = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "0" } } });
    for (const authorization of [undefined, "Bearer tok-nobody-000", `Basic ${ALICE_TOKEN}`]) {
      const headers: Record<string, string> = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
      if (authorization !== undefined) headers.Authorization = authorization;
      const response = await fetch(server.url, { method: "POST", headers, body: initialize });
      assert.equal(response.status, 401, authorization ?? "no header");
      assert.match(response.headers.get("www-authenticate") ?? "", /^Bearer/);
      await response.body?.cancel();
    }
  });

  it("refuses a request that batches more messages than it allows, or carries more bytes, before running any", STEP, async () => {
    const headers = { "Content-Type": "application/json", Accept: "application/json, text/event-stream", Authorization: `Bearer ${ALICE_TOKEN}` };
    const call = (id: number) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "recall_memories", arguments: { question: "What is Alice's locker code?" } } });
    const batched = await fetch(server.url, { method: "POST", headers, body: JSON.stringify(Array.from({ length: 100 }, (_, i) => call(i + 1))) });
    assert.equal(batched.status, 400);
    assert.match(await batched.text(), /a request may batch at most 8 messages, this one has 100/);
    const large = await fetch(server.url, { method: "POST", headers, body: JSON.stringify({ ...call(1), padding: "x".repeat(5 * 1024 * 1024) }) });
    assert.equal(large.status, 413);
    assert.match(await large.text(), /at most 4194304 bytes/);
    const garbled = await fetch(server.url, { method: "POST", headers, body: "{not json" });
    assert.equal(garbled.status, 400);
    await garbled.body?.cancel();
  });

  it("refuses a Host header that names no loopback address (DNS rebinding), even with a valid token", STEP, async () => {
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const sent = request(server.url, { method: "POST", headers: { Host: "rebound.example", Authorization: `Bearer ${ALICE_TOKEN}` } }, (response) => {
        response.resume();
        resolve(response.statusCode);
      });
      sent.on("error", reject).end("{}");
    });
    assert.equal(status, 403);
  });
});

describe("recallgraph mcp --http without keys", () => {
  it("refuses to start unless --namespace names the one namespace every caller gets", STEP, async () => {
    const folder = await temporaryFolder();
    try {
      const run = await runCli(["--db", path.join(folder.path, "m.db"), "--embedder", "hash", "mcp", "--http"], folder.path);
      assert.equal(run.code, 1);
      assert.match(oneLineError(run), /--namespace: required with --http when RECALLGRAPH_API_KEYS is not set/);
    } finally {
      await folder.remove();
    }
  });

  it("with --namespace, serves every caller that namespace without a token, and says so", STEP, async () => {
    const folder = await temporaryFolder();
    const server = await startHttpChild(path.join(folder.path, "m.db"), ["--namespace", "me"], testEnvironment());
    const client = new Client({ name: "recallgraph-test", version: "0.0.0" });
    try {
      assert.match(server.stderr(), /no authentication, every caller acts on namespace "me"/);
      await client.connect(new StreamableHTTPClientTransport(new URL(server.url)), { timeout: 20_000 });
      const id = savedId((await callTool(client, "save_memory", { text: "The spare key is under the blue pot." })).text);
      assert.ok((await callTool(client, "list_memories", {})).text.includes(`(id: ${id})`));
    } finally {
      await client.close();
      await server.kill();
      await folder.remove();
    }
  });
});
