/**
 * Namespace isolation through the LangChain and LangGraph surfaces: the agent tools (which show only
 * text, so each namespace's marker word stands in for its memories), the retriever and the BaseStore.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import { RecallGraphStore, tupleOfNamespace } from "../../src/integrations/langgraph-store.js";
import { createMemoryTools } from "../../src/integrations/memory-tools.js";
import { RecallGraphRetriever } from "../../src/integrations/retriever.js";
import type { RecallGraph } from "../../src/library/open-recallgraph.js";
import { openIsolationMemory } from "./support.js";
import { askedOf, assertNoForeignText, assertOwnResult, callerFilter, foreignIds, loadWorld, NOW, question, runs, Seen, worldSpec } from "./world.js";

/** A tool by name from createMemoryTools' list. */
function toolNamed(tools: ReturnType<typeof createMemoryTools>, name: string) {
  const found = tools.find((candidate) => candidate.name === name);
  assert.ok(found, `no tool ${name}`);
  return found;
}

describe("isolation: LangChain tools, retriever and the LangGraph store", () => {
  let memory: RecallGraph;
  before(async () => {
    memory = await openIsolationMemory();
  });
  after(() => memory.close());

  it("recall_memories and list_memories never show another namespace's text; forget_memories of its id is refused", async () => {
    const seen = new Seen();
    await fc.assert(
      fc.asyncProperty(
        worldSpec.chain((spec) =>
          fc.record({ spec: fc.constant(spec), who: fc.nat({ max: spec.namespaces.length - 1 }), question, filter: callerFilter, preset: fc.constantFrom("full", "lexical", "dense") }),
        ),
        async ({ spec, who, question, filter, preset }) => {
          const world = await loadWorld(memory, spec);
          const namespace = world.namespaces[who] ?? "";
          const tools = createMemoryTools({ memory, namespace, now: () => NOW, configurable: { preset } });
          const recalled = String(await toolNamed(tools, "recall_memories").invoke({ question, ...(filter ? { filter } : {}) }));
          assertNoForeignText(recalled, world, [namespace], "recall_memories");
          const listed = String(await toolNamed(tools, "list_memories").invoke({ limit: 100, ...(filter ? { filter } : {}) }));
          assertNoForeignText(listed, world, [namespace], "list_memories");
          seen.add("line", (recalled + "\n" + listed).split("\n").filter((line) => line.startsWith("- [")).length);

          const own = world.entries.get(namespace) ?? new Map();
          const onlyForeign = foreignIds(world, [namespace]).filter((id) => !own.has(id));
          const victim = onlyForeign[0];
          if (victim === undefined) return;
          const owner = world.namespaces.find((other) => world.entries.get(other)?.has(victim)) ?? "";
          await assert.rejects(toolNamed(tools, "forget_memories").invoke({ ids: [victim] }), /no memory/);
          assert.equal((await memory.get(owner, [victim])).length, 1, `forget_memories of ${JSON.stringify(namespace)} deleted ${JSON.stringify(victim)} of ${JSON.stringify(owner)}`);
          seen.add("refusal", 1);
        },
      ),
      runs(),
    );
    seen.assertSome("line", "refusal");
  });

  it("RecallGraphRetriever bound to some namespaces returns documents of those alone", async () => {
    const seen = new Seen();
    await fc.assert(
      fc.asyncProperty(
        worldSpec.chain((spec) => fc.record({ spec: fc.constant(spec), asked: askedOf(spec.namespaces), question, preset: fc.constantFrom("full", "no-reflect", "symbolic") })),
        async ({ spec, asked, question, preset }) => {
          const world = await loadWorld(memory, spec);
          const retriever = new RecallGraphRetriever({ graph: memory.graph, namespace: asked, now: () => NOW, configurable: { preset } });
          const documents = await retriever.invoke(question);
          for (const document of documents) {
            const { id, namespace } = document.metadata as { id: string; namespace: string };
            assertOwnResult({ id, namespace, text: document.pageContent }, world, asked, "RecallGraphRetriever");
            assertNoForeignText(document.pageContent, world, asked, "RecallGraphRetriever");
          }
          seen.add("document", documents.length);
        },
      ),
      runs(),
    );
    seen.assertSome("document");
  });

  it("RecallGraphStore search, get and delete under one namespace stay inside it", async () => {
    const seen = new Seen();
    await fc.assert(
      fc.asyncProperty(
        worldSpec.chain((spec) => fc.record({ spec: fc.constant(spec), who: fc.nat({ max: spec.namespaces.length - 1 }), question, filter: callerFilter })),
        async ({ spec, who, question, filter }) => {
          const world = await loadWorld(memory, spec);
          const namespace = world.namespaces[who] ?? "";
          const store = new RecallGraphStore(memory, { now: () => NOW });
          const tuple = tupleOfNamespace(namespace);
          const searched = await store.search(tuple, { query: question, limit: 20, ...(filter ? { filter } : {}) });
          const listed = await store.search(tuple, { limit: 100, ...(filter ? { filter } : {}) });
          for (const item of [...searched, ...listed]) {
            assert.deepEqual(item.namespace, tuple, `search(${JSON.stringify(tuple)}) returned an item of ${JSON.stringify(item.namespace)}`);
            assertOwnResult({ id: item.key, namespace, text: String(item.value.text) }, world, [namespace], "RecallGraphStore.search");
          }
          seen.add("item", searched.length + listed.length);

          const own = world.entries.get(namespace) ?? new Map();
          for (const key of foreignIds(world, [namespace])) {
            const item = await store.get(tuple, key);
            if (!own.has(key)) assert.equal(item, null, `get([${JSON.stringify(namespace)}], ${JSON.stringify(key)}) read another namespace's memory`);
            else assert.equal(item?.value.text, own.get(key)?.text);
          }
          // Deleting a key only another namespace holds is a no-op here (BaseStore's delete is idempotent), never a deletion there.
          const before = await Promise.all(world.namespaces.map((other) => memory.list(other, { limit: 1000 })));
          for (const key of foreignIds(world, [namespace]).filter((id) => !own.has(id))) await store.delete(tuple, key);
          const afterwards = await Promise.all(world.namespaces.map((other) => memory.list(other, { limit: 1000 })));
          assert.deepEqual(afterwards, before, `delete under ${JSON.stringify(namespace)} removed another namespace's memory`);
        },
      ),
      runs(),
    );
    seen.assertSome("item");
  });
});
