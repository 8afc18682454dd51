import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import { z } from "zod";
import { oneLineError, runCli, runJson, temporaryFolder } from "./helpers.js";

const BEIR_FIXTURE = path.join(path.dirname(fileURLToPath(import.meta.url)), "../eval/fixtures/beir-tiny");

const EvalJsonSchema = z.looseObject({ queries: z.number(), ndcg: z.object({ "10": z.number() }) });
const CompareJsonSchema = z.object({
  first: z.string(),
  second: z.string(),
  paired: z.number(),
  onlyFirst: z.number(),
  onlySecond: z.number(),
  measures: z.array(z.object({ measure: z.string(), first: z.number(), second: z.number(), difference: z.number(), better: z.number(), worse: z.number(), pValue: z.number() })),
});

describe("recallgraph eval --question-scores, then eval-compare", () => {
  let folder = { path: "", remove: async () => {} };
  const evals: Record<"full" | "lexical", z.infer<typeof EvalJsonSchema>> = {} as never;

  before(async () => {
    folder = await temporaryFolder();
    for (const mode of ["full", "lexical"] as const) {
      const args = ["--embedder", "hash", "eval", BEIR_FIXTURE, "--format", "beir", "--mode", mode, "--question-scores", `${mode}.jsonl`];
      evals[mode] = EvalJsonSchema.parse(await runJson(args, folder.path));
    }
  });
  after(() => folder.remove());

  it("writes one line per scored query, and the comparison's means are the runs' own figures", async () => {
    const lines = (await readFile(path.join(folder.path, "full.jsonl"), "utf8")).trim().split("\n");
    assert.equal(lines.length, evals.full.queries);
    const comparison = CompareJsonSchema.parse(await runJson(["eval-compare", "full.jsonl", "lexical.jsonl"], folder.path));
    assert.equal(comparison.paired, evals.full.queries);
    assert.equal(comparison.onlyFirst + comparison.onlySecond, 0);
    const ndcg = comparison.measures.find((measure) => measure.measure === "nDCG@10");
    assert.ok(ndcg, "nDCG@10 is compared");
    assert.equal(Number(ndcg.first.toFixed(4)), evals.full.ndcg["10"]);
    assert.equal(Number(ndcg.second.toFixed(4)), evals.lexical.ndcg["10"]);
    assert.ok(Math.abs(ndcg.difference - (ndcg.first - ndcg.second)) < 1e-12);
  });

  it("a file compared with itself differs on no question", async () => {
    const comparison = CompareJsonSchema.parse(await runJson(["eval-compare", "full.jsonl", "full.jsonl"], folder.path));
    assert.ok(comparison.measures.length > 0);
    for (const measure of comparison.measures) {
      assert.equal(measure.better + measure.worse, 0, measure.measure);
      assert.equal(measure.pValue, 1);
    }
  });

  it("prints a table a reader can take in", async () => {
    const run = await runCli(["eval-compare", "full.jsonl", "lexical.jsonl"], folder.path);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^first: full\.jsonl, second: lexical\.jsonl$/m);
    assert.match(run.stdout, new RegExp(`^${evals.full.queries} questions compared$`, "m"));
    assert.match(run.stdout, /^nDCG@10\s+\d\.\d{4}\s+\d\.\d{4}\s+[+-]\d\.\d{4}\s+\d+ \/ \d+\s+/m);
  });

  it("refuses a missing file and a bad line with one line naming where", async () => {
    const missing = await runCli(["eval-compare", "full.jsonl", "nothing-here.jsonl"], folder.path);
    assert.equal(missing.code, 1);
    assert.match(oneLineError(missing), /nothing-here\.jsonl: cannot read it/);
    await writeFile(path.join(folder.path, "bad.jsonl"), '{"id":"q1","recall":{"10":2},"hit":{},"ndcg":{},"reciprocalRank":{}}\n');
    const bad = await runCli(["eval-compare", "full.jsonl", "bad.jsonl"], folder.path);
    assert.equal(bad.code, 1);
    assert.match(oneLineError(bad), /bad\.jsonl line 1: recall: 10/);
    const categories = await runCli(["eval-compare", "full.jsonl", "full.jsonl", "--categories", "one"], folder.path);
    assert.equal(categories.code, 1);
    assert.match(oneLineError(categories), /categories/);
  });
});
