/**
 * An extension point is one definition in one registry: a view, a kind of embedder and a kind of store
 * added here through their registries alone, without touching the graph, the routing, the merge, the
 * configuration or the factories, take part as the registered ones do.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import { configurationFor } from "../../src/graph/configuration.js";
import { createRetrievalGraph } from "../../src/graph/graph.js";
import { VIEWS } from "../../src/graph/views.js";
import { evalStoreFor, evalStoreSchema, openEvalStore } from "../../src/eval/eval-store.js";
import { retrieve } from "../../src/library/retrieve.js";
import { openRecallGraph } from "../../src/library/open-recallgraph.js";
import { acrossNamespaces, runView } from "../../src/nodes/run-view.js";
import { defineView } from "../../src/nodes/view-definition.js";
import { newStoreRemover, openStore, readingConfig, storeConfigFromEnv, storeConfigSchema, StoreConfigSchema, storeMissing, storeWhere, type StoreConfig } from "../../src/stores/open-store.js";
import type { MemoryStore } from "../../src/stores/port.js";
import { defineStoreKind } from "../../src/stores/store-kind.js";
import { STORE_KINDS } from "../../src/stores/store-kinds.js";
import { createEmbedder, embedderConfigFromEnv, embedderConfigSchema } from "../../src/text/embedders/create-embedder.js";
import { defineEmbedder, setFields } from "../../src/text/embedders/embedder-definition.js";
import { createHashEmbedder } from "../../src/text/embedders/hashing.js";
import { embedderKindOf, embedderProfileFor } from "../../src/text/embedders/profiles.js";
import { EMBEDDERS } from "../../src/text/embedders/registry.js";

/** A toy view: the namespace's newest memories, whatever the question. */
const newestView = defineView({
  name: "newest",
  weight: z.number().min(0).max(10).default(0.5).describe("RRF weight of the newest memories"),
  fields: { newestTopK: z.number().int().min(1).max(50).default(2).describe("Newest memories listed") },
  rounds: "first",
  votesByScore: false,
  search: (dependencies, task, own) =>
    runView("newest", task, async () => {
      const { store } = await dependencies();
      return acrossNamespaces(task, ["newest"], async (namespace) => {
        const page = await store.list(namespace, { limit: own.newestTopK });
        return page.entries.map((entry, index) => ({ entry, score: 1 / (index + 1) }));
      });
    }),
});

/** A toy kind of embedder: feature hashing under its own name and model. */
const TOY_MODEL = "toy-v1";
const toyEmbedder = defineEmbedder({
  name: "toy",
  config: z.strictObject({ provider: z.literal("toy"), dimension: z.number().int().min(1).max(4096).optional() }),
  create: ({ dimension = 64 }) => ({ ...createHashEmbedder({ dimension }), spec: { model: TOY_MODEL, dimension } }),
  fromEnv: (_env, { dimensions }) => ({ provider: "toy" as const, ...setFields({ dimension: dimensions }) }),
  built: (spec) => spec.model === TOY_MODEL,
  profile: { denseWeight: 0.2, basis: "a test's toy" },
  flagsFor: () => "--embedder toy",
});

/** A store under the toy kind's name: every call goes to `inner`. */
function underToyKind(inner: MemoryStore): MemoryStore {
  return new Proxy(inner, {
    get(target, key) {
      if (key === "kind") return "toy";
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** A toy kind of store: sqlite in memory under its own kind, on a named shelf. */
const ToyStoreConfigSchema = z.strictObject({ kind: z.literal("toy"), shelf: z.string().min(1).default("main") });
const toyStoreKind = defineStoreKind({
  kind: "toy",
  config: ToyStoreConfigSchema,
  fromEnv: () => ToyStoreConfigSchema.parse({ kind: "toy" }),
  open: async (_config, embedding) => underToyKind(await openStore({ kind: "sqlite", path: ":memory:" }, embedding)),
  where: (config) => `the toy shelf ${config.shelf}`,
  temporary: z.strictObject({ kind: z.literal("toy") }),
  temporaryLabel: "toy (in memory)",
  temporaryBeside: () => ({ kind: "toy" as const }),
  openTemporary: async (_settings, embedding) => {
    const store = underToyKind(await openStore({ kind: "sqlite", path: ":memory:" }, embedding));
    return { store, discard: () => store.close() };
  },
});

const MEMORIES = [
  { id: "old", text: "The team met in Shanghai to plan the launch.", timestamp: "2026-01-05T10:00:00Z" },
  { id: "mid", text: "Dana fixed the login bug ERR_1024.", timestamp: "2026-02-05T10:00:00Z" },
  { id: "new", text: "The garden shed roof was repaired.", timestamp: "2026-03-05T10:00:00Z" },
];

describe("a view added through the registry alone", () => {
  const views = [...VIEWS, newestView] as const;

  it("gets its configuration fields and weight in the graph's schemas", () => {
    const configuration = configurationFor(views);
    const context = configuration.RetrievalContextSchema.shape;
    assert.ok("newestTopK" in context && "semanticTopK" in context);
    const resolved = configuration.resolve({ configurable: { newestTopK: 1 } });
    assert.equal(resolved.newestTopK, 1);
    assert.deepEqual(resolved.views, ["semantic", "lexical", "symbolic", "newest"]);
    assert.equal(resolved.viewWeights.newest, 0.5);
    assert.throws(() => configuration.resolve({ configurable: { newestTopK: 0 } }), /configurable\.newestTopK/);
  });

  it("is refused when its name or a field is taken", () => {
    assert.throws(() => configurationFor([...views, newestView]), /two views are named newest/);
    assert.throws(() => configurationFor([...VIEWS, { ...newestView, name: "recent", fields: { finalK: z.number().default(1) } }]), /field finalK/);
  });

  it("takes part in a retrieval and shows in the provenance of what it found", async () => {
    const memory = await openRecallGraph({ store: { kind: "sqlite", path: ":memory:" }, embedder: { provider: "hash", dimension: 64 }, model: null });
    try {
      await memory.remember("team", MEMORIES);
      const graph = createRetrievalGraph({ store: memory.store, embedder: memory.embedder }, { views });
      const request = { question: "What happened with ERR_1024?", namespace: "team", now: "2026-04-01T00:00:00Z" };
      const answer = await retrieve(graph, request, { newestTopK: 1 });
      assert.equal(answer.results[0]?.id, "mid", "the other views still decide");
      const newest = answer.results.find((result) => result.id === "new");
      assert.ok(newest?.provenance.views.includes("newest"), JSON.stringify(answer.results.map((result) => [result.id, result.provenance.views])));
      assert.ok(answer.results.every((result) => result.id === "new" || !result.provenance.views.includes("newest")), "newestTopK 1: one memory");
      assert.ok(answer.account.nodeMs.newest !== undefined, "it ran as a node of the graph");
      const without = await retrieve(graph, request, { views: ["semantic", "lexical", "symbolic"] });
      assert.ok(without.results.every((result) => !result.provenance.views.includes("newest")), "left out of `views`, it does not run");
    } finally {
      await memory.close();
    }
  });
});

describe("a kind of embedder added through the registry alone", () => {
  const kinds = [...EMBEDDERS, toyEmbedder] as const;

  it("is chosen by its name from the environment, built, and known by its profile", async () => {
    const config = embedderConfigFromEnv({ RECALLGRAPH_EMBEDDER: "toy", RECALLGRAPH_EMBEDDING_DIMENSIONS: "32" }, kinds);
    assert.deepEqual(config, { provider: "toy", dimension: 32 });
    assert.equal(embedderConfigSchema(kinds).safeParse(config).success, true);
    const embedder = createEmbedder(config, kinds);
    assert.deepEqual(embedder.spec, { model: TOY_MODEL, dimension: 32 });
    assert.equal((await embedder.embeddings.embedQuery("garden shed")).length, 32);
    assert.equal(embedderKindOf(embedder.spec, kinds), "toy");
    assert.equal(embedderProfileFor(embedder.spec, kinds).denseWeight, 0.2);
    assert.equal(embedderKindOf(embedder.spec), "unknown", "the registered kinds do not know it");
  });

  it("is refused by name where it is not registered", () => {
    assert.throws(() => embedderConfigFromEnv({ RECALLGRAPH_EMBEDDER: "toy" }), /RECALLGRAPH_EMBEDDER: must be one of use-lite, onnx, openai, hash/);
  });

  it("serves a retrieval", async () => {
    const embedder = createEmbedder(embedderConfigFromEnv({ RECALLGRAPH_EMBEDDER: "toy" }, kinds), kinds);
    const memory = await openRecallGraph({ store: { kind: "sqlite", path: ":memory:" }, embedder, model: null });
    try {
      await memory.remember("team", MEMORIES);
      const answer = await memory.retrieve({ question: "Who repaired the garden shed roof?", namespace: "team", now: "2026-04-01T00:00:00Z" });
      assert.equal(answer.results[0]?.id, "new");
      assert.ok(answer.results[0]?.provenance.views.includes("semantic"));
    } finally {
      await memory.close();
    }
  });
});

describe("a kind of store added through the registry alone", () => {
  const kinds = [...STORE_KINDS, toyStoreKind] as const;
  const embedder = createHashEmbedder({ dimension: 64 });

  it("is chosen by its name from the environment, checked, and said where it is", () => {
    const config = storeConfigFromEnv({ RECALLGRAPH_STORE: "toy" }, kinds);
    assert.deepEqual(config, { kind: "toy", shelf: "main" });
    assert.equal(storeConfigSchema(kinds).safeParse(config).success, true);
    assert.equal(storeConfigSchema(kinds).safeParse({ kind: "toy", shelf: "" }).success, false, "its own fields are checked");
    assert.equal(storeWhere(config, kinds), "the toy shelf main");
    assert.equal(storeMissing(config, kinds), false, "unset, a store is taken to be there");
    assert.deepEqual(readingConfig(config, kinds), config, "unset, it is read as configured");
    assert.deepEqual(storeConfigFromEnv({}, kinds), storeConfigFromEnv({}), "the default is still the first kind");
  });

  it("is refused by name where it is not registered", async () => {
    assert.throws(() => storeConfigFromEnv({ RECALLGRAPH_STORE: "toy" }), /RECALLGRAPH_STORE: must be one of sqlite, qdrant, got "toy"/);
    const config = storeConfigFromEnv({ RECALLGRAPH_STORE: "toy" }, kinds);
    assert.equal(StoreConfigSchema.safeParse(config).success, false);
    // As a caller without types would pass it.
    const untyped = config as unknown as StoreConfig;
    await assert.rejects(openStore(untyped, embedder.spec), /store\.kind: must be one of sqlite, qdrant, got "toy"/);
    assert.throws(() => storeWhere(untyped), /store\.kind/);
  });

  it("is opened from its configuration and serves a retrieval", async () => {
    const config = storeConfigFromEnv({ RECALLGRAPH_STORE: "toy" }, kinds);
    const remove = newStoreRemover(config, kinds);
    const store = await openStore(config, embedder.spec, kinds);
    const memory = await openRecallGraph({ store, embedder, model: null });
    try {
      assert.equal(memory.store.kind, "toy");
      await memory.remember("team", MEMORIES);
      const answer = await memory.retrieve({ question: "Who fixed ERR_1024?", namespace: "team", now: "2026-04-01T00:00:00Z" });
      assert.equal(answer.results[0]?.id, "mid");
      await remove();
      assert.equal((await memory.store.stats()).namespaces.team, 3, "it created nothing to remove, so removing left it whole");
    } finally {
      await memory.close();
    }
  });

  it("gives an evaluation a temporary store of its kind beside a configured one", async () => {
    const choice = evalStoreFor(storeConfigFromEnv({ RECALLGRAPH_STORE: "toy" }, kinds), kinds);
    assert.deepEqual(choice, { kind: "toy" });
    const settings = evalStoreSchema(kinds).parse(choice);
    const opened = await openEvalStore(settings, embedder.spec, kinds);
    try {
      assert.equal(opened.kind, "toy");
      assert.equal(opened.store.kind, "toy");
      assert.deepEqual((await opened.store.stats()).namespaces, {});
    } finally {
      await opened.discard();
    }
  });
});
