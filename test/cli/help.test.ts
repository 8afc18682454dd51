import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { oneLineError, runCli, temporaryFolder } from "./helpers.js";

describe("recallgraph --help and usage errors", () => {
  let folder = { path: "", remove: async () => {} };
  before(async () => {
    folder = await temporaryFolder();
  });
  after(() => folder.remove());

  it("lists every command and the global options", async () => {
    const run = await runCli(["--help"], folder.path);
    assert.equal(run.code, 0, run.stderr);
    for (const word of ["ingest", "query", "delete", "stats", "demo", "--db", "--store", "--embedder", "--json", "--verbose"]) {
      assert.match(run.stdout, new RegExp(word), `root help mentions ${word}`);
    }
  });

  it("--version prints the package version", async () => {
    const run = await runCli(["--version"], folder.path);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^\d+\.\d+\.\d+\n$/);
  });

  const commandOptions: Record<string, string[]> = {
    ingest: ["<file>", "--namespace", "--format", "locomo", "jsonl", "docs"],
    query: ["<question>", "--namespace", "--now", "--k", "--no-plan", "--no-reflect", "--preset"],
    delete: ["--namespace", "--id", "--all"],
    stats: ["--namespace"],
    demo: ["sample memory"],
  };
  for (const [command, words] of Object.entries(commandOptions)) {
    it(`${command} --help shows its own options and the global ones`, async () => {
      const run = await runCli([command, "--help"], folder.path);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, new RegExp(`^Usage: recallgraph ${command}`));
      for (const word of [...words, "--json", "--db", "--embedder"]) assert.ok(run.stdout.includes(word), `${command} --help mentions ${word}`);
      assert.equal(run.stderr, "");
    });
  }

  it("usage errors exit 1 with one line on stderr", async () => {
    const cases: Array<[string[], RegExp]> = [
      [["frobnicate"], /unknown command 'frobnicate'/],
      [["query"], /missing required argument 'question'/],
      [["query", "hello", "--preset", "nope"], /argument 'nope' is invalid/],
      [["ingest", "x.jsonl", "--format", "csv"], /argument 'csv' is invalid/],
      [["--store", "mongo", "stats"], /argument 'mongo' is invalid/],
      [["delete", "--namespace", "team", "--all", "--id", "a"], /cannot be used with/],
    ];
    for (const [args, message] of cases) {
      const run = await runCli(args, folder.path);
      assert.equal(run.code, 1, `${args.join(" ")}: ${run.stderr}`);
      assert.match(oneLineError(run), message);
      assert.equal(run.stdout, "");
    }
  });

  it("option values are validated with messages naming the flag", async () => {
    const cases: Array<[string[], RegExp]> = [
      [["query", "hello", "--namespace", "team", "--k", "0"], /^error: --k: must be a positive integer$/],
      [["query", "hello", "--namespace", "team", "--k", "2.5"], /^error: --k: must be a positive integer$/],
      [["query", "hello", "--namespace", "team", "--now", "last tuesday"], /^error: --now: must be an ISO 8601 date/],
      [["query", "hello"], /^error: --namespace: required/],
      [["delete", "--namespace", "team"], /^error: say what to delete: --id <id\.\.\.> or --all$/],
    ];
    for (const [args, message] of cases) {
      const run = await runCli(args, folder.path);
      assert.equal(run.code, 1, `${args.join(" ")}: ${run.stderr}`);
      assert.match(oneLineError(run), message);
    }
  });
});
