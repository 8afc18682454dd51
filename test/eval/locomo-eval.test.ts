import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { evalJson, evalText } from "../../src/eval/report.js";
import { runEval } from "../../src/eval/run.js";
import { oneLineError, runCli, temporaryFolder } from "../cli/helpers.js";
import { lancedbRows } from "../support/lancedb.js";

const LOCOMO_PATH = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../shared/data/locomo/locomo10.json");
const skip = existsSync(LOCOMO_PATH) ? false : `LoCoMo data not found at ${LOCOMO_PATH}`;

const fraction = (value: unknown) => typeof value === "number" && value >= 0 && value <= 1;

describe("recallgraph eval on LoCoMo", () => {
  it("scores the first 31 questions of conv-26 with every peer, on the hashing embedder", { skip, timeout: 120_000 }, async () => {
    const run = await runEval({ file: LOCOMO_PATH, conversations: ["conv-26"], limit: 31, peers: true, embedder: { provider: "hash" } });
    const json = evalJson(run);

    assert.deepEqual(Object.keys(json), [
      "dataset", "embedder", "store", "questions", "skipped", "mode", "recall", "hit", "mrr", "byCategory", "byConversation", "llmCallsPerQuery", "latencyMs", "turnsPerEntry", "peers",
    ]);
    assert.equal(json.dataset, "locomo10.json");
    assert.match(json.embedder, /^hash-v1 \(\d+-d\)$/, "the report names the vectors every row searched");
    assert.equal(json.questions, 31);
    // conv-26's qa item 30 has no evidence: it is counted and skipped on the way to the 31st scorable question.
    assert.equal(json.skipped, 1);
    assert.equal(json.mode, "full");
    for (const key of ["recall", "hit"] as const) {
      assert.deepEqual(Object.keys(json[key]), ["5", "10", "25"]);
      for (const value of Object.values(json[key])) assert.ok(fraction(value), `${key} ${value}`);
    }
    assert.ok(json.recall["5"]! <= json.recall["10"]! && json.recall["10"]! <= json.recall["25"]!);
    assert.ok(fraction(json.mrr));
    for (const [category, summary] of Object.entries(json.byCategory)) {
      assert.match(category, /^[1-5]$/);
      assert.ok(summary.n > 0);
      for (const value of Object.values(summary.recall)) assert.ok(fraction(value));
    }
    assert.equal(Object.values(json.byCategory).reduce((sum, summary) => sum + summary.n, 0), 31);
    assert.deepEqual(json.llmCallsPerQuery, { mean: 0, p50: 0 });
    assert.ok(json.latencyMs.p50 > 0 && json.latencyMs.p95 >= json.latencyMs.p50);
    assert.equal(json.turnsPerEntry, 1);

    const peers = new Map((json.peers ?? []).map((peer) => [peer.name, peer]));
    assert.deepEqual([...peers.keys()], [
      "recallgraph full", "recallgraph dense", "recallgraph lexical", "recallgraph symbolic", "recallgraph union",
      "recallgraph no-plan", "recallgraph no-reflect", "recallgraph full without context votes", "recallgraph full without the symbolic vote",
      "recallgraph full without time answers", "LangGraph InMemoryStore", "BM25 (minisearch)",
      ...(await lancedbRows()),
    ]);
    // Ten entries drawn at random out of conv-26's 419 find a given evidence turn with chance 10/419.
    const random10 = 10 / run.entries;
    for (const name of ["BM25 (minisearch)", "recallgraph lexical", "recallgraph full"]) {
      const recall10 = peers.get(name)?.recall["10"] ?? 0;
      assert.ok(recall10 > 5 * random10, `${name} recall@10 ${recall10} vs random ${random10.toFixed(3)}`);
    }
    // The InMemoryStore peer searched the vectors recallgraph stored: both are exact cosine over the same vectors.
    assert.deepEqual(peers.get("LangGraph InMemoryStore")?.recall, peers.get("recallgraph dense")?.recall);
    // Each row but the requested mode's says how the requested mode compares with it, question by question.
    assert.equal(peers.get("recallgraph full")?.versusPrimary, undefined);
    const headlineN = Object.entries(json.byCategory).reduce((n, [category, summary]) => (Number(category) <= 4 ? n + summary.n : n), 0);
    for (const [name, peer] of peers) {
      if (name === "recallgraph full") continue;
      for (const k of ["5", "10", "25"]) {
        const comparison = peer.versusPrimary?.[k];
        assert.ok(comparison, `${name} has a comparison at k = ${k}`);
        assert.ok(Math.abs(comparison.difference - (json.recall[k]! - peer.recall[k]!)) < 1e-3, `${name} @${k}: difference is the recall gap`);
        assert.ok(comparison.wins + comparison.losses <= headlineN);
        if (comparison.difference > 0) assert.ok(comparison.wins > 0, `${name} @${k}: ahead on average means ahead on some question`);
        assert.ok(comparison.pValue > 0 && comparison.pValue <= 1);
      }
    }

    // One conversation: its group holds every headline question, and each row's comparison within it is the whole run's.
    assert.deepEqual(json.byConversation, { "conv-26": { n: headlineN, recall: json.recall } });
    for (const [name, peer] of peers) {
      if (name !== "recallgraph full") assert.deepEqual(peer.versusPrimaryByConversation, { "conv-26": peer.versusPrimary }, name);
    }

    const text = evalText(run);
    assert.doesNotMatch(text, /within each conversation/, "one conversation has no table of its own");
    assert.match(text, /categories 1-4/);
    assert.match(text, /LangGraph InMemoryStore/);
    assert.match(text, /recallgraph full against each row, question by question/);
  });

  it("runs as `recallgraph eval` with --json, and refuses an unknown conversation with exit 1", { skip, timeout: 60_000 }, async () => {
    const folder = await temporaryFolder();
    try {
      const ok = await runCli(["eval", LOCOMO_PATH, "--conversations", "conv-26", "--limit", "8", "--mode", "lexical", "--k", "1,10", "--embedder", "hash", "--json"], folder.path);
      assert.equal(ok.code, 0, ok.stderr);
      const json = JSON.parse(ok.stdout) as { questions: number; mode: string; recall: Record<string, number> };
      assert.equal(json.questions, 8);
      assert.equal(json.mode, "lexical");
      assert.deepEqual(Object.keys(json.recall), ["1", "10"]);

      const bad = await runCli(["eval", LOCOMO_PATH, "--conversations", "conv-99", "--embedder", "hash"], folder.path);
      assert.equal(bad.code, 1);
      assert.match(oneLineError(bad), /conv-99/);
    } finally {
      await folder.remove();
    }
  });
});
