/**
 * RecallGraphStore against LangGraph's own InMemoryStore: the same random operations (put, get,
 * delete, search without a query, listNamespaces with prefix, suffix and depth, and batches of them) on
 * both, with namespace labels that BaseStore refuses among them. After each one: both refused or
 * neither, the same item (by its text) for a get, the same members for a search and a listing.
 *
 * What is compared, and what is not:
 * - Membership, not order: a search without a query lists newest first here, in insertion order there.
 * - A value whole: it comes back as it was put, on both (recallgraph leaves out again what its write
 *   filled in: empty lists, the write's own instant as the timestamp).
 * - A namespace is listed while it holds an item: InMemoryStore also keeps (and even creates, on a
 *   delete) namespaces with none, so its listing is taken from the namespaces of its items.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { InMemoryStore, type Item, type Operation } from "@langchain/langgraph";
import fc from "fast-check";
import { RecallGraphStore } from "../../src/integrations/langgraph-store.js";
import { openRecallGraph } from "../../src/library/open-recallgraph.js";

const LABELS = ["a", "b", "team", "v1", "a.b", "x:y", "", "n\u0000l"] as const;
const KEYS = ["k1", "k2", "k3"] as const;
const VALUES = [
  { text: "Alice keeps the kettle in the garage." },
  { text: "Bob rides a green bike.", persons: ["Bob"] },
  { text: "Carol met Dave in Oslo.", persons: ["Carol", "Dave"], entities: ["Oslo"], location: "Oslo", timestamp: "2026-03-02T08:00:00.000Z" },
] as const;

type Op =
  | { kind: "put"; namespace: string[]; key: string; value: (typeof VALUES)[number] }
  | { kind: "delete"; namespace: string[]; key: string }
  | { kind: "get"; namespace: string[]; key: string }
  | { kind: "search"; prefix: string[] }
  | { kind: "list"; prefix?: string[]; suffix?: string[]; maxDepth?: number }
  | { kind: "batch"; ops: Array<Extract<Op, { kind: "put" | "delete" | "get" }>> };

const namespace = fc.array(fc.constantFrom(...LABELS), { minLength: 1, maxLength: 3 });
const key = fc.constantFrom(...KEYS);
const keyed = fc.oneof(
  fc.record({ kind: fc.constant("put" as const), namespace, key, value: fc.constantFrom(...VALUES) }),
  fc.record({ kind: fc.constant("delete" as const), namespace, key }),
  fc.record({ kind: fc.constant("get" as const), namespace, key }),
);
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: keyed },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("search" as const), prefix: fc.array(fc.constantFrom(...LABELS), { maxLength: 2 }) }) },
  {
    weight: 2,
    arbitrary: fc.record(
      { kind: fc.constant("list" as const), prefix: fc.array(fc.constantFrom("a", "b", "*"), { minLength: 1, maxLength: 2 }), suffix: fc.array(fc.constantFrom("a", "b", "v1"), { minLength: 1, maxLength: 1 }), maxDepth: fc.integer({ min: 1, max: 3 }) },
      { requiredKeys: ["kind"] },
    ),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("batch" as const), ops: fc.array(keyed, { minLength: 1, maxLength: 4 }) }) },
);

const itemKey = (item: Pick<Item, "namespace" | "key">) => `${JSON.stringify(item.namespace)} ${item.key}`;
/** An item's value, as compared: its JSON with keys in order. */
const textOf = (item: Item | null | undefined) => (item ? JSON.stringify(Object.fromEntries(Object.entries(item.value).sort(([a], [b]) => a.localeCompare(b)))) : null);

function asOperation(step: Extract<Op, { kind: "put" | "delete" | "get" }>): Operation {
  if (step.kind === "get") return { namespace: step.namespace, key: step.key };
  return { namespace: step.namespace, key: step.key, value: step.kind === "put" ? structuredClone(step.value) : null };
}

/** What one step did on one store: refused, or what it returned in comparable form. */
async function outcome(store: InMemoryStore | RecallGraphStore, step: Op, reference: InMemoryStore): Promise<unknown> {
  try {
    switch (step.kind) {
      case "put":
        return await store.put(step.namespace, step.key, structuredClone(step.value));
      case "delete":
        return await store.delete(step.namespace, step.key);
      case "get":
        return textOf(await store.get(step.namespace, step.key));
      case "search":
        return (await store.search(step.prefix, { limit: 1000 })).map((item) => `${itemKey(item)} ${textOf(item)}`).sort();
      case "list": {
        const options = { limit: 1000, ...(step.prefix ? { prefix: step.prefix } : {}), ...(step.suffix ? { suffix: step.suffix } : {}), ...(step.maxDepth ? { maxDepth: step.maxDepth } : {}) };
        if (store !== reference) return (await store.listNamespaces(options)).map((tuple) => JSON.stringify(tuple)).sort();
        // InMemoryStore lists namespaces without items too: list those of its items, as it would.
        const held = new InMemoryStore();
        for (const item of await reference.search([], { limit: 10_000 })) await held.put(item.namespace, item.key, item.value);
        return (await held.listNamespaces(options)).map((tuple) => JSON.stringify(tuple)).sort();
      }
      case "batch": {
        const results: unknown[] = await (store as { batch(operations: Operation[]): Promise<unknown[]> }).batch(step.ops.map(asOperation));
        return results.map((result) => (result && typeof result === "object" && "value" in result ? textOf(result as Item) : (result ?? null)));
      }
    }
  } catch {
    return "refused";
  }
}

describe("RecallGraphStore beside InMemoryStore", () => {
  it("refuses the same operations and holds the same items, after any sequence of them", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 12 }), async (steps) => {
        const memory = await openRecallGraph({ store: { kind: "sqlite", path: ":memory:" }, embedder: { provider: "hash", dimension: 32 }, model: null });
        try {
          const ours = new RecallGraphStore(memory);
          const theirs = new InMemoryStore();
          for (const [index, step] of steps.entries()) {
            const expected = await outcome(theirs, step, theirs);
            const actual = await outcome(ours, step, theirs);
            assert.deepEqual(actual, expected, `step ${index}: ${JSON.stringify(step)}`);
          }
          const everything = async (store: InMemoryStore | RecallGraphStore) => (await store.search([], { limit: 10_000 })).map((item) => `${itemKey(item)} ${textOf(item)}`).sort();
          assert.deepEqual(await everything(ours), await everything(theirs), "the same items in the end");
        } finally {
          await memory.close();
        }
      }),
      { numRuns: 60 },
    );
  });

  it("reaches every namespace the library accepts, dots and colons included", async () => {
    const memory = await openRecallGraph({ store: { kind: "sqlite", path: ":memory:" }, embedder: { provider: "hash", dimension: 32 }, model: null });
    const store = new RecallGraphStore(memory);
    for (const name of ["alice@example.com", "team/v1.2", "ops:eu", "100%", "odd%2Ename", "odd%00", "a//b", "trailing/"]) await memory.remember(name, [{ id: "m", text: `A memory of ${name}.` }]);
    for (const tuple of await store.listNamespaces({ limit: 100 })) {
      const item = await store.get(tuple, "m");
      assert.ok(item, `get(${JSON.stringify(tuple)})`);
      assert.deepEqual((await store.search(tuple, { limit: 10 })).map((found) => found.key), ["m"]);
      await store.delete(tuple, "m");
      assert.equal(await store.get(tuple, "m"), null);
    }
    assert.deepEqual((await memory.store.stats()).namespaces, {}, "every one was reached and emptied");
    await memory.close();
  });

  it("checks a whole batch before it writes any of it, and reads the store as it was before the batch", async () => {
    const memory = await openRecallGraph({ store: { kind: "sqlite", path: ":memory:" }, embedder: { provider: "hash", dimension: 32 }, model: null });
    const store = new RecallGraphStore(memory);
    await assert.rejects(store.batch([{ namespace: ["a"], key: "k1", value: { text: "first" } }, { namespace: ["a.b"], key: "k2", value: { text: "refused" } }]), /operations\.1\.namespace\.0/);
    assert.equal(await store.get(["a"], "k1"), null, "the first put was not written");
    const [read] = await store.batch([{ namespace: ["a"], key: "k1" }, { namespace: ["a"], key: "k1", value: { text: "now" } }]);
    assert.equal(read, null, "a read sees the store as it was before the batch");
    assert.deepEqual((await store.get(["a"], "k1"))?.value, { text: "now" });
    const many = Array.from({ length: 1_050 }, (_, i) => ({ namespace: ["bulk"], key: `k${i}`, value: { text: `Memory ${i}.` } }));
    await store.batch(many);
    assert.equal((await store.search(["bulk"], { limit: 20, offset: 1_040 })).length, 10, "a search without a query reaches past the first 1,000");
    await memory.close();
  });
});
