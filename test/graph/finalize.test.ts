import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { MemoryStore } from "../../src/stores/port.js";
import { teamMemory } from "../support/graph-fixture.js";
import { NOW } from "../support/team-memory.js";

const QUESTION = "Who did Alice talk to about product XYZ-100 in Shanghai last week?";

/**
 * A store that, once `recording` is set (after the memories are written), records its reads by id and
 * answers as if the entries `gone` had been deleted.
 */
function recordingGets(gone: ReadonlySet<string>) {
  const asked: string[][] = [];
  const state = { recording: false };
  const wrap = (store: MemoryStore): MemoryStore =>
    Object.assign(Object.create(store) as MemoryStore, {
      get: async (namespace: string, ids: string[]) => {
        if (!state.recording) return store.get(namespace, ids);
        asked.push([...ids]);
        return (await store.get(namespace, ids)).filter((entry) => !gone.has(entry.id));
      },
    });
  return { asked, wrap, state };
}

describe("finalize's re-check against the store", () => {
  it("reads the first finalK candidates when all of them are still there", async () => {
    const { asked, wrap, state } = recordingGets(new Set());
    const memory = await teamMemory({ wrapStore: wrap });
    state.recording = true;
    const output = await memory.retrieve({ question: QUESTION, namespace: "team", now: NOW }, { finalK: 3 });
    assert.equal(output.results.length, 3);
    assert.deepEqual(asked, [output.results.map((result) => result.id)], "one read, of exactly the results");
    await memory.close();
  });

  it("replaces a candidate deleted since the views found it with the next ones, as re-checking them all would", async () => {
    const reference = await teamMemory();
    const top = (await reference.retrieve({ question: QUESTION, namespace: "team", now: NOW }, { finalK: 3 })).results.map((result) => result.id);
    await reference.close();

    const gone = new Set([top[0] as string]);
    const { asked, wrap, state } = recordingGets(gone);
    const memory = await teamMemory({ wrapStore: wrap });
    state.recording = true;
    const output = await memory.retrieve({ question: QUESTION, namespace: "team", now: NOW }, { finalK: 3 });
    assert.equal(asked.length, 2, "the candidates after the first finalK are read once one of those is gone");
    assert.deepEqual(asked[0], top);
    // Every candidate (the first 2 x finalK of the fused ranking) re-checked, in order, the first finalK kept.
    const expected = asked.flat().filter((id) => !gone.has(id)).slice(0, 3);
    assert.deepEqual(output.results.map((result) => result.id), expected);
    assert.ok(!output.results.some((result) => gone.has(result.id)));
    await memory.close();
  });
});
