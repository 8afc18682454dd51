/**
 * A namespace named like an Object.prototype key must be counted like any other: assigned into a plain
 * object, `namespaces["__proto__"]` sets nothing and the namespace disappears, and the surfaces that
 * find namespaces through stats (RecallGraphStore's search and listNamespaces) would never see it.
 */
import assert from "node:assert/strict";
import { it } from "node:test";
import fc from "fast-check";
import { openIsolationMemory } from "./support.js";
import { loadWorld, runs, worldSpec } from "./world.js";

it("stats() counts every namespace written, prototype keys included (sqlite)", async () => {
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
