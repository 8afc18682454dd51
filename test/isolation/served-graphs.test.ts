/**
 * Namespace isolation through the graphs the LangGraph server serves (src/server/graphs.ts): the
 * answer-only retrieval graph `recallgraph` and the write graph `remember`, the very objects
 * langgraph.json names, imported in-process on a secured configuration and invoked the way the server
 * runs them: the compiled graph's `.invoke` with the run's `configurable` (the client's configuration,
 * then the authenticated user stamped on it) and `context`, a checkpointer attached when the run has a
 * thread and none when it has not.
 *
 * The caller is authenticated by the project's own auth handler (src/server/auth.ts) from a bearer
 * token, and the user it returns is normalised and stamped as @langchain/langgraph-api 1.5.1 does
 * (dist/auth/index.mjs `authenticate`, dist/utils/run-auth.mjs `applyAuthToRunConfig`, copied below
 * rather than imported: that package is the CLI's dependency, not ours). Each run is also put to the
 * auth handler's `threads:create_run` check, the server's first refusal (403), and then run on the
 * graph regardless, because the graph's own guard must hold a run that reached it by any route.
 *
 * What the store holds is read (and some namespaces are written) through a second connection to the
 * same sqlite file: the served graphs open theirs from the environment and expose no store.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { MemorySaver } from "@langchain/langgraph";
import fc from "fast-check";
import { AccessDeniedError, ValidationError } from "../../src/core/errors.js";
import type { RecallGraph } from "../../src/library/open-recallgraph.js";
import type { MemoryEntry, MemoryInput } from "../../src/memory/entry.js";
import { openSqliteStore } from "../../src/stores/sqlite/store.js";
import { openIsolationMemory } from "./support.js";
import {
  assertOwnResult,
  clearNamespaces,
  dialogueOf,
  markerOf,
  NAMESPACE_POOL,
  newInputs,
  NOW,
  question,
  callerFilter,
  readWorld,
  runs,
  RUNS,
  Seen,
  SERVED_NAMESPACE_POOL,
  SERVED_SHARED_NAMESPACES,
  sharingIndices,
  snapshotOf,
  worldSpecOver,
  type DialogueInput,
  type World,
  type WorldSpec,
} from "./world.js";

// The environment the served modules read when they are first imported: a secured server (a key for
// every identity of the pool), shared namespaces, the small hashing embedder, no model, one sqlite file.
const folder = mkdtempSync(path.join(tmpdir(), "recallgraph-served-isolation-"));
const DB_PATH = path.join(folder, "served.db");
/** Every name of NAMESPACE_POOL is an identity with a key (none has "/", "," or ":"). */
const IDENTITIES: readonly string[] = NAMESPACE_POOL;
const tokenOf = (identity: string) => `isolation-token-${IDENTITIES.indexOf(identity)}`;
for (const name of Object.keys(process.env)) if (/^(RECALLGRAPH_|OPENAI_|QDRANT_)/.test(name)) delete process.env[name];
Object.assign(process.env, {
  RECALLGRAPH_DB: DB_PATH,
  RECALLGRAPH_EMBEDDER: "hash",
  RECALLGRAPH_EMBEDDING_DIMENSIONS: "64",
  RECALLGRAPH_API_KEYS: IDENTITIES.map((identity) => `${tokenOf(identity)}:${identity}`).join(","),
  RECALLGRAPH_SHARED_NAMESPACES: SERVED_SHARED_NAMESPACES.join(","),
});
const { graph: recallgraph, remember } = await import("../../src/server/graphs.js");
const { auth } = await import("../../src/server/auth.js");

// ---- the caller, as the server hands it to a run ----

/** A run's `context` as a client sends it (JSON; the retrieval graph reads its settings from it). */
type RetrievalContext = Record<string, unknown>;
/** The options both graphs' `invoke` take (LangGraph types a context schema's fields as required; the server passes what the client sent). */
type RunOptions = NonNullable<Parameters<typeof recallgraph.invoke>[1]> & NonNullable<Parameters<typeof remember.invoke>[1]>;

/** Who calls: a key's holder, LangGraph Studio's user (no key, identity fixed by the server), or a run that reached the graph without an authenticated user. */
type Caller = { kind: "key"; identity: string } | { kind: "studio" } | { kind: "none" } | { kind: "forged"; user: unknown };

/** The user object the server stamps (langgraph-api's normalised auth response). */
interface ServerUser {
  identity: string;
  permissions: string[];
  is_authenticated: boolean;
  display_name: string;
  [key: string]: unknown;
}

/** The identity the documented rules apply to, or undefined when the run has none (always refused). */
function identityOf(caller: Caller): string | undefined {
  return caller.kind === "key" ? caller.identity : caller.kind === "studio" ? STUDIO_USER.identity : undefined;
}

/**
 * langgraph-api's Studio user (dist/auth/custom.mjs): stamped, without a key, on requests that say they
 * come from Studio when Studio auth is not disabled. This project's langgraph.json disables it, so there
 * Studio needs a key; either way the guard must hold this user to a namespace of its own name.
 */
const STUDIO_USER = { kind: "StudioUser", display_name: "langgraph-studio-user", identity: "langgraph-studio-user", permissions: [] as string[], is_authenticated: true };

/** The user the server stamps on a run: the project's `authenticate` on the bearer token, normalised as langgraph-api's `authenticate` does. */
async function serverUser(caller: Caller): Promise<ServerUser | undefined> {
  if (caller.kind === "studio") return STUDIO_USER;
  if (caller.kind !== "key") return undefined;
  const authenticate = auth["~handlerCache"].authenticate;
  assert.ok(authenticate, "the auth handler authenticates");
  const request = new Request("http://127.0.0.1:2025/threads/t/runs", { method: "POST", headers: { authorization: `Bearer ${tokenOf(caller.identity)}` } });
  const response = await authenticate(request);
  assert.ok(typeof response === "object" && typeof response.identity === "string", "authenticate returns an identity");
  assert.equal(response.identity, caller.identity, "a key stands for its identity");
  const permissions = Array.isArray(response.permissions) ? response.permissions : [];
  return { ...response, permissions, is_authenticated: response.is_authenticated ?? true, display_name: response.display_name ?? response.identity } as ServerUser;
}

/** A run's configuration as the server builds it: the client's `configurable`, the auth fields stamped over it, the thread's id when it has one. */
async function runConfig(caller: Caller, options: { thread?: string; configurable?: Record<string, unknown>; context?: RetrievalContext } = {}): Promise<RunOptions> {
  const configurable: Record<string, unknown> = { ...options.configurable, ...(options.thread ? { thread_id: options.thread } : {}) };
  const user = await serverUser(caller);
  if (user) Object.assign(configurable, { langgraph_auth_user: user, langgraph_auth_user_id: user.identity, langgraph_auth_permissions: user.permissions });
  // Not what the server passes: a run reaching the graph with a user the guard cannot read.
  if (caller.kind === "forged") configurable.langgraph_auth_user = caller.user;
  return { configurable, ...(options.context ? { context: options.context as RunOptions["context"] } : {}) };
}

/** The server's checkpointer is set on the compiled graph before each run (langgraph-api dist/graph/load.mjs `getGraph`): a saver for a thread's run, none for a thread-less one. */
const saver = new MemorySaver();
function attachCheckpointer(thread: string | undefined): void {
  recallgraph.checkpointer = thread ? saver : undefined;
  remember.checkpointer = thread ? saver : undefined;
}

/** The auth handler's refusal of a stateless run (the kind the server answers) before it starts (403), or undefined when it may start. */
async function authRefusal(caller: Caller, input: unknown): Promise<number | undefined> {
  const user = await serverUser(caller);
  assert.ok(user, "only an authenticated run reaches the handler");
  const handler = auth["~handlerCache"].callbacks?.["threads:create_run"];
  assert.ok(handler, "the auth handler checks run creation");
  try {
    await handler({ event: "threads:create_run", resource: "threads", action: "create_run", value: { thread_id: undefined, assistant_id: "a", run_id: "r", kwargs: { input, temporary: true }, metadata: {} }, permissions: [], user } as never);
    return undefined;
  } catch (error) {
    assert.ok(typeof error === "object" && error !== null && "status" in error, `the auth handler refuses with an HTTPException: ${String(error)}`);
    return Number(error.status);
  }
}

// ---- the documented rules (library/access-policy.ts), written out again as the oracle ----

const within = (namespace: string, root: string) => namespace === root || namespace.startsWith(`${root}/`);
function mayRead(identity: string | undefined, namespace: string): boolean {
  return identity !== undefined && (within(namespace, identity) || SERVED_SHARED_NAMESPACES.some((root) => within(namespace, root)));
}
function mayWrite(identity: string | undefined, namespace: string): boolean {
  return identity !== undefined && within(namespace, identity);
}
/** The identity that may write `namespace` through the server, if any (the pool's identities are no one's prefix + "/"). */
function ownerOf(namespace: string): string | undefined {
  return IDENTITIES.find((identity) => within(namespace, identity));
}

// ---- the world, written partly through the remember graph ----

/** How each namespace of a world is written: by its owner through the served remember graph (memories, or a dialogue), or through the store directly (what no caller may write). */
type Route = "library" | "remember" | "remember-dialogue";

interface ServedWorldSpec {
  spec: WorldSpec;
  routes: Route[];
  dialogues: DialogueInput[];
}

const servedWorldSpec: fc.Arbitrary<ServedWorldSpec> = worldSpecOver(SERVED_NAMESPACE_POOL, { minLength: 2, maxLength: 5 }).chain((spec) =>
  fc.record({
    spec: fc.constant(spec),
    routes: fc.tuple(...spec.namespaces.map((namespace) => (ownerOf(namespace) === undefined ? fc.constant<Route>("library") : fc.constantFrom<Route>("library", "remember", "remember-dialogue")))),
    dialogues: fc.tuple(...spec.namespaces.map((_, index) => dialogueOf(index))),
  }),
);

/** A caller: usually the owner of one of the world's namespaces, sometimes any identity, Studio's user, or no user at all. */
function callerFor(namespaces: readonly string[]): fc.Arbitrary<Caller> {
  const owners = [...new Set(namespaces.map(ownerOf).filter((owner): owner is string => owner !== undefined))];
  return fc.oneof(
    { weight: owners.length ? 6 : 0, arbitrary: fc.constantFrom(...(owners.length ? owners : ["alice"])).map((identity): Caller => ({ kind: "key", identity })) },
    { weight: 3, arbitrary: fc.constantFrom(...IDENTITIES).map((identity): Caller => ({ kind: "key", identity })) },
    { weight: 1, arbitrary: fc.constant<Caller>({ kind: "studio" }) },
    { weight: 1, arbitrary: fc.constantFrom<Caller>({ kind: "none" }, ...["alice", { id: "alice" }, { identity: ["alice"] }, { identity: null }].map((user): Caller => ({ kind: "forged", user }))) },
  );
}

/** The served pool emptied, then each namespace written by its route; the world read back, checking every write landed in its own namespace. */
async function loadServedWorld(memory: RecallGraph, { spec, routes, dialogues }: ServedWorldSpec, seen: Seen): Promise<World> {
  await clearNamespaces(memory, SERVED_NAMESPACE_POOL);
  for (const [index, namespace] of spec.namespaces.entries()) {
    const route = routes[index] ?? "library";
    const inputs = spec.inputs[index] ?? [];
    const owner = ownerOf(namespace);
    if (route === "library" || owner === undefined) {
      await memory.remember(namespace, inputs, { now: NOW.getTime() });
      continue;
    }
    attachCheckpointer(undefined);
    const config = await runConfig({ kind: "key", identity: owner });
    const input = route === "remember" ? { namespace, memories: inputs } : { namespace, dialogue: dialogues[index] };
    const output = await remember.invoke(input, config);
    assert.equal(output.namespace, namespace, `remember as ${JSON.stringify(owner)} answered for another namespace`);
    const held = await memory.get(namespace, output.written);
    assert.equal(held.length, new Set(output.written).size, `remember as ${JSON.stringify(owner)}: the ids it wrote are not all in ${JSON.stringify(namespace)}`);
    seen.add(`world written by ${route}`, 1);
  }
  return readWorld(memory, spec.namespaces, "served world");
}

/** Ids of a world as one list (repeats across namespaces kept once). */
function allIds(world: World): string[] {
  return [...new Set(world.namespaces.flatMap((namespace) => [...(world.entries.get(namespace)?.keys() ?? [])]))];
}

/** Asserts `error` is the guard's typed refusal of a namespace among `refusable`, carrying no memory. */
function assertAccessDenied(error: unknown, refusable: readonly string[], world: World, where: string): true {
  assert.ok(error instanceof AccessDeniedError, `${where}: expected AccessDeniedError, got ${String(error)}`);
  assert.equal(error.code, "access_denied");
  assert.ok(refusable.includes(String(error.context.namespace)), `${where}: refused ${JSON.stringify(error.context.namespace)}, not one of ${JSON.stringify(refusable)}`);
  const leaked = world.namespaces.filter((_, index) => error.message.includes(markerOf(index)));
  assert.deepEqual(leaked, [], `${where}: the refusal carries memories: ${error.message}`);
  return true;
}

describe("isolation: the served graphs (recallgraph and remember, as the LangGraph server runs them)", () => {
  let memory: RecallGraph;
  before(async () => {
    // The test's own connection to the served graphs' file; the first remember run opens theirs.
    memory = await openIsolationMemory((embedder) => openSqliteStore({ path: DB_PATH, embedding: embedder.spec }));
  });
  after(async () => {
    await memory?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it("recallgraph answers only from namespaces the caller may read, and refuses (typed, no data) a run naming any other", async () => {
    const seen = new Seen();
    await fc.assert(
      fc.asyncProperty(
        servedWorldSpec.chain((served) =>
          callerFor(served.spec.namespaces).chain((caller) => {
            const identity = identityOf(caller);
            const candidates = [...new Set([...served.spec.namespaces, ...(identity ? [identity] : []), ...SERVED_SHARED_NAMESPACES])];
            return fc.record({
              served: fc.constant(served),
              caller: fc.constant(caller),
              asked: fc.subarray(candidates, { minLength: 1, maxLength: Math.min(6, candidates.length) }),
              question,
              filter: callerFilter,
              preset: fc.constantFrom("full", "no-reflect", "lexical", "dense", "symbolic"),
              presetIn: fc.constantFrom("configurable", "context"),
            });
          }),
        ),
        async ({ served, caller, asked, question, filter, preset, presetIn }) => {
          const world = await loadServedWorld(memory, served, seen);
          const identity = identityOf(caller);
          const readable = asked.filter((namespace) => mayRead(identity, namespace));
          const refusable = asked.filter((namespace) => !mayRead(identity, namespace));
          // Settings as context or configurable; in the context, too, a user the client made up (the guard reads the one the server stamped).
          const impersonated = { identity: ownerOf(asked[0] ?? "") ?? "alice", permissions: [], is_authenticated: true, display_name: "x" };
          const config = await runConfig(caller, presetIn === "context" ? { context: { preset, langgraph_auth_user: impersonated } } : { configurable: { preset } });
          attachCheckpointer(undefined);

          // What the caller asked for; then, when some of it was refused, the part the caller may read; then,
          // without the filter, every namespace of the world the caller may read (so most runs see results).
          const everyReadable = world.namespaces.filter((namespace) => mayRead(identity, namespace));
          const asks: Array<{ namespaces: string[]; filtered: boolean }> = [{ namespaces: asked, filtered: true }];
          if (refusable.length && readable.length) asks.push({ namespaces: readable, filtered: true });
          if (everyReadable.length && (filter || everyReadable.length !== readable.length)) asks.push({ namespaces: everyReadable, filtered: false });
          for (const { namespaces, filtered } of asks) {
            const input = { question, namespaces, now: NOW.toISOString(), ...(filter && filtered ? { filter } : {}) };
            const refused = namespaces.filter((namespace) => !mayRead(identity, namespace));
            const where = `recallgraph as ${JSON.stringify(identity ?? caller.kind)} reading ${JSON.stringify(namespaces)} (${preset})`;
            if (identity !== undefined) assert.equal(await authRefusal(caller, input), refused.length ? 403 : undefined, `the auth handler: ${where}`);
            if (refused.length) {
              await assert.rejects(recallgraph.invoke(input, config), (error) => assertAccessDenied(error, refused, world, where));
              seen.add("refusal", 1);
              continue;
            }
            const output = await recallgraph.invoke(input, config);
            for (const result of output.results) assertOwnResult(result, world, namespaces, where);
            seen.add("result", output.results.length);
          }
        },
      ),
      runs(),
    );
    seen.assertSome("result", "refusal", "world written by remember", "world written by remember-dialogue");
  });

  it("remember writes and forgets only in a namespace its caller may write: other namespaces never change, and a foreign target is refused (typed) before anything is written", async () => {
    const seen = new Seen();
    await fc.assert(
      fc.asyncProperty(
        servedWorldSpec.chain((served) => {
          const owned = served.spec.namespaces.flatMap((namespace, index) => (ownerOf(namespace) === undefined ? [] : [index]));
          // Preferably one that shares an id with another namespace (a dialogue's namespace holds turn ids instead).
          const sharing = sharingIndices(served.spec, (index) => served.routes[index] !== "remember-dialogue").filter((index) => owned.includes(index));
          const target = fc.oneof(
            { weight: sharing.length ? 2 : 0, arbitrary: fc.constantFrom(...(sharing.length ? sharing : [0])) },
            { weight: owned.length ? 2 : 0, arbitrary: fc.constantFrom(...(owned.length ? owned : [0])) },
            { weight: owned.length ? 0 : 1, arbitrary: fc.nat({ max: served.spec.namespaces.length - 1 }) },
          );
          return target.chain((index) => {
            const namespace = served.spec.namespaces[index] ?? "";
            return fc.record({
              served: fc.constant(served),
              target: fc.constant(index),
              // Anyone who may not write the target: another identity (a prefix, a child's owner...), Studio's user, no user.
              intruder: callerFor(served.spec.namespaces).filter((caller) => !mayWrite(identityOf(caller), namespace)),
              // New memories carry the target's marker, so readWorld below sees where they landed.
              memories: newInputs(index),
              // Picks among the target's own ids (and, when sharedToo, every id it shares with another namespace) and among ids only others hold.
              ownPicks: fc.array(fc.nat(), { maxLength: 3 }),
              sharedToo: fc.oneof({ weight: 3, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
              foreignPick: fc.nat(),
            });
          });
        }),
        async ({ served, target: targetIndex, intruder, memories, ownPicks, sharedToo, foreignPick }) => {
          const world = await loadServedWorld(memory, served, seen);
          const target = world.namespaces[targetIndex] ?? "";
          const owner = ownerOf(target);
          const own = world.entries.get(target) ?? new Map<string, MemoryEntry>();
          const ownIds = [...own.keys()];
          const sharedIds = ownIds.filter((id) => world.namespaces.some((other) => other !== target && world.entries.get(other)?.has(id)));
          const foreignOnly = allIds(world).filter((id) => !own.has(id));
          const forget = [...new Set([...(ownIds.length ? ownPicks.map((pick) => ownIds[pick % ownIds.length] ?? "") : []), ...(sharedToo ? sharedIds : [])])];
          // A run must ask for something: with nothing to forget, at least one memory.
          const toWrite: MemoryInput[] = memories.length || forget.length ? memories : [{ text: `${markerOf(targetIndex)} note` }];
          const input = { namespace: target, ...(toWrite.length ? { memories: toWrite } : {}), ...(forget.length ? { forget } : {}) };
          const before = await snapshotOf(memory, world.namespaces);
          const unchanged = async (where: string) => assert.deepEqual(await snapshotOf(memory, world.namespaces), before, `${where}: a refused run changed the store`);

          // 1. Someone who may not write the target: refused by the auth handler and by the graph, nothing changes.
          const intruderIdentity = identityOf(intruder);
          let where = `remember as ${JSON.stringify(intruderIdentity ?? intruder.kind)} into ${JSON.stringify(target)} (forget ${JSON.stringify(forget)})`;
          if (intruderIdentity !== undefined) assert.equal(await authRefusal(intruder, input), 403, `the auth handler: ${where}`);
          attachCheckpointer(undefined);
          await assert.rejects(remember.invoke(input, await runConfig(intruder)), (error) => assertAccessDenied(error, [target], world, where));
          await unchanged(where);
          seen.add("refusal", 1);
          if (owner === undefined) return; // no one writes this namespace through the server

          const config = await runConfig({ kind: "key", identity: owner });
          // 2. Its owner forgetting an id only other namespaces hold, beside its own: refused whole, nothing changes.
          const foreign = foreignOnly[foreignPick % Math.max(1, foreignOnly.length)];
          if (foreign !== undefined) {
            const withForeign = { ...input, forget: [...forget, foreign] };
            where = `remember as ${JSON.stringify(owner)} into ${JSON.stringify(target)} (forget ${JSON.stringify(withForeign.forget)})`;
            assert.equal(await authRefusal({ kind: "key", identity: owner }, withForeign), undefined, `the auth handler: ${where}`);
            await assert.rejects(remember.invoke(withForeign, config), (error) => error instanceof ValidationError && error.message.includes("no memory"), where);
            await unchanged(where);
            seen.add("foreign forget refused", 1);
          }

          // 3. Its owner writing and forgetting its own (ids it shares with others included): only the target changes.
          where = `remember as ${JSON.stringify(owner)} into ${JSON.stringify(target)} (forget ${JSON.stringify(forget)})`;
          const output = await remember.invoke(input, config);
          assert.equal(output.deleted, forget.length, where);
          const afterwards = await snapshotOf(memory, world.namespaces);
          for (const namespace of world.namespaces) {
            if (namespace !== target) assert.deepEqual(afterwards.get(namespace), before.get(namespace), `${where}: ${JSON.stringify(namespace)} changed`);
          }
          const now = await readWorld(memory, world.namespaces, where);
          const expected = new Set([...ownIds.filter((id) => !forget.includes(id)), ...output.written]);
          assert.deepEqual([...(now.entries.get(target)?.keys() ?? [])].sort(), [...expected].sort(), `${where}: the target holds other than it should`);
          seen.add("write", 1);
          if (forget.some((id) => sharedIds.includes(id))) seen.add("shared-id forget", 1);
        },
      ),
      runs(),
    );
    seen.assertSome("refusal", "foreign forget refused", "write", "shared-id forget");
  });

  it("a reused thread keeps its namespaces, and the guard holds them to each new run's caller", async () => {
    const seen = new Seen();
    let threads = 0;
    await fc.assert(
      fc.asyncProperty(
        // A world where someone owns a namespace, whose thread the others then try.
        servedWorldSpec.filter((served) => served.spec.namespaces.some((namespace) => ownerOf(namespace) !== undefined)).chain((served) => {
          const owned = served.spec.namespaces.filter((namespace) => ownerOf(namespace) !== undefined);
          return fc.record({
            served: fc.constant(served),
            first: fc.constantFrom(...owned),
            second: callerFor(served.spec.namespaces),
            question,
          });
        }),
        async ({ served, first, second, question }) => {
          const world = await loadServedWorld(memory, served, seen);
          const owner: Caller = { kind: "key", identity: ownerOf(first) ?? "" };
          const identity = identityOf(second);
          const where = `a run of ${JSON.stringify(identity ?? second.kind)} on ${JSON.stringify(identityOf(owner))}'s thread over ${JSON.stringify(first)}`;
          threads += 1;
          const reading = `read-${threads}`;
          attachCheckpointer(reading);
          // One view is enough here (what is at stake is whose namespaces the thread's runs read), and cheaper with checkpoints.
          const lexical = { preset: "lexical" };
          await recallgraph.invoke({ question, namespaces: [first], now: NOW.toISOString() }, await runConfig(owner, { thread: reading, configurable: lexical }));
          // The later runs name no namespace: the thread's state still holds the first run's. Another caller, then the owner again.
          for (const caller of [second, owner]) {
            const again = recallgraph.invoke({ question, now: NOW.toISOString() }, await runConfig(caller, { thread: reading, configurable: lexical }));
            if (mayRead(identityOf(caller), first)) {
              for (const result of (await again).results) assertOwnResult(result, world, [first], where);
              seen.add("reread", 1);
            } else {
              await assert.rejects(again, (error) => assertAccessDenied(error, [first], world, where));
              seen.add("read refusal", 1);
            }
          }

          const writing = `write-${threads}`;
          attachCheckpointer(writing);
          await remember.invoke({ namespace: first, memories: [{ text: `${markerOf(world.namespaces.indexOf(first))} thread note`, id: "thread-note" }] }, await runConfig(owner, { thread: writing }));
          for (const caller of [second, owner]) {
            const before = await snapshotOf(memory, world.namespaces);
            const forgetting = remember.invoke({ forget: ["thread-note"] }, await runConfig(caller, { thread: writing }));
            if (mayWrite(identityOf(caller), first)) {
              assert.equal((await forgetting).deleted, 1, where);
              break;
            }
            await assert.rejects(forgetting, (error) => assertAccessDenied(error, [first], world, where));
            assert.deepEqual(await snapshotOf(memory, world.namespaces), before, `${where}: a refused forget changed the store`);
            seen.add("forget refusal", 1);
          }
        },
      ),
      runs(Math.ceil(RUNS / 2)),
    );
    attachCheckpointer(undefined);
    seen.assertSome("reread", "read refusal", "forget refusal");
  });

  // Not isolation (no other namespace's memory comes back), but the served graph's promise: the caller's
  // filter reaches the retrieval subgraph, and belongs to its run only.
  it("recallgraph applies the caller's filter", async () => {
    await clearNamespaces(memory, SERVED_NAMESPACE_POOL);
    attachCheckpointer(undefined);
    const config = await runConfig({ kind: "key", identity: "alice" }, { configurable: { preset: "lexical" } });
    await remember.invoke({ namespace: "alice", memories: [{ id: "paris", text: "Alice had coffee in Paris", location: "Paris" }, { id: "shanghai", text: "Alice had coffee in Shanghai", location: "Shanghai" }] }, config);
    const output = await recallgraph.invoke({ question: "where did Alice have coffee", namespaces: ["alice"], filter: { location: "Paris" } }, config);
    assert.deepEqual(output.results.map((result) => result.id), ["paris"]);
  });
});
