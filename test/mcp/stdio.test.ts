import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { MEMORY_ACTIONS } from "../../src/library/memory-actions.js";
import { oneLineError, runCli, temporaryFolder } from "../cli/helpers.js";
import { callTool, mcpCommand, savedId, testEnvironment } from "./helpers.js";

const STEP = { timeout: 30_000 };

describe("recallgraph mcp over stdio", () => {
  let folder: Awaited<ReturnType<typeof temporaryFolder>>;
  let client: Client;
  let serverLog = "";

  before(async () => {
    folder = await temporaryFolder();
    const transport = new StdioClientTransport({ ...mcpCommand(path.join(folder.path, "m.db"), ["--namespace", "me"]), env: testEnvironment(), cwd: folder.path, stderr: "pipe" });
    transport.stderr?.on("data", (chunk: Buffer) => (serverLog += chunk.toString("utf8")));
    client = new Client({ name: "recallgraph-test", version: "0.0.0" });
    await client.connect(transport, { timeout: 20_000 });
  });

  after(async () => {
    await client?.close(); // closes the child's stdin, then terminates it if it lingers
    await folder?.remove();
  });

  it("lists one tool per memory action, with its description and an input schema", STEP, async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((tool) => tool.name),
      MEMORY_ACTIONS.map((action) => action.name),
    );
    for (const tool of tools) {
      assert.equal(tool.description, MEMORY_ACTIONS.find((action) => action.name === tool.name)?.description);
      assert.equal(tool.inputSchema.type, "object", tool.name);
    }
    const save = tools.find((tool) => tool.name === "save_memory");
    assert.ok(save?.inputSchema.properties && "text" in save.inputSchema.properties, "save_memory's schema names text");
    for (const field of ["supersedes", "validFrom", "validUntil"]) assert.ok(save?.inputSchema.properties && field in save.inputSchema.properties, field);
    assert.deepEqual(save?.inputSchema.required, ["text"]);
  });

  it("saves a memory, recalls and lists it with its id, forgets it by id, and recalls nothing after", STEP, async () => {
    const saved = await callTool(client, "save_memory", { text: "Alice adopted a beagle named Pixel.", timestamp: "2026-03-02", persons: ["Alice"] });
    assert.equal(saved.isError, false, saved.text);
    const id = savedId(saved.text);

    const recalled = await callTool(client, "recall_memories", { question: "What dog did Alice adopt?" });
    assert.equal(recalled.isError, false, recalled.text);
    assert.match(recalled.text, /Alice adopted a beagle named Pixel\./);
    assert.ok(recalled.text.includes(`(id: ${id})`), recalled.text);

    const listed = await callTool(client, "list_memories", {});
    assert.ok(listed.text.includes(`(id: ${id}) Alice adopted a beagle named Pixel.`), listed.text);

    const forgotten = await callTool(client, "forget_memories", { ids: [id] });
    assert.deepEqual(forgotten, { text: "Forgot 1 memory.", isError: false });
    const again = await callTool(client, "recall_memories", { question: "What dog did Alice adopt?" });
    assert.deepEqual(again, { text: "No stored memory matches.", isError: false });
  });

  it("answers forgetting an unknown id with a one-line tool error naming it, and deletes nothing", STEP, async () => {
    const kept = savedId((await callTool(client, "save_memory", { text: "Bob moved to Lisbon in 2025." })).text);
    const refused = await callTool(client, "forget_memories", { ids: [kept, "no-such-id"] });
    assert.equal(refused.isError, true);
    assert.match(refused.text, /no-such-id/);
    assert.doesNotMatch(refused.text, /\n|\bat \S+:\d+/, "one line, no stack");
    assert.ok((await callTool(client, "list_memories", {})).text.includes(`(id: ${kept})`), "the known id is still there");
  });

  it("answers empty text with a one-line tool error naming the field, and the server keeps serving", STEP, async () => {
    const refused = await callTool(client, "save_memory", { text: "   " });
    assert.equal(refused.isError, true);
    assert.match(refused.text, /\btext\b/);
    assert.doesNotMatch(refused.text, /\n/);
    assert.equal((await callTool(client, "list_memories", { limit: 1 })).isError, false);
    assert.doesNotMatch(serverLog, /"level":"error"/, "a caller's mistake is not a server error");
  });
});

describe("recallgraph mcp refuses to start unbound", () => {
  it("needs --namespace over stdio", STEP, async () => {
    const folder = await temporaryFolder();
    try {
      const run = await runCli(["--db", path.join(folder.path, "m.db"), "--embedder", "hash", "mcp"], folder.path);
      assert.equal(run.code, 1);
      assert.match(oneLineError(run), /--namespace: required over stdio/);
    } finally {
      await folder.remove();
    }
  });
});
