import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { ValidationError } from "../../src/core/errors.js";
import type { BeirJson } from "../../src/eval/beir-report.js";
import { readSquadFile } from "../../src/eval/squad-data.js";
import { oneLineError, ROOT, runCli, temporaryFolder } from "../cli/helpers.js";
import { lancedbRows } from "../support/lancedb.js";

const FIXTURE = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures/squad-tiny.json");
const CMRC = path.resolve(ROOT, "../shared/data/cmrc2018/cmrc2018_trial.json");
const cmrcMissing = existsSync(CMRC) ? false : `CMRC 2018 (SQuAD layout) not found at ${CMRC}`;

/**
 * The fixture's questions as the lexical preset ranks them (checked by reading the texts): each
 * question's own paragraph first, Q6 (Chinese) included, except Q5 ("Who first fired such pots?"),
 * which shares no content word with any paragraph and finds nothing.
 */
const LEXICAL_FOUND = [1, 1, 1, 1, 0, 1];
const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

/** The fixture with one change, written to a file of its own, for the error cases. */
async function fixtureWith(change: (json: SquadJson) => void): Promise<{ file: string; remove: () => Promise<void> }> {
  const folder = await temporaryFolder();
  const json = JSON.parse(await readFile(FIXTURE, "utf8")) as SquadJson;
  change(json);
  const file = path.join(folder.path, "squad.json");
  await writeFile(file, JSON.stringify(json));
  return { file, remove: folder.remove };
}

interface SquadJson {
  data: { title?: string; paragraphs: { id?: string; context: string; qas: { id: string; question: string }[] }[] }[];
}

describe("reading a SQuAD-layout file as documents and queries", () => {
  it("makes every paragraph a document and each question's paragraph its one relevant document", async () => {
    const data = await readSquadFile(FIXTURE);
    assert.deepEqual(data.documents.map((document) => document.id), ["P1", "P2", "2.1", "2.3"], "unnamed paragraphs are named by article and paragraph, from 1");
    assert.deepEqual(data.documents[0]?.texts, [
      "Varnholm\nThe lighthouse on Varnholm island was lit by keepers who burned seal oil until 1890, when a clockwork lens from the Tessaly foundry replaced the flame.",
    ], "the article's title leads the paragraph, as a BEIR title does");
    assert.equal(data.documents[2]?.where, "data.1.paragraphs.0");
    assert.equal(data.emptyDocuments, 1, "a paragraph of spaces is empty even under a title");
    assert.deepEqual(data.queries.map((query) => query.id), ["Q1", "Q2", "Q3", "Q4", "Q5", "Q6"]);
    assert.deepEqual(data.queries[5], { id: "Q6", text: "陶罐为什么能让水保持凉爽？" });
    assert.deepEqual([...(data.qrels.get("Q3") ?? [])], [["P2", 1]]);
    assert.deepEqual([...(data.qrels.get("Q5") ?? [])], [["2.1", 1]], "a question without an answer still has its paragraph");
    assert.equal(data.queriesWithoutRelevant, 0);
    assert.equal(data.relevantMissing, 0);
    assert.equal(data.emptyQueries, 0);
  });

  it("counts and leaves out a question without text (CMRC 2018's trial set has two)", async () => {
    const fixture = await fixtureWith((json) => {
      json.data[0]!.paragraphs[0]!.qas[1]!.question = " ";
    });
    try {
      const data = await readSquadFile(fixture.file);
      assert.deepEqual(data.queries.map((query) => query.id), ["Q1", "Q3", "Q4", "Q5", "Q6"]);
      assert.equal(data.emptyQueries, 1);
      assert.equal(data.qrels.has("Q2"), false);
    } finally {
      await fixture.remove();
    }
  });

  const cases: { what: string; change: (json: SquadJson) => void; error: RegExp }[] = [
    { what: "a file without data", change: (json) => Reflect.deleteProperty(json, "data"), error: /^data: / },
    { what: "a duplicate paragraph id", change: (json) => { json.data[0]!.paragraphs[1]!.id = "P1"; }, error: /^data\.0\.paragraphs\.1\.id: duplicate paragraph id "P1" \(first at data\.0\.paragraphs\.0\.id\)/ },
    { what: "a duplicate question id", change: (json) => { json.data[1]!.paragraphs[0]!.qas[0]!.id = "Q1"; }, error: /^data\.1\.paragraphs\.0\.qas\.0\.id: duplicate question id "Q1" \(first at data\.0\.paragraphs\.0\.qas\.0\.id\)/ },
    { what: "a question named like a paragraph", change: (json) => { json.data[0]!.paragraphs[1]!.qas[0]!.id = "P1"; }, error: /^data\.0\.paragraphs\.1\.qas\.0\.id: question id "P1" is also a paragraph's id/ },
    { what: "a file without questions", change: (json) => json.data.forEach((article) => article.paragraphs.forEach((paragraph) => (paragraph.qas = []))), error: /^data: no paragraph has a question/ },
  ];
  for (const { what, change, error } of cases) {
    it(`refuses ${what}, naming the field`, async () => {
      const fixture = await fixtureWith(change);
      try {
        await assert.rejects(readSquadFile(fixture.file), (thrown: unknown) => thrown instanceof ValidationError && error.test(thrown.message));
      } finally {
        await fixture.remove();
      }
    });
  }
});

describe("recallgraph eval FILE --format squad", () => {
  it("detects the layout, prints BEIR's measures as JSON, each hand-checked for the lexical preset", { timeout: 120_000 }, async () => {
    const folder = await temporaryFolder();
    try {
      const run = await runCli(["eval", FIXTURE, "--mode", "lexical", "--embedder", "hash", "--json"], folder.path);
      assert.equal(run.code, 0, run.stderr);
      const json = JSON.parse(run.stdout) as BeirJson;
      assert.deepEqual(Object.keys(json), ["dataset", "format", "embedder", "store", "queries", "mode", "ndcg", "recall", "mrr", "latencyMs"], "no split: the file is its own");
      assert.deepEqual({ dataset: json.dataset, format: json.format, queries: json.queries, mode: json.mode }, { dataset: "squad-tiny.json", format: "squad", queries: 6, mode: "lexical" });
      // One relevant document each, found first or not at all: every measure is the share found.
      const found = mean(LEXICAL_FOUND);
      assert.deepEqual(json.ndcg, { "10": Number(found.toFixed(4)) });
      assert.deepEqual(json.recall, { "10": Number(found.toFixed(4)), "100": Number(found.toFixed(4)) });
      assert.deepEqual(json.mrr, { "10": Number(found.toFixed(4)) });
    } finally {
      await folder.remove();
    }
  });

  it("with --peers, every preset and the peers, each compared with --mode question by question; a text report; options of other formats refused", { timeout: 180_000 }, async () => {
    const folder = await temporaryFolder();
    try {
      const run = await runCli(["eval", FIXTURE, "--format", "squad", "--peers", "--embedder", "hash", "--json"], folder.path);
      assert.equal(run.code, 0, run.stderr);
      const json = JSON.parse(run.stdout) as BeirJson;
      const peers = new Map((json.peers ?? []).map((peer) => [peer.name, peer]));
      // Every preset, the default without each rule the hashing embedder's profile has (context votes, the symbolic vote, time answers), the peers.
      assert.equal(peers.size, 13 + (await lancedbRows()).length);
      assert.equal(json.peers?.[0]?.name, "recallgraph full");
      assert.deepEqual(peers.get("LangGraph InMemoryStore")?.ndcg, peers.get("recallgraph dense")?.ndcg, "exact cosine over the same vectors");
      assert.deepEqual(peers.get("recallgraph lexical")?.recall["10"], Number(mean(LEXICAL_FOUND).toFixed(4)));
      for (const [name, peer] of peers) {
        if (name === "recallgraph full") continue;
        assert.deepEqual(Object.keys(peer.versusPrimary ?? {}), ["ndcg@10", "recall@10", "recall@100", "mrr@10"], name);
      }

      const text = await runCli(["eval", FIXTURE, "--limit", "2", "--mode", "lexical", "--embedder", "hash"], folder.path);
      assert.equal(text.code, 0, text.stderr);
      assert.match(text.stdout, /^Retrieval on a SQuAD-layout file .*: squad-tiny\.json, 2 queries scored/);
      assert.match(text.stdout, /4 documents as 4 memories \(1 empty, left out\)/);
      assert.match(text.stdout, /recallgraph lexical\s+1\.000\s+1\.000\s+1\.000\s+1\.000/);

      for (const [option, value] of [["--split", "dev"], ["--k", "5"], ["--conversations", "a"]] as const) {
        const foreign = await runCli(["eval", FIXTURE, option, value, "--embedder", "hash"], folder.path);
        assert.equal(foreign.code, 1);
        assert.match(oneLineError(foreign), new RegExp(`${option}: not an option of --format squad`));
      }
      const folderGiven = await runCli(["eval", path.dirname(FIXTURE), "--format", "squad", "--embedder", "hash"], folder.path);
      assert.equal(folderGiven.code, 1);
      assert.match(oneLineError(folderGiven), /squad reads a \.json file; .* is a folder/);
    } finally {
      await folder.remove();
    }
  });
});

describe("recallgraph eval on CMRC 2018 (trial)", () => {
  it("scores the first 50 questions with the lexical preset, well above chance", { skip: cmrcMissing, timeout: 300_000 }, async () => {
    const folder = await temporaryFolder();
    try {
      const run = await runCli(["eval", CMRC, "--limit", "50", "--mode", "lexical", "--embedder", "hash", "--no-llm", "--json"], folder.path);
      assert.equal(run.code, 0, run.stderr);
      const json = JSON.parse(run.stdout) as BeirJson;
      assert.deepEqual({ dataset: json.dataset, format: json.format, queries: json.queries }, { dataset: "cmrc2018_trial.json", format: "squad", queries: 50 });
      // Ten paragraphs drawn at random out of 256 hold a question's one paragraph with chance about 0.04.
      assert.ok(json.recall["10"] > 0.4, `recall ${JSON.stringify(json.recall)}`);
      assert.ok(json.recall["100"] >= json.recall["10"] && json.ndcg["10"] > 0.3, `nDCG@10 ${json.ndcg["10"]}`);
    } finally {
      await folder.remove();
    }
  });
});
