import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { hitKey, type ViewHitList } from "../../src/domain/hits.js";
import { resolveConfiguration } from "../../src/graph/configuration.js";
import { widestSettings } from "../../src/graph/run-settings.js";
import type { RetrievalStateValue } from "../../src/graph/state.js";
import { normalizeEntry, type MemoryEntry } from "../../src/memory/entry.js";
import { mergeNode } from "../../src/nodes/merge.js";
import { makePlan } from "../../src/planning/plan.js";
import { LENGTH_DEPTH, spokenHits } from "../../src/retrieval/list-evidence.js";
import { EMBEDDER_PROFILES, type EmbedderProfile } from "../../src/text/embedders/profiles.js";

const NOW = Date.parse("2026-11-18T10:00:00Z");
const list = (view: ViewHitList["view"], ids: string[]): ViewHitList => ({
  view,
  query: "q",
  namespace: "ns",
  round: 0,
  hits: ids.map((id, i) => ({ key: hitKey("ns", id), score: 1 / (i + 1) })),
});
const planNaming = (persons: string[], planner: "rules" | "off" = "rules") =>
  makePlan({ requiredInfo: [], subQueries: ["q"], keywords: [], persons, entities: [], locations: [], planner }, undefined);

/**
 * The semantic view ranks "meant" first and the lexical view "worded" first, each the other second:
 * which comes first says which view weighs more for the question.
 */
async function fusedOf(options: {
  persons: string[];
  planner?: "rules" | "off";
  speaker?: string;
  profile: EmbedderProfile;
  configurable?: Record<string, unknown>;
}) {
  const settings = widestSettings(resolveConfiguration({ configurable: options.configurable ?? {} }), [], options.profile);
  const entries: Record<string, MemoryEntry> = {};
  for (const id of ["meant", "worded"]) {
    entries[hitKey("ns", id)] = normalizeEntry("ns", { id, text: `${id} text`, ...(options.speaker ? { speaker: options.speaker } : {}) }, { now: NOW });
  }
  const state = {
    question: "q",
    queryPlan: planNaming(options.persons, options.planner),
    settings,
    viewHits: [list("semantic", ["meant", "worded"]), list("lexical", ["worded", "meant"])],
    entries,
  } as unknown as RetrievalStateValue;
  const { fused } = await mergeNode()(state);
  return fused;
}

async function firstOf(options: Parameters<typeof fusedOf>[0]): Promise<string | undefined> {
  return (await fusedOf(options))[0]?.key;
}

/** The fused score of the hit the semantic view ranks first. */
async function meantScoreOf(options: Parameters<typeof fusedOf>[0]): Promise<number> {
  return (await fusedOf(options)).find((hit) => hit.key === hitKey("ns", "meant"))?.score ?? Number.NaN;
}

describe("a question over a conversation that names no person", () => {
  const onnx = EMBEDDER_PROFILES.onnx;

  it("weighs a retrieval-trained embedder's dense view by its profile's weight for such questions", async () => {
    assert.ok((onnx.denseWeightWithoutNames ?? 0) > 1 && onnx.denseWeight < 1, "the profile's two weights sit either side of BM25's");
    assert.equal(await firstOf({ persons: [], speaker: "user", profile: onnx }), hitKey("ns", "meant"));
  });

  it("keeps the profile's usual weight where the question names a person, the memories are documents, or nobody planned the question", async () => {
    assert.equal(await firstOf({ persons: ["Dana"], speaker: "user", profile: onnx }), hitKey("ns", "worded"), "a named person: BM25 matches the name");
    assert.equal(await firstOf({ persons: [], profile: onnx }), hitKey("ns", "worded"), "documents share their terms with the question");
    assert.equal(await firstOf({ persons: [], planner: "off", speaker: "user", profile: onnx }), hitKey("ns", "worded"), "unplanned: nobody looked for a name");
  });

  it("raises the offline embedder's dense vote too, by its own profile's weight", async () => {
    const useLite = EMBEDDER_PROFILES["use-lite"];
    assert.ok((useLite.denseWeightWithoutNames ?? 0) > useLite.denseWeight);
    const named = await meantScoreOf({ persons: ["Dana"], speaker: "user", profile: useLite });
    const nameless = await meantScoreOf({ persons: [], speaker: "user", profile: useLite });
    assert.ok(nameless > named, `the dense view's first hit scores ${nameless} without a name, ${named} with one`);
  });

  it("leaves an embedder without such a weight, and a configured weight, as they are", async () => {
    const openai = EMBEDDER_PROFILES.openai;
    assert.equal(openai.denseWeightWithoutNames, undefined);
    assert.equal(
      await meantScoreOf({ persons: [], speaker: "user", profile: openai }),
      await meantScoreOf({ persons: ["Dana"], speaker: "user", profile: openai }),
    );
    const configured = { viewWeights: { semantic: 0.5 } };
    assert.equal(widestSettings(resolveConfiguration({ configurable: configured }), [], onnx).semanticWeightWithoutNames, 0.5);
    assert.equal(await firstOf({ persons: [], speaker: "user", profile: onnx, configurable: configured }), hitKey("ns", "worded"), "the caller's weight holds for every question");
  });
});

describe("spoken hits", () => {
  const speakers: Record<string, string | undefined> = { a: "user", b: "assistant", c: undefined, d: undefined };
  const speakerOf = (key: string) => speakers[key];
  const of = (keys: string[], round = 0): ViewHitList => ({ view: "lexical", query: "q", namespace: "ns", round, hits: keys.map((key) => ({ key, score: 1 })) });

  it("says whether most of the first round's first hits have a speaker", () => {
    assert.equal(spokenHits([of(["a", "b", "c"])], speakerOf), true);
    assert.equal(spokenHits([of(["a", "c", "d"])], speakerOf), false);
    assert.equal(spokenHits([of(["a", "c"])], speakerOf), false, "half is not most");
    assert.equal(spokenHits([], speakerOf), false, "nothing found: not spoken");
  });

  it("reads only the question's own round and each list's first LENGTH_DEPTH hits", () => {
    assert.equal(spokenHits([of(["c"]), of(["a", "b"], 1)], speakerOf), false, "a reflection round's hits are not read");
    const deep = [...Array.from({ length: LENGTH_DEPTH }, () => "a"), "c", "c", "c", "c", "c", "c", "c", "c", "c", "c", "c"];
    assert.equal(spokenHits([of(deep)], speakerOf), true);
  });
});
