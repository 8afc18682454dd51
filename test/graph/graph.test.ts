import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { MemorySaver } from "@langchain/langgraph";
import { createRetrievalGraph } from "../../src/graph/graph.js";
import { outputOf, type RetrievalOutput } from "../../src/library/retrieve.js";
import type { RetrievalStateValue } from "../../src/graph/state.js";
import type { MemoryFilter, MemoryStore, SearchOptions } from "../../src/stores/port.js";
import { ingestFile } from "../../src/ingest/ingest-file.js";
import { openRecallGraph, type RecallGraph } from "../../src/library/open-recallgraph.js";
import { chatMemory, teamMemory } from "../support/graph-fixture.js";
import { filterOf } from "../../src/nodes/symbolic.js";
import { makePlan } from "../../src/planning/plan.js";
import { NOW } from "../support/team-memory.js";

const QUESTION = "Who did Alice talk to about product XYZ-100 in Shanghai last week?";

describe("retrieval graph with the rule-based planner (no model)", () => {
  let memory: RecallGraph;
  before(async () => {
    memory = await teamMemory();
  });
  after(() => memory.close());

  it("plans names, places, codes and a calendar-exact week, and puts the meeting first", async () => {
    const output = await memory.retrieve({ question: QUESTION, namespace: "team", now: NOW });
    assert.equal(output.plan?.planner, "rules");
    assert.deepEqual(output.plan?.persons, ["Alice"]);
    assert.deepEqual(output.plan?.entities, ["XYZ-100"]);
    assert.deepEqual(output.plan?.locations, ["Shanghai"]);
    assert.deepEqual(output.plan?.timeWindow, {
      startMs: Date.parse("2026-11-09T00:00:00Z"),
      endMs: Date.parse("2026-11-16T00:00:00Z"),
    });
    assert.equal(output.results[0]?.id, "shanghai-meeting");
    assert.deepEqual(output.results[0]?.provenance.views.sort(), ["lexical", "semantic", "symbolic"]);
    assert.equal(output.account.llmCalls, 0);
  });

  it("never returns another namespace's memories", async () => {
    const team = await memory.retrieve({ question: QUESTION, namespace: "team", now: NOW });
    assert.ok(team.results.every((result) => result.namespace === "team"));
    assert.ok(!team.results.some((result) => result.text.includes("rival")));
    const rivals = await memory.retrieve({ question: "What did Dave fix?", namespace: "rivals", now: NOW });
    assert.deepEqual(
      rivals.results.map((result) => [result.namespace, result.id]),
      [["rivals", "shanghai-meeting"]],
    );
  });

  it("finds an exact error code without confusing it with a similar one", async () => {
    const output = await memory.retrieve({ question: "What happened with ERR_1024?", namespace: "team", now: NOW });
    assert.equal(output.results[0]?.id, "err-1024");
    const rankOf = (id: string) => output.results.findIndex((result) => result.id === id);
    assert.ok(rankOf("err-2048") === -1 || rankOf("err-2048") > rankOf("err-1024"));
  });

  it("gives a list filtered by entities alone no vote beside the lexical view, and a person's list its weight", async () => {
    const scores = async (question: string, views?: ("semantic" | "lexical" | "symbolic")[]) => {
      const output = await memory.retrieve({ question, namespace: "team", now: NOW }, { reflection: false, ...(views ? { views } : {}) });
      return { output, fused: new Map(output.results.map((result) => [result.id, result.provenance.fusedScore])) };
    };
    const entityQuestion = "What happened with XYZ-100?";
    const entityOnly = await scores(entityQuestion);
    assert.deepEqual([entityOnly.output.plan?.entities, entityOnly.output.plan?.persons, entityOnly.output.plan?.locations], [["XYZ-100"], [], []]);
    assert.ok(entityOnly.output.results.some((result) => result.provenance.views.includes("symbolic")));
    assert.deepEqual(entityOnly.fused, (await scores(entityQuestion, ["semantic", "lexical"])).fused);

    const personQuestion = "What did Alice say about XYZ-100?";
    const withPerson = await scores(personQuestion);
    assert.deepEqual(withPerson.output.plan?.persons, ["Alice"]);
    assert.notDeepEqual(withPerson.fused, (await scores(personQuestion, ["semantic", "lexical"])).fused);
  });

  it("searches a filter's matches by the question's other words, not by the names or the relative time every match meets", async () => {
    const asked: { query: string; filter?: MemoryFilter }[] = [];
    const wrap = (store: MemoryStore): MemoryStore =>
      Object.assign(Object.create(store) as MemoryStore, {
        lexicalSearch: (namespace: string, query: string, options: SearchOptions) => {
          asked.push({ query, ...(options.filter ? { filter: options.filter } : {}) });
          return store.lexicalSearch(namespace, query, options);
        },
      });
    const spied = await teamMemory({ wrapStore: wrap });
    try {
      await spied.retrieve({ question: QUESTION, namespace: "team", now: NOW }, { reflection: false });
      const withinConditions = asked.filter(({ filter }) => filter?.persons?.includes("Alice"));
      assert.ok(withinConditions.length > 0, "the symbolic view searched Alice's memories by words");
      for (const { query } of withinConditions) {
        assert.doesNotMatch(query, /alice|xyz-100|shanghai|last week/i);
        assert.match(query, /talk/);
      }
      assert.ok(asked.some(({ query, filter }) => !filter && query.includes("Alice")), "the lexical view's own search keeps the names");
    } finally {
      await spied.close();
    }
  });

  it("answers a Chinese question from a Chinese memory", async () => {
    const output = await memory.retrieve({ question: "报销标准是多少？", namespace: "team", now: NOW });
    assert.equal(output.results[0]?.id, "expense-policy");
  });

  it("resolves a Chinese time expression to the calendar week and filters by it", async () => {
    const output = await memory.retrieve({ question: "上周在上海开会的差旅怎么报销？", namespace: "team", now: NOW });
    assert.equal(output.plan?.timeExpression, "上周");
    assert.deepEqual(output.plan?.timeWindow, {
      startMs: Date.parse("2026-11-09T00:00:00Z"),
      endMs: Date.parse("2026-11-16T00:00:00Z"),
    });
    assert.deepEqual(output.plan?.locations, ["上海"]);
    assert.equal(output.results[0]?.id, "expense-policy");
    assert.ok(output.results[0]?.provenance.views.includes("symbolic"));
  });

  it("resolves windows in the configured time zone", async () => {
    const output = await memory.retrieve(
      { question: "What did Alice do last week?", namespace: "team", now: NOW },
      { timeZone: "Asia/Shanghai", reflection: false },
    );
    assert.deepEqual(output.plan?.timeWindow, {
      startMs: Date.parse("2026-11-08T16:00:00Z"),
      endMs: Date.parse("2026-11-15T16:00:00Z"),
    });
  });

  it("streams every node in the diagram's order", async () => {
    const seen: string[] = [];
    const stream = await memory.graph.stream(
      { question: QUESTION, namespaces: ["team"], now: NOW },
      { streamMode: "updates", configurable: { reflection: false } },
    );
    for await (const update of stream) seen.push(...Object.keys(update));
    assert.equal(seen[0], "plan");
    assert.deepEqual(seen.slice(1, 4).sort(), ["lexical", "semantic", "symbolic"]);
    assert.deepEqual(seen.slice(4), ["merge", "reflect", "finalize"]);
  });

  it("starts every run afresh on a reused thread", async () => {
    const compiled = createRetrievalGraph(
      { store: memory.store, embedder: memory.embedder },
      { checkpointer: new MemorySaver() },
    );
    const thread = { configurable: { thread_id: "t" } };
    await compiled.invoke({ question: QUESTION, namespaces: ["team"], now: NOW }, thread);
    const answer = await compiled.invoke({ question: "What happened with ERR_1024?", namespaces: ["team"], now: NOW }, thread);
    const second = (await compiled.getState(thread)).values as RetrievalStateValue;
    assert.ok(second.viewHits.length > 0);
    assert.ok(second.viewHits.every((list) => !list.query.includes("Shanghai")), "no list from the first run survives");
    assert.equal(outputOf(answer).results[0]?.id, "err-1024");
    assert.equal(second.referenceTime, NOW, "the run reads the reference time it was given");

    const before = Date.now();
    await compiled.invoke({ question: "What happened with ERR_1024?", namespaces: ["team"] }, thread);
    const third = (await compiled.getState(thread)).values as RetrievalStateValue;
    assert.ok(Date.parse(third.referenceTime ?? "") >= before, "a run given no reference time reads the clock, not the previous run's");
  });

  it("answers with the results and how they were found, not its working state", async () => {
    const answer = await memory.graph.invoke({ question: "What happened with ERR_1024?", namespaces: ["team"], now: NOW });
    assert.deepEqual(Object.keys(answer).sort(), ["account", "coverage", "degraded", "queryPlan", "referenceTime", "results"]);
    assert.equal(answer.results[0]?.id, "err-1024");
    assert.ok((answer.account?.nodeMs.finalize ?? 0) > 0, "the account includes the last node");
  });

  it("reads configuration given as context the same as in configurable", async () => {
    const input = { question: "What happened with ERR_1024?", namespaces: ["team"], now: NOW };
    // LangGraph types `context` as the whole schema with every key present; a run may give any of them.
    const byContext = await memory.graph.invoke(input, { context: { finalK: 2 } as never });
    const byConfigurable = await memory.graph.invoke(input, { configurable: { finalK: 2 } });
    assert.equal(byContext.results.length, 2);
    assert.deepEqual(byContext.results.map((r) => r.id), byConfigurable.results.map((r) => r.id));
  });

  it("names the field of bad input in one line", async () => {
    await assert.rejects(
      memory.graph.invoke({ question: "anything" } as never),
      (error: Error) => error.name === "ValidationError" && /^input\.namespaces: /.test(error.message) && !error.message.includes("\n"),
    );
    await assert.rejects(
      memory.graph.invoke({ question: 42, namespaces: ["team"] } as never),
      (error: Error) => error.name === "ValidationError" && /^input\.question: /.test(error.message),
    );
  });

  it("with union fusion keeps the first-seen order of the views", async () => {
    const output = await memory.retrieve(
      { question: QUESTION, namespace: "team", now: NOW },
      { preset: "union", reflection: false },
    );
    const scores = output.results.map((result) => result.score);
    assert.deepEqual(scores, [...scores].sort((a, b) => b - a));
    assert.equal(output.results[0]?.provenance.ranks[0]?.view, "semantic");
  });

  it("rejects bad input with a typed error naming the field", async () => {
    await assert.rejects(
      memory.retrieve({ question: "   ", namespace: "team" }),
      (error: Error & { field?: string }) => error.name === "ValidationError" && /question/.test(error.field ?? ""),
    );
    await assert.rejects(
      memory.retrieve({ question: "hello", namespace: "" }),
      (error: Error) => error.name === "ValidationError" && /namespace/.test(error.message),
    );
  });
});

describe("a question about someone it describes, over the shipped sample memory", () => {
  const samplePath = fileURLToPath(new URL("../../samples/demo-memory.jsonl", import.meta.url));
  const question = "Which city does the engineer who fixed ERR_1024 live in?";
  let memory: RecallGraph;
  before(async () => {
    memory = await openRecallGraph({ store: { kind: "sqlite", path: ":memory:" }, embedder: { provider: "hash", dimension: 256 }, model: null });
    await ingestFile(samplePath, { store: memory.store, embedder: memory.embedder, namespace: "demo" });
  });
  after(() => memory.close());

  it("finds who in the first round, then asks about them by name", async () => {
    const now = "2026-03-16T09:00:00Z";
    const rankOf = (output: RetrievalOutput, id: string) => output.results.findIndex((result) => result.id === id);
    const full = await memory.retrieve({ question, namespace: "demo", now });
    assert.ok(full.coverage?.missing.includes("Bob Müller (second hop)"), JSON.stringify(full.coverage));
    const home = full.results.find((result) => result.id === "demo-02");
    assert.ok(home, "Bob Müller lives in Berlin: demo-02 is returned");
    assert.ok(home.provenance.ranks.some((rank) => rank.round > 0 && rank.query.startsWith("Bob Müller")), "found again by the second hop");
    assert.ok(rankOf(full, "demo-02") < 3, `demo-02 at ${rankOf(full, "demo-02") + 1}`);
    assert.ok(rankOf(full, "demo-10") < 3, "the memory that says who fixed it stays on top");

    const firstRoundOnly = await memory.retrieve({ question, namespace: "demo", now }, { preset: "no-reflect" });
    assert.ok(rankOf(firstRoundOnly, "demo-02") > rankOf(full, "demo-02"), "without reflection it ranks lower");
  });
});

describe("a question about one speaker of a conversation", () => {
  const question = "What did Mia make in the pottery class?";
  const now = "2026-03-20T00:00:00Z";
  let memory: RecallGraph;
  before(async () => {
    const at = (minute: number) => `2026-03-14T10:0${minute}:00Z`;
    // Theo's questions repeat the words of the question; Mia's answer has few of them.
    memory = await chatMemory([
      { id: "theo-asks", text: "Theo said: Mia, how did the pottery class go? Did you make anything?", speaker: "Theo", persons: ["Mia"], timestamp: at(1) },
      { id: "mia-answers", text: "Mia said: I made a little blue bowl, my very first one!", speaker: "Mia", keywords: ["pottery"], timestamp: at(2) },
      { id: "theo-replies", text: "Theo said: A bowl from the pottery class, Mia? I want to make one in that class too.", speaker: "Theo", persons: ["Mia"], timestamp: at(3) },
      { id: "mia-saturdays", text: "Mia said: Sign up, it is on Saturdays.", speaker: "Mia", timestamp: at(4) },
      { id: "theo-fence", text: "Theo said: I will. My week was busy, I fixed the garden fence.", speaker: "Theo", timestamp: at(5) },
      // Two more turns, so "pottery" is in fewer than half of them: a BM25 hit of a word in more casts no vote.
      { id: "mia-film", text: "Mia said: We watched a film about whales last night.", speaker: "Mia", timestamp: at(6) },
      { id: "theo-rain", text: "Theo said: It rained all week here.", speaker: "Theo", timestamp: at(7) },
    ]);
  });
  after(() => memory.close());

  it("asks again among their own words, and puts their answer above the other speaker's questions", async () => {
    const full = await memory.retrieve({ question, namespace: "chat", now });
    assert.ok(full.coverage?.missing.includes("Mia (own words)"), JSON.stringify(full.coverage));
    assert.equal(full.results[0]?.id, "mia-answers");
    assert.equal(full.results[0]?.speaker, "Mia");
    const ownRound = full.results[0]?.provenance.ranks.filter((rank) => rank.round === 1) ?? [];
    assert.ok(ownRound.length > 0 && ownRound.every((rank) => rank.query === question), "found again by the question, asked among Mia's words");
    const foundInOwnRound = full.results.filter((result) => result.provenance.ranks.some((rank) => rank.round === 1));
    assert.ok(foundInOwnRound.every((result) => result.speaker === "Mia"), `only Mia's entries answer that round: ${foundInOwnRound.map((r) => r.id).join(", ")}`);

    const firstRoundOnly = await memory.retrieve({ question, namespace: "chat", now }, { preset: "no-reflect" });
    const rankOf = (output: RetrievalOutput) => output.results.findIndex((result) => result.id === "mia-answers");
    assert.ok(rankOf(firstRoundOnly) > 0, `without reflection Theo's words rank first: ${firstRoundOnly.results.map((r) => r.id).join(", ")}`);
  });
});

describe("a question about a day of a conversation", () => {
  it("reaches a day past a window that has ended, never past the reference time", () => {
    const day = 86_400_000;
    const ref = Date.parse("2022-11-20T00:00:00Z");
    const plan = (endMs: number) => makePlan({ requiredInfo: [], subQueries: ["q"], keywords: [], persons: [], entities: [], locations: [], planner: "rules" }, { expression: "that day", granularity: "day", startMs: endMs - day, endMs });
    assert.equal(filterOf(plan(ref - 3 * day), ref).timeRange?.endMs, ref - 2 * day);
    assert.equal(filterOf(plan(ref - day / 2), ref).timeRange?.endMs, ref);
    // "since March" ends at the reference time: nothing is told after it.
    assert.equal(filterOf(plan(ref), ref).timeRange?.endMs, ref);
  });

  it("counts what was said the next day among that day's memories, and nothing later", async () => {
    const memory = await chatMemory([
      { id: "that-day", text: "Nate said: Bye Joanna, see you soon!", speaker: "Nate", timestamp: "2022-11-09T20:00:00Z" },
      { id: "next-day", text: "Nate said: Yesterday I made coconut ice cream for the party.", speaker: "Nate", timestamp: "2022-11-10T09:00:00Z" },
      { id: "days-later", text: "Nate said: I made pasta with my friends.", speaker: "Nate", timestamp: "2022-11-12T09:00:00Z" },
    ]);
    try {
      const output = await memory.retrieve({ question: "What did Nate make on 9 November 2022?", namespace: "chat", now: "2022-11-20T00:00:00Z" }, { reflection: false });
      // The plan's window is the day as asked; only the symbolic view's filter reaches into the next day.
      assert.deepEqual(output.plan?.timeWindow, { startMs: Date.parse("2022-11-09T00:00:00Z"), endMs: Date.parse("2022-11-10T00:00:00Z") });
      const bySymbolic = output.results.filter((result) => result.provenance.views.includes("symbolic")).map((result) => result.id);
      assert.deepEqual(bySymbolic.sort(), ["next-day", "that-day"]);
    } finally {
      await memory.close();
    }
  });
});
