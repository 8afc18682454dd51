/**
 * Namespace isolation through the library surface (`openRecallGraph`): whatever the memories, the
 * question and the caller's filter, nothing of a namespace not asked comes back or is touched.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import { ValidationError } from "../../src/core/errors.js";
import type { RecallGraph } from "../../src/library/open-recallgraph.js";
import { RETRIEVAL_PRESETS } from "../../src/graph/presets.js";
import { openSqliteStore } from "../../src/stores/sqlite/store.js";
import { openIsolationMemory, recordingStore } from "./support.js";
import { askedOf, assertOwnEntry, assertOwnResult, callerFilter, foreignIds, loadWorld, markerOf, NOW, question, runs, Seen, worldSpec, type World } from "./world.js";

/** The presets whose runs differ in what they search: all three views with reflection, without, and each view alone. */
const PRESETS = ["full", "no-reflect", "dense", "lexical", "symbolic"] as const satisfies readonly (keyof typeof RETRIEVAL_PRESETS)[];

/**
 * A world and question that surely reach a reflection round (a second hop from "the person who budget"
 * to Chen Wei, whom both namespaces' budget memories name), so that every run of the property checks
 * a gap query's round at least once, whatever the random worlds reach.
 */
const SECOND_HOP = {
  spec: {
    namespaces: ["alice", "bob"],
    inputs: [
      [
        { id: "m1", text: `${markerOf(0)} budget meeting`, persons: ["Chen Wei"], timestamp: Date.parse("2026-05-01T09:00:00Z") },
        { id: "m2", text: `${markerOf(0)} Chen Wei Shanghai`, persons: ["Chen Wei"], timestamp: Date.parse("2026-05-02T09:00:00Z") },
      ],
      [{ id: "m1", text: `${markerOf(1)} budget meeting`, persons: ["Chen Wei"], timestamp: Date.parse("2026-05-01T09:00:00Z") }],
    ],
  },
  asked: ["alice"],
  question: "Which city does the person who budget meeting live in?",
  filter: undefined,
};

/** Everything a namespace holds, walking every page of `list`. */
async function listAll(memory: RecallGraph, namespace: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await memory.list(namespace, { limit: 1000, ...(cursor ? { cursor } : {}) });
    ids.push(...page.entries.map((entry) => entry.id));
    cursor = page.nextCursor;
  } while (cursor);
  return ids.sort();
}

/** The whole world as `list` shows it, to compare before and after a refused or partial forget. */
async function snapshot(memory: RecallGraph, world: World): Promise<Record<string, string[]>> {
  return Object.fromEntries(await Promise.all(world.namespaces.map(async (namespace) => [namespace, await listAll(memory, namespace)] as const)));
}

describe("isolation: the library surface", () => {
  let memory: RecallGraph;
  /** Namespaces the store was read in since the last reset. */
  const read = new Set<string>();
  before(async () => {
    memory = await openIsolationMemory(async (embedder) => recordingStore(await openSqliteStore({ path: ":memory:", embedding: embedder.spec }), read));
  });
  after(() => memory.close());

  it("retrieve returns only the asked namespaces' own memories, in every preset and every reflection round", async () => {
    const seen = new Seen();
    const reflected = new Seen();
    await fc.assert(
      fc.asyncProperty(
        worldSpec.chain((spec) => fc.record({ spec: fc.constant(spec), asked: askedOf(spec.namespaces), question, filter: callerFilter })),
        async ({ spec, asked, question, filter }) => {
          const world = await loadWorld(memory, spec);
          for (const preset of PRESETS) {
            read.clear();
            const output = await memory.retrieve({ question, namespace: asked, now: NOW, ...(filter ? { filter } : {}) }, { preset });
            for (const result of output.results) assertOwnResult(result, world, asked, `retrieve (${preset})`);
            assert.deepEqual([...read].filter((namespace) => !asked.includes(namespace)), [], `retrieve (${preset}) of ${JSON.stringify(asked)} read other namespaces`);
            seen.add("result", output.results.length);
            if (output.rounds > 0) reflected.add("reflection round", output.rounds);
          }
        },
      ),
      { ...runs(), examples: [[SECOND_HOP]] },
    );
    seen.assertSome("result");
    // The property is meant to cover the gap-query rounds too: some run must have reached one.
    reflected.assertSome("reflection round");
  });

  it("list returns only the namespace's own memories, with any filter and any cursor, even another namespace's", async () => {
    const seen = new Seen();
    await fc.assert(
      fc.asyncProperty(
        worldSpec.chain((spec) => fc.record({ spec: fc.constant(spec), filter: callerFilter, limit: fc.integer({ min: 1, max: 3 }) })),
        async ({ spec, filter, limit }) => {
          const world = await loadWorld(memory, spec);
          const cursors: string[] = [];
          for (const namespace of world.namespaces) {
            let cursor: string | undefined;
            do {
              const page = await memory.list(namespace, { limit, ...(filter ? { filter } : {}), ...(cursor ? { cursor } : {}) });
              for (const entry of page.entries) assertOwnEntry(entry, world, namespace, "list");
              seen.add("entry", page.entries.length);
              cursor = page.nextCursor;
              if (cursor) cursors.push(cursor);
            } while (cursor);
          }
          // A cursor is opaque but carries a position: replayed in another namespace it must still read only that one.
          for (const namespace of world.namespaces) {
            for (const cursor of cursors) {
              const page = await memory.list(namespace, { limit: 1000, cursor }).catch((error: unknown) => {
                assert.ok(error instanceof ValidationError, `a foreign cursor is either followed or refused as bad input: ${String(error)}`);
                return undefined;
              });
              for (const entry of page?.entries ?? []) assertOwnEntry(entry, world, namespace, "list with a foreign cursor");
            }
          }
        },
      ),
      runs(),
    );
    seen.assertSome("entry");
  });

  it("get with other namespaces' ids returns only the namespace's own memories of those ids", async () => {
    const seen = new Seen();
    await fc.assert(
      fc.asyncProperty(worldSpec, async (spec) => {
        const world = await loadWorld(memory, spec);
        for (const namespace of world.namespaces) {
          const ids = foreignIds(world, [namespace]);
          if (ids.length === 0) continue;
          const got = await memory.get(namespace, ids);
          const own = world.entries.get(namespace) ?? new Map();
          // Exactly the asked ids this namespace also holds (the same id may name a memory in both).
          assert.deepEqual(got.map((entry) => entry.id).sort(), [...new Set(ids.filter((id) => own.has(id)))].sort(), `get(${JSON.stringify(namespace)}, ${JSON.stringify(ids)})`);
          for (const entry of got) assertOwnEntry(entry, world, namespace, "get");
          seen.add("foreign id", ids.length);
        }
      }),
      runs(),
    );
    seen.assertSome("foreign id");
  });

  it("forget of an id only another namespace holds is refused and deletes nothing; of a shared id, deletes only the caller's", async () => {
    const seen = new Seen();
    await fc.assert(
      fc.asyncProperty(
        worldSpec.chain((spec) => fc.record({ spec: fc.constant(spec), who: fc.nat({ max: spec.namespaces.length - 1 }) })),
        async ({ spec, who }) => {
          const world = await loadWorld(memory, spec);
          const namespace = world.namespaces[who] ?? "";
          const own = world.entries.get(namespace) ?? new Map();
          const before = await snapshot(memory, world);
          const onlyForeign = foreignIds(world, [namespace]).filter((id) => !own.has(id));
          for (const id of onlyForeign) {
            // Alongside one of its own ids: the whole call is refused, so that one survives too.
            const ids = [...own.keys()].slice(0, 1).concat(id);
            await assert.rejects(memory.forget(namespace, ids), ValidationError, `forget(${JSON.stringify(namespace)}, ${JSON.stringify(ids)})`);
            seen.add("refusal", 1);
          }
          assert.deepEqual(await snapshot(memory, world), before, "a refused forget deleted something");

          const shared = [...own.keys()].filter((id) => foreignIds(world, [namespace]).includes(id));
          if (shared.length === 0) return;
          assert.equal(await memory.forget(namespace, shared), shared.length);
          const expected = { ...before, [namespace]: (before[namespace] ?? []).filter((id) => !shared.includes(id)) };
          assert.deepEqual(await snapshot(memory, world), expected, `forget(${JSON.stringify(namespace)}, ${JSON.stringify(shared)}) reached another namespace`);
          seen.add("shared forget", 1);
        },
      ),
      runs(),
    );
    seen.assertSome("refusal", "shared forget");
  });
});
