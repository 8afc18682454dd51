import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { z } from "zod";
import { oneLineError, runCli, runJson, temporaryFolder } from "./helpers.js";
import { DeleteJsonSchema, IngestJsonSchema, QueryJsonSchema, StatsJsonSchema } from "./schemas.js";

const TEAM = [
  { id: "t1", text: "Alice Chen met Wang Lei in Shanghai on 10 March 2026 about the XYZ-100 order.", timestamp: "2026-03-10T06:30:00Z" },
  { id: "t2", text: "Bob Müller fixed ERR_1024 in firmware 2.3.1 on 2 March 2026.", timestamp: "2026-03-02T12:00:00Z" },
  { id: "t3", text: "Error code ERR_2048 means the Wi-Fi provisioning timed out.", timestamp: "2026-03-05T08:45:00Z" },
];
const NOTES = [{ text: "Priya Nair adopted a grey cat named Pixel." }, { text: "Tom Becker approved the travel budget." }];

describe("stats, delete and the default store location", () => {
  let folder = { path: "", remove: async () => {} };
  const stats = async (...args: string[]) => StatsJsonSchema.parse(await runJson(["stats", ...args], folder.path));

  before(async () => {
    folder = await temporaryFolder();
    await writeFile(path.join(folder.path, "team.jsonl"), TEAM.map((entry) => JSON.stringify(entry)).join("\n"));
    await writeFile(path.join(folder.path, "notes.jsonl"), NOTES.map((entry) => JSON.stringify(entry)).join("\n"));
  });
  after(() => folder.remove());

  it("stats before any ingest is a user error that says what to do", async () => {
    const run = await runCli(["stats"], folder.path);
    assert.equal(run.code, 1);
    assert.match(oneLineError(run), /^error: no memory store at \.\/\.recallgraph\/memory\.db \(write memories with `recallgraph ingest <file>`/);
    assert.equal(existsSync(path.join(folder.path, ".recallgraph")), false, "asking does not create a store");
  });

  it("ingest writes to ./.recallgraph/memory.db by default, creating the folder", async () => {
    const team = IngestJsonSchema.parse(await runJson(["--embedder", "hash", "ingest", "team.jsonl", "--namespace", "team"], folder.path));
    assert.deepEqual(team, { ...team, namespaces: { team: 3 }, entries: 3 });
    const notes = IngestJsonSchema.parse(await runJson(["--embedder", "hash", "ingest", "notes.jsonl"], folder.path));
    assert.deepEqual(notes.namespaces, { default: 2 }, "no --namespace means the default namespace");
    assert.ok(existsSync(path.join(folder.path, ".recallgraph/memory.db")));
  });

  it("stats reports entries per namespace, the embedder, its dimension and the file size", async () => {
    const all = await stats();
    assert.deepEqual(all.namespaces, { default: { entries: 2 }, team: { entries: 3 } });
    assert.equal(all.embedder, "hash-v1");
    assert.equal(all.dimension, 512);
    assert.ok((all.fileBytes ?? 0) > 0);
    assert.deepEqual((await stats("--namespace", "team")).namespaces, { team: { entries: 3 } });
    assert.deepEqual((await stats("--namespace", "nobody")).namespaces, { nobody: { entries: 0 } });

    const run = await runCli(["stats"], folder.path);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^store {5}\.\/\.recallgraph\/memory\.db \(sqlite, [\d.]+ (KiB|MiB)\)$/m);
    assert.match(run.stdout, /^embedder {2}hash-v1 \(512-d\)$/m);
    assert.match(run.stdout, /^ {2}team +3$/m);
    assert.match(run.stdout, /^ {2}total +5$/m);
  });

  it("delete --id removes those entries, reports unknown ids, and stats agrees", async () => {
    const deleted = DeleteJsonSchema.parse(await runJson(["delete", "--namespace", "team", "--id", "t2", "nope"], folder.path));
    assert.deepEqual(deleted, { namespace: "team", deleted: 1, missing: ["nope"] });
    assert.deepEqual((await stats()).namespaces, { default: { entries: 2 }, team: { entries: 2 } });
    const output = QueryJsonSchema.parse(await runJson(["--embedder", "hash", "query", "Who fixed ERR_1024?", "-n", "team"], folder.path));
    assert.ok(!output.results.some((result) => result.id === "t2"), "a deleted entry is never returned");
  });

  it("delete --all empties one namespace and leaves the others", async () => {
    const run = await runCli(["delete", "--namespace", "team", "--all"], folder.path);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, 'Deleted 2 entries from namespace "team".\n');
    assert.deepEqual((await stats()).namespaces, { default: { entries: 2 } });
  });

  it("reembed writes every memory's vector again with the store's embedder, and refuses another", async () => {
    const reembedded = z.strictObject({ namespaces: z.record(z.string(), z.number()), entries: z.number(), search: IngestJsonSchema.shape.search });
    const summary = reembedded.parse(await runJson(["--embedder", "hash", "reembed"], folder.path));
    assert.deepEqual([summary.namespaces, summary.entries], [{ default: 2 }, 2]);
    assert.deepEqual(summary.search.namespaces, { default: { termsHeld: true, vectorIndex: "not-indexed" } }, "search prepared again for the next command");
    assert.deepEqual((await stats()).namespaces, { default: { entries: 2 } }, "nothing added or removed");

    const text = await runCli(["--embedder", "hash", "reembed", "-n", "default"], folder.path);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^Re-embedded 2 memories in \.\/\.recallgraph\/memory\.db \(embedder hash-v1\)$/m);
    assert.match(text.stdout, /^ {2}default +2$/m);

    const other = await runCli(["reembed"], folder.path);
    assert.equal(other.code, 1, "another model's vectors would not fit the store's: refused, nothing written");
    assert.match(oneLineError(other), /^error: store was built with embedder "hash-v1" \(512-d\) but opened with "use-lite".*\(for this store: --embedder hash\)$/);
  });

  it("a store built by another embedder is a user error naming the flag that opens it", async () => {
    // No --embedder: the default (use-lite) does not match the hash-built store. Refused before any model loads.
    const run = await runCli(["query", "Who fixed ERR_1024?", "-n", "default"], folder.path);
    assert.equal(run.code, 1);
    assert.match(oneLineError(run), /^error: store was built with embedder "hash-v1" \(512-d\) but opened with "use-lite".*\(for this store: --embedder hash\)$/);
  });

  it("a file that is not a store is an internal error: exit 2, one line, the stack only with --verbose", async () => {
    await writeFile(path.join(folder.path, "broken.db"), "this is not a sqlite database, just text\n".repeat(100));
    const run = await runCli(["--db", "broken.db", "stats"], folder.path);
    assert.equal(run.code, 2);
    assert.match(oneLineError(run), /^error: open: "broken\.db": file is not a database \(store_failure; run with --verbose for the stack trace\)$/);
    const verbose = await runCli(["--db", "broken.db", "stats", "--verbose"], folder.path);
    assert.equal(verbose.code, 2);
    assert.match(verbose.stderr, /\n\s+at /);
  });
});
