/**
 * A namespace named like an Object.prototype key must be counted like any other. Both adapters build
 * `stats().namespaces` as a plain object, so assigning `namespaces["__proto__"]` sets nothing and the
 * namespace disappears: `RecallGraphStore.search`/`listNamespaces` (which find namespaces through
 * stats) then never see it. Not a leak across namespaces, but a namespace that surfaces lose. Marked
 * todo so it reports without failing the suite until the adapters are fixed (Object.create(null) or
 * Object.fromEntries); drop the todo then.
 */
import assert from "node:assert/strict";
import { it } from "node:test";
import fc from "fast-check";
import { openIsolationMemory } from "./support.js";
import { loadWorld, runs, worldSpec } from "./world.js";

it("stats() counts every namespace written, prototype keys included (sqlite)", { todo: "stats() drops a namespace named __proto__" }, async () => {
  const memory = await openIsolationMemory();
  try {
    await fc.assert(
      fc.asyncProperty(worldSpec, async (spec) => {
        const world = await loadWorld(memory, spec);
        const counted = (await memory.store.stats()).namespaces;
        const expected = world.namespaces.map((namespace) => [namespace, world.entries.get(namespace)?.size ?? 0] as const).sort();
        assert.deepEqual(Object.entries(counted).sort(), expected);
      }),
      runs(),
    );
  } finally {
    await memory.close();
  }
});
