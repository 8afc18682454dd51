/**
 * Namespace isolation through the MCP server (src/mcp/memory-server.ts), driven through the protocol:
 * a real SDK Client talking to the server over the SDK's in-memory transport pair. Each caller's server
 * is bound the way the Streamable HTTP transport binds one (src/mcp/http.ts): `httpBinding` on a policy
 * with a key for every identity, `callerNamespace` on the request's `Authorization: Bearer` header, then
 * `createMemoryServer` over that namespace (what `serveOne` does per request, without the HTTP).
 *
 * Worlds are written partly through the protocol (save_memory, save_dialogue by each namespace's own
 * caller) and read back from the store to check where every write landed.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import fc from "fast-check";
import type { RetrievalConfigInput } from "../../src/graph/configuration.js";
import { accessPolicyFromEnv } from "../../src/library/access-policy.js";
import type { RecallGraph } from "../../src/library/open-recallgraph.js";
import type { MemoryEntry } from "../../src/memory/entry.js";
import { callerNamespace, httpBinding } from "../../src/mcp/http.js";
import { createMemoryServer } from "../../src/mcp/memory-server.js";
import { callTool } from "../mcp/helpers.js";
import { openIsolationMemory } from "./support.js";
import {
  assertNoForeignText,
  assertOwnResult,
  callerFilter,
  clearNamespaces,
  dialogueOf,
  markerOf,
  NAMESPACE_POOL,
  NOW,
  question,
  readWorld,
  runs,
  Seen,
  sharingIndices,
  snapshotOf,
  worldSpec,
  type DialogueInput,
  type World,
  type WorldSpec,
} from "./world.js";

/** Every name of NAMESPACE_POOL is an identity with a key; over HTTP a caller's namespace is their identity. */
const tokenOf = (identity: string) => `isolation-mcp-token-${NAMESPACE_POOL.indexOf(identity as (typeof NAMESPACE_POOL)[number])}`;
const policy = accessPolicyFromEnv({ RECALLGRAPH_API_KEYS: NAMESPACE_POOL.map((identity) => `${tokenOf(identity)}:${identity}`).join(",") });
const binding = httpBinding(policy, undefined);

type Preset = NonNullable<RetrievalConfigInput["preset"]>;

interface Connection {
  client: Client;
  namespace: string;
  close(): Promise<void>;
}

/** A client connected, through the in-memory transport pair, to a server bound to the namespace the caller's bearer token stands for. */
async function connectAs(memory: RecallGraph, identity: string, preset: Preset = "full"): Promise<Connection> {
  const namespace = callerNamespace(binding, `Bearer ${tokenOf(identity)}`);
  assert.equal(namespace, identity, "a key binds its identity's namespace");
  const server = createMemoryServer({ memory, namespace, now: () => NOW, configurable: { preset } }, "0.0.0-isolation");
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: "recallgraph-isolation", version: "0.0.0" });
  await client.connect(clientTransport);
  return {
    client,
    namespace,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

/** The connections of one property run, closed together. */
class Connections {
  private open: Connection[] = [];
  constructor(private readonly memory: RecallGraph) {}
  async as(identity: string, preset?: Preset): Promise<Connection> {
    const connection = await connectAs(this.memory, identity, preset);
    this.open.push(connection);
    return connection;
  }
  async closeAll(): Promise<void> {
    await Promise.all(this.open.splice(0).map((connection) => connection.close()));
  }
}

// ---- the world, written partly through the protocol ----

type Route = "library" | "save_memory" | "save_dialogue";

interface McpWorldSpec {
  spec: WorldSpec;
  routes: Route[];
  dialogues: DialogueInput[];
}

const mcpWorldSpec: fc.Arbitrary<McpWorldSpec> = worldSpec.chain((spec) =>
  fc.record({
    spec: fc.constant(spec),
    routes: fc.tuple(...spec.namespaces.map(() => fc.constantFrom<Route>("library", "save_memory", "save_dialogue"))),
    dialogues: fc.tuple(...spec.namespaces.map((_, index) => dialogueOf(index))),
  }),
);

async function loadMcpWorld(memory: RecallGraph, connections: Connections, { spec, routes, dialogues }: McpWorldSpec, seen: Seen): Promise<World> {
  await clearNamespaces(memory, NAMESPACE_POOL);
  for (const [index, namespace] of spec.namespaces.entries()) {
    const route = routes[index] ?? "library";
    if (route === "library") {
      await memory.remember(namespace, spec.inputs[index] ?? [], { now: NOW.getTime() });
      continue;
    }
    const { client } = await connections.as(namespace);
    if (route === "save_memory") {
      for (const input of spec.inputs[index] ?? []) {
        const saved = await callTool(client, "save_memory", { ...input });
        assert.equal(saved.isError, false, `save_memory as ${JSON.stringify(namespace)}: ${saved.text}`);
        // helpers' savedId reads one word; the pool's ids have spaces.
        const id = /^Saved memory (.+)\.$/s.exec(saved.text)?.[1];
        assert.ok(id !== undefined && (input.id === undefined || id === input.id), `save_memory answered ${JSON.stringify(saved.text)}`);
        assert.equal((await memory.get(namespace, [id])).length, 1, `save_memory as ${JSON.stringify(namespace)} saved elsewhere`);
      }
    } else {
      const saved = await callTool(client, "save_dialogue", { ...dialogues[index] });
      assert.equal(saved.isError, false, `save_dialogue as ${JSON.stringify(namespace)}: ${saved.text}`);
    }
    seen.add(`world written by ${route}`, 1);
  }
  return readWorld(memory, spec.namespaces, "MCP world");
}

// ---- what the tools answer ----

/** A memory line of recall_memories or list_memories: `- [date] (id: <id>) <text>`, and for a memory that is history, ` [history: ...]` after its text. */
const MEMORY_LINE = /^- \[\d{4}-\d{2}-\d{2}\] \(id: (.*?)\) (.*?)(?: \[history: [^\]]*\])?$/;

/** Fails unless every memory a tool's answer shows is one of `namespace`'s own, and none of any other. */
function assertOwnLines(text: string, world: World, namespace: string, where: string): number {
  assertNoForeignText(text, world, [namespace], where);
  let lines = 0;
  for (const line of text.split("\n")) {
    const match = MEMORY_LINE.exec(line);
    if (!match) continue;
    assertOwnResult({ namespace, id: match[1] ?? "", text: match[2] ?? "" }, world, [namespace], where);
    lines += 1;
  }
  return lines;
}

/** The cursor a list_memories page ends with, if there are more. */
function cursorOf(text: string): string | undefined {
  return /\(more: pass cursor (\S+)\)$/.exec(text)?.[1];
}

/** Every page of list_memories, checked; the cursors it was given. */
async function listEveryPage(client: Client, args: Record<string, unknown>, world: World, namespace: string, seen: Seen): Promise<string[]> {
  const cursors: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await callTool(client, "list_memories", { ...args, ...(cursor ? { cursor } : {}) });
    assert.equal(page.isError, false, `list_memories as ${JSON.stringify(namespace)}: ${page.text}`);
    seen.add("line", assertOwnLines(page.text, world, namespace, "list_memories"));
    cursor = cursorOf(page.text);
    if (cursor) cursors.push(cursor);
    assert.ok(cursors.length < 100, "list_memories pages without end");
  } while (cursor);
  return cursors;
}

describe("isolation: the MCP server, through the protocol (SDK client, in-memory transport)", () => {
  let memory: RecallGraph;
  before(async () => {
    memory = await openIsolationMemory();
  });
  after(() => memory.close());

  it("binds a caller to their key's identity, refuses a request without a valid key, and offers no tool a namespace argument", async () => {
    assert.equal(callerNamespace(binding, `Bearer ${tokenOf("bob")}`), "bob");
    for (const header of [undefined, "", "Bearer", `Bearer ${tokenOf("bob")}x`, `Basic ${tokenOf("bob")}`, "Bearer bob"]) assert.equal(callerNamespace(binding, header), undefined, String(header));
    const connection = await connectAs(memory, "bob");
    try {
      const { tools } = await connection.client.listTools();
      assert.ok(tools.length > 0);
      for (const tool of tools) {
        const named = Object.keys(tool.inputSchema.properties ?? {}).filter((property) => /namespace/i.test(property));
        assert.deepEqual(named, [], `${tool.name} takes a namespace`);
      }
    } finally {
      await connection.close();
    }
  });

  it("recall_memories and list_memories show only the caller's own memories, and a tool argument naming another namespace is refused, with no data", async () => {
    const seen = new Seen();
    await fc.assert(
      fc.asyncProperty(
        mcpWorldSpec.chain((world) =>
          fc.record({
            world: fc.constant(world),
            // Usually a namespace of the world, sometimes an identity that holds nothing.
            caller: fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...world.spec.namespaces) }, { weight: 1, arbitrary: fc.constantFrom(...NAMESPACE_POOL) }),
            victim: fc.constantFrom(...world.spec.namespaces),
            question,
            filter: callerFilter,
            limit: fc.integer({ min: 1, max: 3 }),
            preset: fc.constantFrom<Preset>("full", "no-reflect", "lexical", "dense", "symbolic"),
          }),
        ),
        async ({ world: spec, caller, victim: victimPick, question, filter, limit, preset }) => {
          const connections = new Connections(memory);
          try {
            const world = await loadMcpWorld(memory, connections, spec, seen);
            const { client } = await connections.as(caller, preset);
            const recalled = await callTool(client, "recall_memories", { question, ...(filter ? { filter } : {}) });
            assert.equal(recalled.isError, false, `recall_memories as ${JSON.stringify(caller)}: ${recalled.text}`);
            seen.add("line", assertOwnLines(recalled.text, world, caller, "recall_memories"));
            await listEveryPage(client, { limit, ...(filter ? { filter } : {}) }, world, caller, seen);

            // Another caller's cursor, replayed: followed within the caller's own namespace, or refused.
            const victim = victimPick === caller ? (world.namespaces.find((namespace) => namespace !== caller) ?? victimPick) : victimPick;
            const theirs = await connections.as(victim);
            const [foreignCursor] = await listEveryPage(theirs.client, { limit: 1 }, world, victim, seen);
            if (foreignCursor) {
              const replayed = await callTool(client, "list_memories", { limit: 100, cursor: foreignCursor });
              if (!replayed.isError) seen.add("line", assertOwnLines(replayed.text, world, caller, "list_memories with another caller's cursor"));
              assertNoForeignText(replayed.text, world, [caller], "list_memories with another caller's cursor");
              seen.add("foreign cursor", 1);
            }

            // Naming the victim's namespace in any tool's arguments: a one-line tool error naming the field, nothing read or written.
            const victimIds = [...(world.entries.get(victim)?.keys() ?? [])];
            const before = await snapshotOf(memory, world.namespaces);
            const hostile: Array<[tool: string, args: Record<string, unknown>]> = [
              ["recall_memories", { question, namespace: victim }],
              ["recall_memories", { question, namespaces: [victim] }],
              ["list_memories", { namespace: victim }],
              ["save_memory", { text: `${markerOf(world.namespaces.indexOf(victim))} planted`, namespace: victim }],
              ["forget_memories", { ids: victimIds.length ? victimIds.slice(0, 2) : ["x"], namespace: victim }],
              ["save_dialogue", { turns: [{ turnId: "t1", speaker: "Bob", text: "planted", time: NOW.toISOString() }], namespace: victim }],
            ];
            for (const [tool, args] of hostile) {
              const answer = await callTool(client, tool, args);
              const where = `${tool} as ${JSON.stringify(caller)} naming ${JSON.stringify(victim)}`;
              assert.equal(answer.isError, true, `${where} was not refused: ${answer.text}`);
              assert.match(answer.text, /namespace/, `${where}: the refusal names the field`);
              assert.doesNotMatch(answer.text, /\n/, `${where}: one line`);
              assertNoForeignText(answer.text, world, [caller], where);
              seen.add("refusal", 1);
            }
            assert.deepEqual(await snapshotOf(memory, world.namespaces), before, `a refused tool call as ${JSON.stringify(caller)} changed the store`);
          } finally {
            await connections.closeAll();
          }
        },
      ),
      runs(),
    );
    seen.assertSome("line", "refusal", "foreign cursor", "world written by save_memory", "world written by save_dialogue");
  });

  it("forget_memories, save_memory and save_dialogue act on the caller's namespace alone: another's ids are refused, shared ids and dialogues touch only the caller's", async () => {
    const seen = new Seen();
    await fc.assert(
      fc.asyncProperty(
        mcpWorldSpec.chain((world) => {
          // The caller: preferably a namespace sharing an id with another (a dialogue's namespace holds turn ids instead).
          const sharing = sharingIndices(world.spec, (index) => world.routes[index] !== "save_dialogue");
          const who = fc.oneof({ weight: sharing.length ? 2 : 0, arbitrary: fc.constantFrom(...(sharing.length ? sharing : [0])) }, { weight: 1, arbitrary: fc.nat({ max: world.spec.namespaces.length - 1 }) });
          return fc.record({ world: fc.constant(world), who, ownPicks: fc.array(fc.nat(), { maxLength: 3 }), dialogue: dialogueOf(0) });
        }),
        async ({ world: spec, who, ownPicks, dialogue }) => {
          const connections = new Connections(memory);
          try {
            const world = await loadMcpWorld(memory, connections, spec, seen);
            const caller = world.namespaces[who] ?? "";
            const { client } = await connections.as(caller);
            const own = world.entries.get(caller) ?? new Map<string, MemoryEntry>();
            const ownIds = [...own.keys()];
            const othersHold = (id: string) => world.namespaces.some((other) => other !== caller && world.entries.get(other)?.has(id));
            const foreignOnly = [...new Set(world.namespaces.flatMap((other) => [...(world.entries.get(other)?.keys() ?? [])]))].filter((id) => !own.has(id));
            let before = await snapshotOf(memory, world.namespaces);

            // Ids only other namespaces hold, alone or beside the caller's own: refused whole, nothing deleted anywhere.
            for (const ids of foreignOnly.length ? [foreignOnly.slice(0, 3), [...ownIds.slice(0, 1), ...foreignOnly.slice(0, 1)]] : []) {
              const answer = await callTool(client, "forget_memories", { ids });
              assert.equal(answer.isError, true, `forget_memories(${JSON.stringify(ids)}) as ${JSON.stringify(caller)}: ${answer.text}`);
              assert.match(answer.text, /no memory/);
              assertNoForeignText(answer.text, world, [caller], "forget_memories refusal");
              assert.deepEqual(await snapshotOf(memory, world.namespaces), before, `a refused forget_memories as ${JSON.stringify(caller)} deleted something`);
              seen.add("foreign forget refused", 1);
            }

            // Saving under ids only others hold (now two memories each, the caller's and theirs), and a dialogue
            // whose turn ids other namespaces' dialogues use too: the others are untouched. A turn id the caller's
            // own namespace holds for another turn may be refused (a turn id names one turn there: turn-ids.test.ts).
            const marker = markerOf(who);
            const writes: Array<[tool: string, args: Record<string, unknown>]> = [
              ...foreignOnly.slice(0, 2).map((id): [string, Record<string, unknown>] => ["save_memory", { id, text: `${marker} saved over a foreign id` }]),
              ["save_dialogue", { turns: dialogue.turns.map((turn) => ({ ...turn, text: turn.text.replace(markerOf(0), marker) })) }],
            ];
            const ownTurns = spec.routes[who] === "save_dialogue" ? (spec.dialogues[who]?.turns ?? []) : [];
            const mayClash = dialogue.turns.some((turn) => ownTurns.some((mine) => mine.turnId === turn.turnId && Date.parse(mine.time) !== Date.parse(turn.time)));
            for (const [tool, args] of writes) {
              const answer = await callTool(client, tool, args);
              const refused = answer.isError && tool === "save_dialogue" && mayClash;
              assert.equal(answer.isError, refused, `${tool} as ${JSON.stringify(caller)}: ${answer.text}`);
              if (refused) assert.match(answer.text, /turnId: turn id .* already names another turn, said at/);
              seen.add(refused ? "own turn id refused" : "write", 1);
            }
            let afterwards = await snapshotOf(memory, world.namespaces);
            for (const namespace of world.namespaces) {
              if (namespace !== caller) assert.deepEqual(afterwards.get(namespace), before.get(namespace), `writes as ${JSON.stringify(caller)} changed ${JSON.stringify(namespace)}`);
            }
            const written = await readWorld(memory, world.namespaces, `writes as ${JSON.stringify(caller)}`);
            before = afterwards;

            // The caller's own ids, every one it shares with another namespace among them: only the caller's memories go.
            const heldNow = [...(written.entries.get(caller)?.keys() ?? [])];
            const forget = [...new Set([...ownPicks.map((pick) => heldNow[pick % heldNow.length] ?? ""), ...heldNow.filter(othersHold)].filter(Boolean))];
            if (forget.length) {
              const answer = await callTool(client, "forget_memories", { ids: forget });
              assert.equal(answer.text, `Forgot ${forget.length} ${forget.length === 1 ? "memory" : "memories"}.`);
              afterwards = await snapshotOf(memory, world.namespaces);
              for (const namespace of world.namespaces) {
                const expected = namespace === caller ? before.get(namespace)?.filter((entry) => !forget.includes(entry.id)) : before.get(namespace);
                assert.deepEqual(afterwards.get(namespace), expected, `forget_memories(${JSON.stringify(forget)}) as ${JSON.stringify(caller)}: ${JSON.stringify(namespace)} is not as it should be`);
              }
              if (forget.some(othersHold)) seen.add("shared forget", 1);
            }
          } finally {
            await connections.closeAll();
          }
        },
      ),
      runs(),
    );
    seen.assertSome("foreign forget refused", "shared forget", "write");
  });
});
