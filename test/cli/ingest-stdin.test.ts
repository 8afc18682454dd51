/** `recallgraph ingest -` reads standard input; re-ingesting a changed file reports what it retired. */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { z } from "zod";
import { oneLineError, runCli, runJson, temporaryFolder } from "./helpers.js";
import { IngestJsonSchema, StatsJsonSchema } from "./schemas.js";

const ListJsonSchema = z.object({ entries: z.array(z.object({ text: z.string() })) });

describe("ingest - reads standard input", () => {
  let folder = { path: "", remove: async () => {} };
  const db = () => path.join(folder.path, "memory.db");
  const ingest = (input: string, ...args: string[]) => runCli(["--db", db(), "--embedder", "hash", "ingest", "-", ...args], folder.path, input);
  const listed = async (namespace: string) =>
    ListJsonSchema.parse(await runJson(["--db", db(), "list", "--namespace", namespace, "--limit", "100"], folder.path)).entries.map((entry) => entry.text).sort();

  before(async () => {
    folder = await temporaryFolder();
  });
  after(() => folder.remove());

  it("JSON Lines from a pipe, the format told by the content", async () => {
    const run = await ingest('{"text": "Alice met Bob in Berlin."}\n{"text": "Bob fixed ERR_1024."}\n', "--namespace", "team", "--json");
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(IngestJsonSchema.parse(JSON.parse(run.stdout)).namespaces, { team: 2 });
    assert.deepEqual(await listed("team"), ["Alice met Bob in Berlin.", "Bob fixed ERR_1024."]);
  });

  it("a dialogue from a pipe; a second pipe into the namespace retires nothing of the first", async () => {
    const turns = [{ turnId: "t1", speaker: "Ann", text: "We launch the rocket on Friday.", time: "2026-03-10T09:00:00Z" }];
    const run = await ingest(JSON.stringify({ turns }), "--namespace", "team");
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^Wrote 1 entry in /);
    assert.doesNotMatch(run.stdout, /Retired/);
    assert.equal((await listed("team")).length, 3);
  });

  it("with --origin, standard input replaces what it wrote under that name", async () => {
    assert.equal((await ingest('{"text": "Feed item one."}\n{"text": "Feed item two."}\n', "-n", "feed", "--origin", "rss")).code, 0);
    const run = await ingest('{"text": "Feed item one."}\n', "-n", "feed", "--origin", "rss");
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /\nRetired 1 entry the source no longer holds\n$/);
    assert.deepEqual(await listed("feed"), ["Feed item one."]);
  });

  it("refuses --format docs, empty input and unknown content in one line, and writes nothing", async () => {
    const docs = await ingest("# Notes\n\nSome text.", "--format", "docs");
    assert.equal(docs.code, 1);
    assert.match(oneLineError(docs), /^error: format: documents are read from files: give a file or folder rather than standard input$/);
    const empty = await ingest("  \n", "-n", "team");
    assert.equal(empty.code, 1);
    assert.match(oneLineError(empty), /^error: standard input is empty$/);
    const unknown = await ingest("a,b\n1,2\n", "-n", "team");
    assert.equal(unknown.code, 1);
    assert.match(oneLineError(unknown), /^error: format: cannot tell the format of standard input; pass one of/);
    const fresh = path.join(folder.path, "fresh.db");
    const nothing = await runCli(["--db", fresh, "--embedder", "hash", "ingest", "-"], folder.path, "");
    assert.equal(nothing.code, 1);
    assert.equal(existsSync(fresh), false, "a refused ingest creates no store");
    assert.deepEqual(StatsJsonSchema.parse(await runJson(["--db", db(), "stats"], folder.path)).namespaces, { team: { entries: 3 }, feed: { entries: 1 } });
  });

  it("re-ingesting an edited file reports the retired entries", async () => {
    const file = path.join(folder.path, "notes.jsonl");
    await writeFile(file, '{"text": "Carol likes tea."}\n{"text": "Dave likes coffee."}\n');
    assert.equal((await runCli(["--db", db(), "--embedder", "hash", "ingest", "notes.jsonl", "-n", "notes"], folder.path)).code, 0);
    await writeFile(file, '{"text": "Carol likes green tea."}\n');
    const run = await runCli(["--db", db(), "--embedder", "hash", "ingest", "notes.jsonl", "-n", "notes", "--json"], folder.path);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(z.object({ retired: z.number() }).parse(JSON.parse(run.stdout)).retired, 2);
    assert.deepEqual(await listed("notes"), ["Carol likes green tea."]);
  });
});
