import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { z } from "zod";
import { LOCOMO_PATH, runCli, runJson, temporaryFolder } from "./helpers.js";
import { IngestJsonSchema, QueryJsonSchema, StatsJsonSchema } from "./schemas.js";

const CONVERSATION = "conv-26";
/** A single-hop question of conv-26 with one plain evidence turn; its evidence ids are read from the file. */
const QUESTION = "When did Melanie run a charity race?";

// Only the fields the test reads; the release carries many more.
const LocomoSampleSchema = z.looseObject({
  sample_id: z.string(),
  conversation: z.record(z.string(), z.unknown()),
  qa: z.array(z.looseObject({ question: z.string(), evidence: z.array(z.string()) })),
});

const skip = existsSync(LOCOMO_PATH) ? false : `LoCoMo data not found at ${LOCOMO_PATH}`;

describe("ingest and query LoCoMo conv-26 through the CLI", { skip }, () => {
  let folder = { path: "", remove: async () => {} };
  let evidence: string[] = [];
  let turnCount = 0;
  const db = () => path.join(folder.path, "memory.db");

  before(async () => {
    folder = await temporaryFolder();
    const samples = z.array(LocomoSampleSchema).parse(JSON.parse(await readFile(LOCOMO_PATH, "utf8")));
    const sample = samples.find((candidate) => candidate.sample_id === CONVERSATION);
    assert.ok(sample, `${CONVERSATION} is in the file`);
    evidence = sample.qa.find((qa) => qa.question === QUESTION)?.evidence ?? [];
    assert.ok(evidence.length > 0, `the file has evidence for "${QUESTION}"`);
    turnCount = Object.entries(sample.conversation)
      .filter(([key]) => /^session_\d+$/.test(key))
      .reduce((sum, [, turns]) => sum + (Array.isArray(turns) ? turns.length : 0), 0);
    // A file holding conv-26 alone keeps the test fast.
    await writeFile(path.join(folder.path, "conv-26.json"), JSON.stringify([sample]));
  });
  after(() => folder.remove());

  it("ingests one entry per turn into a namespace named by the sample id", async () => {
    const summary = IngestJsonSchema.parse(await runJson(["--db", db(), "--embedder", "hash", "ingest", "conv-26.json"], folder.path));
    assert.deepEqual(summary.namespaces, { [CONVERSATION]: turnCount });
    assert.equal(summary.entries, turnCount);
    const stats = StatsJsonSchema.parse(await runJson(["--db", db(), "stats"], folder.path));
    assert.deepEqual(stats.namespaces, { [CONVERSATION]: { entries: turnCount } });
    assert.equal(stats.embedder, "hash-v1");
    assert.ok((stats.fileBytes ?? 0) > 0);
  });

  it("re-ingesting the same file replaces, never duplicates", async () => {
    const run = await runCli(["--db", db(), "--embedder", "hash", "ingest", "conv-26.json", "--format", "locomo"], folder.path);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, new RegExp(`^Wrote ${turnCount} entries in [\\d.]+ s`));
    assert.equal(run.stderr, "", "no progress bar when stderr is not a terminal");
    const stats = StatsJsonSchema.parse(await runJson(["--db", db(), "stats", "--namespace", CONVERSATION], folder.path));
    assert.deepEqual(stats.namespaces, { [CONVERSATION]: { entries: turnCount } });
  });

  it("a query returns the evidence turn, with provenance, in --json", async () => {
    const output = QueryJsonSchema.parse(
      await runJson(["--db", db(), "--embedder", "hash", "query", QUESTION, "--namespace", CONVERSATION, "--now", "2023-10-23T00:00:00Z"], folder.path),
    );
    assert.ok(output.results.length > 0 && output.results.length <= 10);
    const turnIds = output.results.flatMap((result) => result.source.turnIds);
    assert.ok(
      evidence.some((id) => turnIds.includes(id)),
      `one of the evidence turns ${evidence.join(", ")} is among ${turnIds.join(", ")}`,
    );
    for (const result of output.results) {
      assert.equal(result.namespace, CONVERSATION);
      assert.match(result.source.turnIds[0] ?? "", /^D\d+:\d+$/);
    }
    assert.ok(output.plan, "the rules planned the question");
    assert.equal(output.plan.subQueries[0], QUESTION);
  });

  it("prints readable results: rank, time, id, views with ranks, turns, text", async () => {
    const run = await runCli(["--db", db(), "--embedder", "hash", "query", QUESTION, "-n", CONVERSATION, "--k", "5", "--no-reflect"], folder.path);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^plan \(rules\):/);
    assert.match(run.stdout, /^ {2}1 {2}\d{4}-\d{2}-\d{2} \d{2}:\d{2} {2}\S+ +(semantic|lexical|symbolic) #\d+.* {2}turns D\d+:\d+$/m);
    assert.match(run.stdout, /^5 results · 0 reflection rounds/m);
    assert.ok(!run.stdout.includes("\u001b["), "no terminal control codes when piped");
  });

  it("a namespace with no memories is noted on stderr, and the answer is empty", async () => {
    const run = await runCli(["--db", db(), "--embedder", "hash", "query", QUESTION, "-n", "conv-99", "--json"], folder.path);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(QueryJsonSchema.parse(JSON.parse(run.stdout)).results, []);
    assert.match(run.stderr, /^note: no memories in namespace "conv-99" \(this store has: conv-26\)\n$/);
  });
});
