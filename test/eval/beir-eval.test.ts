import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { cp, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { ValidationError } from "../../src/core/errors.js";
import { readBeirFolder } from "../../src/eval/beir-data.js";
import { beirJson, type BeirJson } from "../../src/eval/beir-report.js";
import { runBeirEval } from "../../src/eval/beir-run.js";
import { oneLineError, ROOT, runCli, temporaryFolder } from "../cli/helpers.js";
import { lancedbRows } from "../support/lancedb.js";

const FIXTURE = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures/beir-tiny");
const SCIFACT = path.resolve(ROOT, "../shared/data/scifact");
const scifactMissing = existsSync(path.join(SCIFACT, "corpus.jsonl")) ? false : `SciFact (BEIR format) not found at ${SCIFACT}`;

const log2 = Math.log2;
/**
 * The fixture's queries as the lexical preset ranks them (checked by reading the texts): the first
 * relevant document at rank 1 for every query, and
 * - q1: d1 (grade 2) found, d2 (1) shares no word with the query;
 * - q2: d3 (2) then d10 (1), d4 (1) shares no word;
 * - q3: d6 (2) then d5 (1);
 * - d5: d6, the one relevant; d5 itself, the query's own id, would be first were it not ignored;
 * - q5: d7 (2) then d8 (1), d404 (1) is judged but not in the corpus;
 * - q6: d9, the one relevant.
 */
const LEXICAL_NDCG10 = [2 / (2 + 1 / log2(3)), (2 + 1 / log2(3)) / (2 + 1 / log2(3) + 1 / 2), 1, 1, (2 + 1 / log2(3)) / (2 + 1 / log2(3) + 1 / 2), 1];
const LEXICAL_RECALL = [1 / 2, 2 / 3, 1, 1, 2 / 3, 1];
const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
const near = (actual: number | undefined, expected: number, what: string) =>
  assert.ok(actual !== undefined && Math.abs(actual - expected) < 1e-4, `${what}: ${actual} != ${expected.toFixed(4)}`);

/** A copy of the fixture with one file replaced, for the error cases. */
async function fixtureWith(file: string, content: string): Promise<{ path: string; remove: () => Promise<void> }> {
  const folder = await temporaryFolder();
  await cp(FIXTURE, folder.path, { recursive: true });
  await writeFile(path.join(folder.path, file), content);
  return folder;
}

describe("reading a BEIR folder", () => {
  it("keeps the queries with a relevant judgement in file order, and counts what it leaves out", async () => {
    const data = await readBeirFolder(FIXTURE, "test");
    assert.deepEqual(data.documents.map((document) => document.id), ["d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8", "d9", "d10"]);
    assert.equal(data.emptyDocuments, 1, "d11 has neither title nor text");
    assert.deepEqual(data.documents.find((document) => document.id === "d1")?.texts, [
      "Varnholm lighthouse\nThe lighthouse on Varnholm island was lit by keepers who burned seal oil until 1890, when a clockwork lens from the Tessaly foundry replaced the flame.",
    ]);
    assert.deepEqual(data.documents.find((document) => document.id === "d9")?.texts, [
      "A clay jar keeps water cool in summer because water seeps through its walls and evaporates.",
    ], "a null title is no title");
    // q7 is judged with grade 0 only; q8 is not judged in this split.
    assert.deepEqual(data.queries.map((query) => query.id), ["q1", "q2", "q3", "d5", "q5", "q6"]);
    assert.equal(data.queriesWithoutRelevant, 1);
    assert.equal(data.relevantMissing, 1, "d404");
    assert.deepEqual([...(data.qrels.get("q1") ?? [])], [["d1", 2], ["d2", 1]]);
    assert.deepEqual((await readBeirFolder(FIXTURE, "dev")).queries.map((query) => query.id), ["q1", "q6"]);
  });

  const qrelsHead = "query-id\tcorpus-id\tscore\n";
  const cases: { what: string; file: string; content: string; error: RegExp }[] = [
    { what: "a line that is not JSON", file: "corpus.jsonl", content: '{"_id": "a", "text": "x"}\n\n{"_id": "b", "text": \n', error: /^corpus\.jsonl line 3: not valid JSON/ },
    { what: "a document without an id", file: "corpus.jsonl", content: '{"_id": "a", "text": "x"}\n{"title": "t", "text": "y"}\n', error: /^corpus\.jsonl line 2: _id: / },
    { what: "an id with outer spaces", file: "corpus.jsonl", content: '{"_id": " a", "text": "x"}\n', error: /^corpus\.jsonl line 1: _id: must not begin or end with whitespace/ },
    { what: "a duplicate document id", file: "corpus.jsonl", content: '{"_id": "d1", "text": "x"}\n{"_id": "d2", "text": "y"}\n{"_id": "d1", "text": "z"}\n', error: /^corpus\.jsonl line 3: _id: duplicate id "d1" \(first on line 1\)/ },
    { what: "an empty query", file: "queries.jsonl", content: '{"_id": "q1", "text": "  "}\n', error: /^queries\.jsonl line 1: text: must not be empty/ },
    { what: "qrels without a header", file: "qrels/test.tsv", content: "q1\td1\t1\n", error: /^qrels\/test\.tsv line 1: expected the header line/ },
    { what: "a qrels line of two columns", file: "qrels/test.tsv", content: `${qrelsHead}q1\td1\n`, error: /^qrels\/test\.tsv line 2: expected 3 tab-separated columns/ },
    { what: "a grade that is not an integer", file: "qrels/test.tsv", content: `${qrelsHead}q1\td1\thigh\n`, error: /^qrels\/test\.tsv line 2: score: must be an integer/ },
    { what: "a document judged twice", file: "qrels/test.tsv", content: `${qrelsHead}q1\td1\t1\nq1\td1\t2\n`, error: /^qrels\/test\.tsv line 3: corpus-id: d1 is judged twice for query q1/ },
    { what: "a judged query queries.jsonl lacks", file: "qrels/test.tsv", content: `${qrelsHead}q1\td1\t1\nq99\td1\t1\n`, error: /^qrels\/test\.tsv line 3: query-id: q99 is not in queries\.jsonl/ },
  ];
  for (const { what, file, content, error } of cases) {
    it(`refuses ${what}, naming the file and line`, async () => {
      const folder = await fixtureWith(file, content);
      try {
        await assert.rejects(readBeirFolder(folder.path, "test"), (thrown: unknown) => thrown instanceof ValidationError && error.test(thrown.message));
      } finally {
        await folder.remove();
      }
    });
  }

  it("refuses a split it does not have, naming those it has", async () => {
    await assert.rejects(readBeirFolder(FIXTURE, "valid"), /split: no qrels\/valid\.tsv in .* \(it has dev, test\)$/);
    await assert.rejects(readBeirFolder(FIXTURE, "../test"), /split: "\.\.\/test" is not a split name/);
  });
});

describe("recallgraph eval DIR --format beir", () => {
  it("prints BEIR's measures as JSON, each hand-checked for the lexical preset", { timeout: 120_000 }, async () => {
    const folder = await temporaryFolder();
    try {
      const run = await runCli(["eval", FIXTURE, "--mode", "lexical", "--embedder", "hash", "--json"], folder.path);
      assert.equal(run.code, 0, run.stderr);
      const json = JSON.parse(run.stdout) as BeirJson;
      assert.deepEqual(Object.keys(json), ["dataset", "format", "split", "embedder", "store", "queries", "mode", "ndcg", "recall", "mrr", "latencyMs"]);
      assert.deepEqual({ dataset: json.dataset, format: json.format, split: json.split, embedder: json.embedder, store: json.store, queries: json.queries, mode: json.mode }, {
        dataset: "beir-tiny", format: "beir", split: "test", embedder: "hash-v1 (512-d)", store: "sqlite", queries: 6, mode: "lexical",
      });
      assert.deepEqual(Object.keys(json.ndcg), ["10"]);
      assert.deepEqual(Object.keys(json.recall), ["10", "100"]);
      assert.deepEqual(Object.keys(json.mrr), ["10"]);
      assert.deepEqual(Object.keys(json.latencyMs), ["p50", "p95"]);
      near(json.ndcg["10"], mean(LEXICAL_NDCG10), "nDCG@10");
      near(json.recall["10"], mean(LEXICAL_RECALL), "recall@10");
      near(json.recall["100"], mean(LEXICAL_RECALL), "recall@100 (every match is in the top 10 of ten documents)");
      assert.equal(json.mrr["10"], 1, "the first relevant document first for every query, d5 included: its own id is ignored");
      assert.ok(json.latencyMs.p50 > 0 && json.latencyMs.p95 >= json.latencyMs.p50);
    } finally {
      await folder.remove();
    }
  });

  it("with --peers, every preset and the peers on the same entries, each compared with --mode query by query", { timeout: 180_000 }, async () => {
    const folder = await temporaryFolder();
    try {
      const run = await runCli(["eval", FIXTURE, "--format", "beir", "--peers", "--embedder", "hash", "--json"], folder.path);
      assert.equal(run.code, 0, run.stderr);
      const json = JSON.parse(run.stdout) as BeirJson;
      assert.deepEqual(Object.keys(json), ["dataset", "format", "split", "embedder", "store", "queries", "mode", "ndcg", "recall", "mrr", "latencyMs", "peers"]);
      const peers = new Map((json.peers ?? []).map((peer) => [peer.name, peer]));
      assert.deepEqual([...peers.keys()], [
        "recallgraph full", "recallgraph dense", "recallgraph lexical", "recallgraph symbolic", "recallgraph union", "recallgraph no-plan",
        "recallgraph no-reflect", "recallgraph knowledge-base", "recallgraph full without context votes", "recallgraph full without the symbolic vote",
        "recallgraph full without time answers", "LangGraph InMemoryStore", "BM25 (minisearch)",
        ...(await lancedbRows()),
      ]);
      assert.equal(peers.get("recallgraph full")?.ndcg["10"], json.ndcg["10"], "the first row is the requested mode");
      near(peers.get("recallgraph lexical")?.ndcg["10"], mean(LEXICAL_NDCG10), "the lexical row is the lexical run");
      // Both are exact cosine over the same vectors.
      assert.deepEqual(peers.get("LangGraph InMemoryStore")?.ndcg, peers.get("recallgraph dense")?.ndcg);
      for (const [name, peer] of peers) {
        if (name === "recallgraph full") {
          assert.equal(peer.versusPrimary, undefined);
          continue;
        }
        assert.deepEqual(Object.keys(peer.versusPrimary ?? {}), ["ndcg@10", "recall@10", "recall@100", "mrr@10"]);
        const ndcg = peer.versusPrimary?.["ndcg@10"];
        assert.ok(ndcg && Math.abs(ndcg.difference - (json.ndcg["10"] - peer.ndcg["10"])) < 1e-3, `${name}: the difference is the nDCG gap`);
        assert.ok(ndcg.wins + ndcg.losses <= json.queries && ndcg.pValue > 0 && ndcg.pValue <= 1);
      }
    } finally {
      await folder.remove();
    }
  });

  it("reads the split asked for, prints a report for people, and refuses options of the other format", { timeout: 120_000 }, async () => {
    const folder = await temporaryFolder();
    try {
      const text = await runCli(["eval", FIXTURE, "--split", "dev", "--limit", "1", "--mode", "lexical", "--embedder", "hash"], folder.path);
      assert.equal(text.code, 0, text.stderr);
      assert.match(text.stdout, /^BEIR retrieval: beir-tiny, split dev, 1 queries scored/);
      assert.match(text.stdout, /10 documents as 10 memories \(1 empty, left out\)/);
      assert.match(text.stdout, /recallgraph lexical\s+1\.000\s+1\.000\s+1\.000\s+1\.000/, "q1's one relevant document (dev) first");

      const missing = await runCli(["eval", FIXTURE, "--split", "valid", "--embedder", "hash"], folder.path);
      assert.equal(missing.code, 1);
      assert.match(oneLineError(missing), /no qrels\/valid\.tsv .*\(it has dev, test\)/);
      const foreign = await runCli(["eval", FIXTURE, "--k", "5", "--embedder", "hash"], folder.path);
      assert.equal(foreign.code, 1);
      assert.match(oneLineError(foreign), /--k: not an option of --format beir/);
      const wrong = await runCli(["eval", FIXTURE, "--format", "locomo", "--embedder", "hash"], folder.path);
      assert.equal(wrong.code, 1);
      assert.match(oneLineError(wrong), /is a folder \(use --format beir, beam or realmem\)/);
    } finally {
      await folder.remove();
    }
  });

  it("splits a document longer than a memory may be, and finds it by words only its last part holds", { timeout: 60_000 }, async () => {
    const folder = await temporaryFolder();
    try {
      const filler = Array.from({ length: 1200 }, (_, i) => `Paragraph ${i} describes the quiet harbour and its boats.`).join(" ");
      const corpus = [
        { _id: "long", title: "Harbour log", text: `${filler} At the very end the keeper records the zanthorium beacon.` },
        { _id: "short", title: "Boats", text: "The harbour boats are painted blue." },
      ];
      await writeFile(path.join(folder.path, "corpus.jsonl"), corpus.map((line) => JSON.stringify(line)).join("\n"));
      await writeFile(path.join(folder.path, "queries.jsonl"), `${JSON.stringify({ _id: "q", text: "zanthorium beacon" })}\n`);
      await cp(path.join(FIXTURE, "qrels"), path.join(folder.path, "qrels"), { recursive: true });
      await writeFile(path.join(folder.path, "qrels/test.tsv"), "query-id\tcorpus-id\tscore\nq\tlong\t1\n");
      const run = await runBeirEval({ folder: folder.path, mode: "lexical", embedder: { provider: "hash" } });
      assert.equal(run.corpus.documents, 2);
      assert.equal(run.corpus.splitDocuments, 1);
      assert.ok(run.corpus.entries >= 4, `${run.corpus.entries} memories: the long document in parts`);
      assert.deepEqual(beirJson(run).recall, { "10": 1, "100": 1 });
      assert.equal(beirJson(run).mrr["10"], 1);
    } finally {
      await folder.remove();
    }
  });

  it("retrieves 100 deep, past the views' default 25, so recall@100 is recall at 100", { timeout: 120_000 }, async () => {
    const folder = await temporaryFolder();
    try {
      // Forty documents say "harbour" more often than the relevant one: it ranks 41st by BM25, beyond a view's default top 25.
      const louder = Array.from({ length: 40 }, (_, i) => ({ _id: `loud${i}`, text: `Harbour harbour harbour, note ${i}.` }));
      const quiet = { _id: "quiet", text: "The harbour master keeps a ledger of every ship, cargo, tide, storm and repair across the long winter season." };
      await writeFile(path.join(folder.path, "corpus.jsonl"), [...louder, quiet].map((line) => JSON.stringify(line)).join("\n"));
      await writeFile(path.join(folder.path, "queries.jsonl"), `${JSON.stringify({ _id: "q", text: "harbour" })}\n`);
      await cp(path.join(FIXTURE, "qrels"), path.join(folder.path, "qrels"), { recursive: true });
      await writeFile(path.join(folder.path, "qrels/test.tsv"), "query-id\tcorpus-id\tscore\nq\tquiet\t1\n");
      for (const mode of ["lexical", "full"] as const) {
        const run = await runBeirEval({ folder: folder.path, mode, embedder: { provider: "hash" } });
        assert.deepEqual(beirJson(run).recall, { "10": 0, "100": 1 }, mode);
      }
    } finally {
      await folder.remove();
    }
  });

  it("keeps the vectors in --embedding-cache: a second run embeds nothing and scores the same", { timeout: 120_000 }, async () => {
    const folder = await temporaryFolder();
    try {
      const cache = path.join(folder.path, "vectors.json");
      const options = { folder: FIXTURE, mode: "dense" as const, embedder: { provider: "hash" as const }, embeddingCache: cache };
      const first = await runBeirEval(options);
      assert.ok(first.timings.textsEmbedded > 0);
      assert.equal(first.timings.vectorsFromCache, 0);
      assert.doesNotMatch(await readFile(cache, "utf8"), /lighthouse/i, "the file keeps digests, not texts");
      const second = await runBeirEval(options);
      assert.equal(second.timings.textsEmbedded, 0);
      assert.equal(second.timings.vectorsFromCache, first.timings.textsEmbedded);
      assert.deepEqual(beirJson(second).ndcg, beirJson(first).ndcg);
      assert.deepEqual(beirJson(second).recall, beirJson(first).recall);
      await assert.rejects(
        runBeirEval({ ...options, embedder: { provider: "hash", dimension: 64 } }),
        /embeddingCache: .*vectors\.json holds hash-v1 \(512-d\) vectors, not hash-v1 \(64-d\)/,
      );
      const written = JSON.parse(await readFile(cache, "utf8"));
      await writeFile(cache, JSON.stringify({ ...written, version: 1 }));
      await assert.rejects(runBeirEval(options), /embeddingCache: .*vectors\.json was written before USE-lite embedded long texts by their sentences.*delete it/);
    } finally {
      await folder.remove();
    }
  });
});

describe("recallgraph eval on SciFact", () => {
  it("scores the first 20 training claims with the lexical preset, well above chance", { skip: scifactMissing, timeout: 600_000 }, async () => {
    const folder = await temporaryFolder();
    try {
      // The whole corpus (5,183 abstracts) is written even with --limit; the hashing embedder keeps that to a minute.
      const run = await runCli(["eval", SCIFACT, "--split", "train", "--limit", "20", "--mode", "lexical", "--embedder", "hash", "--no-llm", "--json"], folder.path);
      assert.equal(run.code, 0, run.stderr);
      const json = JSON.parse(run.stdout) as BeirJson;
      assert.deepEqual({ dataset: json.dataset, split: json.split, queries: json.queries }, { dataset: "scifact", split: "train", queries: 20 });
      // Ten abstracts drawn at random out of 5,183 hold a claim's one or two relevant ones with chance about 0.002.
      assert.ok(json.ndcg["10"] > 0.3, `nDCG@10 ${json.ndcg["10"]}`);
      assert.ok(json.recall["100"] >= json.recall["10"] && json.recall["10"] > 0.4, `recall ${JSON.stringify(json.recall)}`);
    } finally {
      await folder.remove();
    }
  });
});
