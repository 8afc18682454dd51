/**
 * The command line refuses what the library refuses: a date that does not exist (in `--now`, `--since`,
 * `--until` and in an ingested entry) and a namespace with whitespace around it, each naming the flag or
 * the line, instead of rolling the date over or trimming the namespace.
 */
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { oneLineError, runCli, runJson, temporaryFolder } from "./helpers.js";

const NOTES = [{ id: "leap", text: "The leap day party was on the roof.", timestamp: "2024-02-29T20:00:00Z" }];

describe("dates and namespaces on the command line", () => {
  let folder = { path: "", remove: async () => {} };
  before(async () => {
    folder = await temporaryFolder();
    await writeFile(path.join(folder.path, "notes.jsonl"), NOTES.map((entry) => JSON.stringify(entry)).join("\n"));
    await writeFile(path.join(folder.path, "impossible.jsonl"), JSON.stringify({ text: "No such day.", timestamp: "2026-02-30" }));
    await runJson(["--embedder", "hash", "ingest", "notes.jsonl", "--namespace", "team"], folder.path);
  });
  after(() => folder.remove());

  /** Runs a command that must fail with one line on stderr matching `message`. */
  async function assertRefused(args: string[], message: RegExp): Promise<void> {
    const run = await runCli(["--embedder", "hash", ...args], folder.path);
    assert.equal(run.code, 1, `${args.join(" ")}: ${run.stderr}`);
    assert.match(oneLineError(run), message, args.join(" "));
  }

  it("query refuses a --now, --since or --until that does not exist", async () => {
    await assertRefused(["query", "the party", "-n", "team", "--now", "2026-02-30"], /^error: --now: must be an ISO 8601 date or date-time that exists/);
    await assertRefused(["query", "the party", "-n", "team", "--now", "2026-01-01T24:00"], /^error: --now: /);
    await assertRefused(["query", "the party", "-n", "team", "--since", "2026-04-31"], /^error: --since: since must be an ISO 8601/);
    await assertRefused(["list", "-n", "team", "--until", "2026-13-01"], /^error: --until: until must be an ISO 8601/);
  });

  it("query accepts a leap day as --now", async () => {
    const output = (await runJson(["--embedder", "hash", "query", "the party", "-n", "team", "--now", "2024-02-29"], folder.path)) as { results: Array<{ id: string }> };
    assert.equal(output.results[0]?.id, "leap");
  });

  it("ingest refuses an entry on a day that does not exist, writing nothing", async () => {
    await assertRefused(["ingest", "impossible.jsonl", "--namespace", "team"], /timestamp: timestamp must be an ISO 8601 date-time that exists/);
  });

  it("refuses a namespace with whitespace around it instead of reading the trimmed one", async () => {
    await assertRefused(["query", "the party", "-n", "team "], /^error: --namespace: namespace must not begin or end with whitespace$/);
    await assertRefused(["list", "-n", " team"], /^error: --namespace: namespace must not begin or end with whitespace$/);
    await assertRefused(["ingest", "notes.jsonl", "--namespace", "team\t"], /^error: --namespace: namespace must not begin or end with whitespace$/);
    const stats = (await runJson(["stats"], folder.path)) as { namespaces: Record<string, { entries: number }> };
    assert.deepEqual(stats.namespaces, { team: { entries: 1 } }, "nothing was written anywhere");
  });
});
