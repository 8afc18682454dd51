import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { resolveConfiguration } from "../../src/graph/configuration.js";
import { routeAfterReflect } from "../../src/graph/routing.js";
import { widestSettings } from "../../src/graph/run-settings.js";
import { EMBEDDER_PROFILES } from "../../src/text/embedders/profiles.js";
import type { RetrievalStateValue, ViewTask } from "../../src/graph/state.js";
import { hitKey } from "../../src/domain/hits.js";
import type { Coverage, GapCondition } from "../../src/domain/coverage.js";
import type { Plan } from "../../src/domain/plan.js";
import { planWithRules } from "../../src/planning/rule-planner.js";
import { judgeWithRules } from "../../src/reflection/rule-judge.js";
import { normalizeEntry, type MemoryInput } from "../../src/memory/entry.js";
import { gapSearchFilter } from "../../src/retrieval/gap-conditions.js";
import { openRecallGraph, type RecallGraph } from "../../src/library/open-recallgraph.js";
import type { RetrievalOutput } from "../../src/library/retrieve.js";
import { createEmbedder } from "../../src/text/embedders/create-embedder.js";
import { runView } from "../../src/nodes/run-view.js";

const NOW = "2026-11-18T10:00:00.000Z";

/**
 * Seven memories about Alice, one a day. Only the oldest mentions the kayak; the others repeat the
 * question's other words, so similarity and recency both put the kayak memory last.
 */
const ALICE: Array<MemoryInput & { id: string }> = [
  { id: "kayak", text: "Alice bought a red kayak for the lake.", persons: ["Alice"], timestamp: "2026-11-01T09:00:00Z" },
  ...[2, 3, 4, 5, 6, 7].map((day) => ({
    id: `chat-${day}`,
    text: `What did Alice say about it? Alice did say what she thought about the day ${day}.`,
    persons: ["Alice"],
    timestamp: `2026-11-0${day}T09:00:00Z`,
  })),
  { id: "launch", text: "Bob moved the launch to August.", persons: ["Bob"], timestamp: "2026-03-02T09:00:00Z" },
];

const lexicalQueries = (output: RetrievalOutput): string[] => [
  ...new Set(output.results.flatMap((result) => result.provenance.ranks.filter((rank) => rank.view === "lexical").map((rank) => rank.query))),
];

describe("the rule-based views", () => {
  let memory: RecallGraph;
  before(async () => {
    memory = await openRecallGraph({ store: { kind: "sqlite", path: ":memory:" }, embedder: createEmbedder({ provider: "hash", dimension: 256 }), model: null });
    await memory.remember("people", ALICE);
  });
  after(() => memory.close());

  it("symbolic: ranks the matches of its conditions by the question's words before similarity or recency", async () => {
    const output = await memory.retrieve({ question: "What did Alice say about the kayak?", namespace: "people", now: NOW }, { preset: "symbolic" });
    assert.deepEqual(output.plan?.persons, ["Alice"]);
    assert.equal(output.results[0]?.id, "kayak");
    assert.equal(output.results.length, 5, "symbolicTopK matches");
    assert.ok(output.results.every((result) => result.persons.includes("Alice")));
  });

  it("symbolic: still returns the matches when the question shares no word with them", async () => {
    const output = await memory.retrieve({ question: "Anything from Alice?", namespace: "people", now: NOW }, { preset: "symbolic" });
    assert.equal(output.results.length, 5);
    assert.ok(output.results.every((result) => result.persons.includes("Alice")));
  });

  it("lexical: keeps a month name, which stored dates spell, and leaves a relative expression to the time window", async () => {
    const month = await memory.retrieve({ question: "What did Bob move to August?", namespace: "people", now: NOW });
    assert.equal(month.plan?.timeExpression, "August");
    assert.ok(lexicalQueries(month).some((query) => query.includes("August")), lexicalQueries(month).join(" | "));
    assert.equal(month.results[0]?.id, "launch");

    const relative = await memory.retrieve({ question: "What did Alice buy last week?", namespace: "people", now: NOW });
    assert.equal(relative.plan?.timeExpression, "last week");
    const queries = lexicalQueries(relative);
    assert.ok(queries.length > 0);
    assert.ok(queries.every((query) => !query.includes("last week")), queries.join(" | "));
  });
});

/** One memory written with only its text; the others came with names as metadata. */
const DANA: Array<MemoryInput & { id: string }> = [
  { id: "moved", text: "Dana moved to Malmö for her job at Spotify", timestamp: "2026-10-01T09:00:00Z" },
  { id: "winters", text: "Sara says Dana likes Swedish winters", persons: ["Sara", "Dana"], timestamp: "2026-10-02T09:00:00Z" },
  { id: "sister", text: "Dana's sister visited Oslo last spring", persons: ["Dana"], location: "Oslo", timestamp: "2026-10-03T09:00:00Z" },
  { id: "erik", text: "Erik moved to Stockholm for a new job", persons: ["Erik"], location: "Stockholm", timestamp: "2026-10-04T09:00:00Z" },
];

describe("a memory that says a name without carrying it", () => {
  let memory: RecallGraph;
  before(async () => {
    memory = await openRecallGraph({ store: { kind: "sqlite", path: ":memory:" }, embedder: createEmbedder({ provider: "hash", dimension: 256 }), model: null });
    await memory.remember("people", DANA);
  });
  after(() => memory.close());

  it("symbolic: meets a person condition by its words, ranked with the tagged matches by the question's words", async () => {
    const output = await memory.retrieve({ question: "Where did Dana move for her job?", namespace: "people", now: NOW }, { preset: "symbolic" });
    assert.deepEqual(output.plan?.persons, ["Dana"]);
    assert.deepEqual(output.results.map((result) => result.id).sort(), ["moved", "sister", "winters"], "Erik's memory shares the words, not the name");
    assert.equal(output.results[0]?.id, "moved");
  });

  it("comes first by default, as it does in the semantic and lexical views", async () => {
    const output = await memory.retrieve({ question: "Where did Dana move for her job?", namespace: "people", now: NOW });
    assert.equal(output.results[0]?.id, "moved");
    assert.ok(output.results[0]?.provenance.views.includes("symbolic"));
  });

  it("still meets the caller's filter and the plan's time window", async () => {
    const output = await memory.retrieve(
      { question: "Where did Dana move for her job?", namespace: "people", now: NOW, filter: { since: "2026-10-02T00:00:00Z" } },
      { preset: "symbolic" },
    );
    assert.deepEqual(output.results.map((result) => result.id).sort(), ["sister", "winters"]);
  });
});

describe("the rule-based judge", () => {
  const plan = (extra: Partial<Plan>): Plan => ({
    requiredInfo: [],
    subQueries: ["q"],
    keywords: ["kind", "event", "attend"],
    persons: ["John"],
    entities: [],
    locations: [],
    planner: "rules",
    ...extra,
  });
  const found = [normalizeEntry("ns", { text: "John said: we went to the fair, what an event.", persons: ["John"] }, { now: Date.parse(NOW) })];

  it("is complete when every name and word of the plan is in the results", () => {
    const coverage = judgeWithRules(plan({ keywords: ["fair", "event"] }), found, 3);
    assert.equal(coverage.complete, true);
    assert.deepEqual(coverage.missing, []);
    assert.equal(coverage.percent, 100);
  });

  it("reports a missing name or word without searching for it again", () => {
    const coverage = judgeWithRules(plan({ entities: ["Pride"] }), found, 3);
    assert.deepEqual(coverage.missing, ["Pride", "kind", "attend"]);
    assert.equal(coverage.percent, 40);
    assert.deepEqual(coverage.gapQueries, [], "a missing word is one the evidence may not use either");
    assert.equal(coverage.complete, true, "nothing is left to ask");
  });

  it("takes a second hop for a person the question describes instead of naming", () => {
    const entry = (text: string, persons: string[]) => normalizeEntry("ns", { text, persons }, { now: Date.parse(NOW) });
    const fixedIt = [
      entry("Alice phoned Wang Lei: the customer is waiting for the ERR_1024 fix.", ["Alice", "Wang Lei"]),
      entry("Bob Müller fixed ERR_1024 in firmware 2.3.1.", ["Bob Müller"]),
      entry("Kessler GmbH reported ERR_1024.", []),
    ];
    const described = plan({
      subQueries: ["Which city does the engineer who fixed ERR_1024 live in?"],
      keywords: ["city", "engineer", "fixed", "ERR_1024", "live"],
      persons: [],
      entities: ["ERR_1024"],
    });
    const coverage = judgeWithRules(described, fixedIt, 3);
    assert.equal(coverage.complete, false);
    assert.equal(coverage.gapQueries[0], "Bob Müller city engineer live", "the name, and the words the first hop did not match");
    assert.deepEqual(coverage.gapConditions?.["Bob Müller city engineer live"], { mentions: "Bob Müller" }, "a hit must name the person, not the answer's words");
    assert.ok(coverage.missing.includes("Bob Müller (second hop)"));
    assert.ok(!coverage.gapQueries.some((query) => /Alice|Wang Lei/.test(query)), "the ones merely mentioned beside the fix are not asked about");
    const noActor = judgeWithRules(described, [fixedIt[0]!, fixedIt[2]!], 3);
    assert.deepEqual(
      noActor.gapQueries.slice(0, 2),
      ["Alice city engineer live", "Wang Lei city engineer live"],
      "with no one written as doing it, the people mentioned with it are asked about",
    );
    assert.deepEqual(judgeWithRules(described, [fixedIt[0]!, fixedIt[2]!], 1).gapQueries, ["Alice city engineer live"], "at most maxGapQueries");
    const again = judgeWithRules(described, [fixedIt[0]!, fixedIt[2]!], 3, new Set(["Alice city engineer live"]));
    assert.deepEqual(again.gapQueries, ["Wang Lei city engineer live"], "a query asked in an earlier round is not asked again");
    assert.deepEqual(Object.keys(again.gapConditions ?? {}), ["Wang Lei city engineer live"]);

    const named = judgeWithRules({ ...described, subQueries: ["Which city does Bob Müller live in?"] }, fixedIt, 3);
    assert.ok(!named.gapQueries.some((query) => query.startsWith("Bob Müller")), "no second hop when the question names its subject");
    const alreadyNamed = judgeWithRules({ ...described, persons: ["Bob Müller"] }, fixedIt, 3);
    assert.ok(!alreadyNamed.missing.includes("Bob Müller (second hop)"), "a person the plan names is not a hop");
  });

  it("asks a question about one speaker again among their own words when others' words rank beside them", () => {
    const said = (speaker: string, text: string, persons: string[] = []) =>
      normalizeEntry("ns", { text: `${speaker} said: ${text}`, speaker, persons }, { now: Date.parse(NOW) });
    const mixed = [said("Mary", "John, that fair sounds like a great event!", ["John"]), said("John", "We went to the fair, what an event.")];
    const question = plan({ subQueries: ["Which event did John attend?"], keywords: ["event"] });
    const coverage = judgeWithRules(question, mixed, 3);
    assert.equal(coverage.complete, false);
    assert.equal(coverage.gapQueries[0], "Which event did John attend?", "the question itself, first");
    assert.deepEqual(coverage.gapConditions?.["Which event did John attend?"], { spokenBy: "John" });
    assert.ok(coverage.missing.includes("John (own words)"));

    const ownWordsAsked = (entries: typeof mixed, extra: Partial<Plan> = {}) =>
      judgeWithRules({ ...question, ...extra }, entries, 3).gapQueries.includes("Which event did John attend?");
    assert.equal(ownWordsAsked([mixed[1]!]), false, "complete when every top result is theirs");
    assert.equal(ownWordsAsked([mixed[0]!]), false, "not asked when they said nothing found: perhaps they never speak here");
    assert.equal(ownWordsAsked(found), false, "memories without speakers (documents) never ask it");
    assert.equal(ownWordsAsked(mixed, { persons: ["John", "Mary"] }), false, "a question about two people has no single subject");
    assert.equal(judgeWithRules(question, mixed, 3, new Set(["Which event did John attend?"])).gapQueries.includes("Which event did John attend?"), false, "asked once");
  });

  it("counts a time window as covered only by a result inside it, and leaves it to the symbolic view", () => {
    const window = { startMs: Date.parse("2026-12-01T00:00:00Z"), endMs: Date.parse("2027-01-01T00:00:00Z") };
    const coverage = judgeWithRules(plan({ keywords: [], timeExpression: "December", timeWindow: window }), found, 3);
    assert.deepEqual(coverage.missing, ["December"]);
    assert.equal(coverage.complete, true);
    assert.deepEqual(coverage.gapQueries, []);
  });
});

describe("the rule planner's names", () => {
  const vocabulary = {
    persons: ["Alice Chen", "Calvin"],
    entities: ["Lord of the Rings", "California Love", "The Beatles", "Acme Corp"],
    locations: ["New York"],
  };
  const plan = (question: string) => planWithRules(question, { vocabulary, now: new Date(NOW), timeZone: "UTC", maxSubQueries: 4, clauseQueries: false });

  it("never matches a name by a stopword of it", () => {
    assert.deepEqual(plan("What is the position on the team he signed with?").entities, []);
  });

  it("matches a thing or a place by a part only where the question capitalises it", () => {
    assert.deepEqual(plan("Does Calvin love music tours?").entities, []);
    assert.deepEqual(plan("Does Calvin love music tours?").persons, ["Calvin"]);
    assert.deepEqual(plan("Is Acme hiring?").entities, ["Acme Corp"]);
    assert.deepEqual(plan("Who saw Beatles tribute bands?").entities, ["The Beatles"]);
    assert.deepEqual(plan("Did they fly to York?").locations, ["New York"]);
    assert.deepEqual(plan("What did they say about new york?").locations, ["New York"], "whole names match in any case");
    assert.deepEqual(plan("Did they go to the york fair?").locations, []);
  });

  it("matches a person by a part in any case", () => {
    assert.deepEqual(plan("what did alice say?").persons, ["Alice Chen"]);
  });

  it("takes a one-word name for a condition only where the question writes it as one, not at a sentence's start", () => {
    // Title words and headings a store's rules took for names: the question's ordinary words must not become filters.
    const documents = { persons: [], entities: ["Cells", "Adult Mice", "RESULTS", "DNA", "Boston"], locations: [] };
    const ask = (question: string) => planWithRules(question, { vocabulary: documents, now: new Date(NOW), timeZone: "UTC", maxSubQueries: 4, clauseQueries: false }).entities;
    assert.deepEqual(ask("Cells lacking the enzyme die."), [], "capitalised only because it opens the sentence");
    assert.deepEqual(ask("Results show that cells die."), []);
    assert.deepEqual(ask("Adult neurons regrow."), [], "nor is an opening word a part that finds a longer name");
    assert.deepEqual(ask("Damaged DNA in adult mice."), ["Adult Mice", "DNA"], "names of several words and written capitals still count");
    assert.deepEqual(ask("What did she like about Boston? Boston was cold."), ["Boston"]);
  });
});

describe("gap rounds of the rule judge", () => {
  const settings = widestSettings(resolveConfiguration(undefined), [], EMBEDDER_PROFILES.hash);
  const planOf: Plan = { requiredInfo: [], subQueries: ["q"], keywords: [], persons: ["John"], entities: ["Regatta"], locations: [], planner: "rules" };
  const state = (judge: Coverage["judge"]) =>
    ({
      question: "What did John buy for the Regatta?",
      namespaces: ["ns"],
      round: 1,
      queryPlan: planOf,
      settings,
      coverage: {
        complete: false,
        percent: 50,
        missing: ["Regatta"],
        gapQueries: ["Regatta"],
        ...(judge === "rules" ? { gapConditions: { Regatta: { mentions: "Regatta" } } } : {}),
        judge,
      },
    }) as RetrievalStateValue;

  it("marks a round of rule-made gap queries as needing mentions, and a model's as free text", () => {
    const tasks = (judge: Coverage["judge"]) => {
      const sends = routeAfterReflect(state(judge));
      assert.ok(Array.isArray(sends));
      return sends.map((send) => send.args as ViewTask);
    };
    const byRules = tasks("rules");
    assert.deepEqual(byRules.map((task) => task.view).sort(), ["lexical", "semantic"], "the symbolic view's conditions do not change");
    assert.ok(byRules.every((task) => task.gapConditions["Regatta"]?.mentions === "Regatta" && task.queries[0] === "Regatta"));
    assert.ok(tasks("llm").every((task) => Object.keys(task.gapConditions).length === 0));
  });

  it("keeps only the gap hits that meet their query's condition", async () => {
    const entry = (id: string, text: string, fields: { entities?: string[]; speaker?: string } = {}) => ({
      entry: normalizeEntry("ns", { id, text, ...fields }, { now: Date.parse(NOW) }),
      score: 1,
    });
    const hits = [entry("a", "John rowed all day."), entry("b", "The boats were ready.", { entities: ["Regatta"] }), entry("c", "John won the regatta!", { speaker: "Mary" })];
    // An anchored gap query ("John regatta") needs both words: the entity tag alone does not name John.
    const task = (gapConditions: Record<string, GapCondition>): ViewTask => ({ view: "semantic", round: 1, question: "q", namespaces: ["ns"], queries: ["Regatta"], plan: planOf, settings, gapConditions });
    const kept = async (gapConditions: Record<string, GapCondition>, query = "Regatta") => {
      const update = await runView("semantic", task(gapConditions), async () => [{ query, namespace: "ns", hits }]);
      return update.viewHits[0]?.hits.map((hit) => hit.key);
    };
    assert.deepEqual(await kept({ Regatta: { mentions: "Regatta" } }), [hitKey("ns", "b"), hitKey("ns", "c")]);
    assert.deepEqual(await kept({}), [hitKey("ns", "a"), hitKey("ns", "b"), hitKey("ns", "c")]);
    assert.deepEqual(await kept({ "John regatta": { mentions: "John regatta" } }, "John regatta"), [hitKey("ns", "c")]);
    // A second hop's query must only be mentioned by name: "John rowed all day" answers "John regatta win".
    assert.deepEqual(await kept({ "John regatta win": { mentions: "John" } }, "John regatta win"), [hitKey("ns", "a"), hitKey("ns", "c")]);
    assert.deepEqual(await kept({ Regatta: { mentions: "Regatta" } }, "constructor"), [hitKey("ns", "a"), hitKey("ns", "b"), hitKey("ns", "c")], "a query with no entry keeps its hits");
    // Asked among someone's own words: only what they said, whoever it mentions; names compare case-insensitively.
    assert.deepEqual(await kept({ "Who won?": { spokenBy: "mary " } }, "Who won?"), [hitKey("ns", "c")]);
    assert.deepEqual(await kept({ "Who won?": { spokenBy: "John" } }, "Who won?"), [], "mentioned is not spoken by");
    assert.deepEqual(gapSearchFilter({ spokenBy: "Mary" }), { persons: ["Mary"] }, "the store search is narrowed to the speaker's entries");
    assert.equal(gapSearchFilter({ mentions: "John" }), undefined);
  });
});

describe("query vectors in one run", () => {
  it("embeds the question once when the semantic and symbolic views both need it", async () => {
    const hash = createEmbedder({ provider: "hash", dimension: 64 });
    const embedded: string[] = [];
    const counting = {
      ...hash,
      embeddings: Object.assign(Object.create(hash.embeddings) as typeof hash.embeddings, {
        embedDocuments: async (texts: string[]) => {
          embedded.push(...texts);
          return hash.embeddings.embedDocuments(texts);
        },
        embedQuery: async (text: string) => {
          embedded.push(text);
          return hash.embeddings.embedQuery(text);
        },
      }),
    };
    const memory = await openRecallGraph({ store: { kind: "sqlite", path: ":memory:" }, embedder: counting, model: null });
    try {
      await memory.remember("week", [
        { id: "mon", text: "Quarterly numbers went out.", timestamp: "2026-11-09T09:00:00Z" },
        { id: "tue", text: "The printer was repaired.", timestamp: "2026-11-10T09:00:00Z" },
      ]);
      embedded.length = 0;
      const question = "What happened last week?";
      const output = await memory.retrieve({ question, namespace: "week", now: NOW }, { reflection: false });
      // No memory shares a word with the question, so the symbolic view ranks its window by similarity.
      assert.ok(output.results.some((result) => result.provenance.views.includes("symbolic")));
      assert.deepEqual(embedded, [question]);
    } finally {
      await memory.close();
    }
  });
});
