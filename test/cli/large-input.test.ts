/**
 * An ingest holds its whole input in memory (it is checked and embedded before anything is written, all
 * or nothing), so input beyond what one ingest takes is refused before it is read, in one line naming
 * the limit and how to split it, instead of the out-of-heap crash a 200 MB file used to end in.
 */
import assert from "node:assert/strict";
import { open, writeFile } from "node:fs/promises";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { MAX_INGEST_BYTES } from "../../src/ingest/input-limits.js";
import { MAX_IDS_PER_CALL } from "../../src/stores/validation.js";
import { oneLineError, runCli, temporaryFolder } from "./helpers.js";

describe("input larger than one ingest takes", () => {
  let folder: Awaited<ReturnType<typeof temporaryFolder>>;
  const db = () => path.join(folder.path, "memory.db");

  before(async () => {
    folder = await temporaryFolder();
  });
  after(() => folder?.remove());

  it("refuses a file over the byte limit before reading it", async () => {
    const file = path.join(folder.path, "huge.jsonl");
    // A sparse file: its size is what is checked, no byte of it is read.
    const handle = await open(file, "w");
    await handle.truncate(MAX_INGEST_BYTES + 1);
    await handle.close();
    const run = await runCli(["--db", db(), "--embedder", "hash", "ingest", file, "--namespace", "me"], folder.path);
    assert.equal(run.code, 1, run.stderr);
    assert.match(oneLineError(run), /huge\.jsonl is 257 MiB; one ingest reads at most 256 MiB, all or nothing: split it \(JSON Lines: split -l 100000 FILE part-\)/);
  });

  it("refuses JSON Lines with more memories than one ingest writes, before parsing any", async () => {
    const file = path.join(folder.path, "many.jsonl");
    await writeFile(file, `${'{"text":"a"}\n'.repeat(MAX_IDS_PER_CALL)}not even json\n`);
    const run = await runCli(["--db", db(), "--embedder", "hash", "ingest", file, "--namespace", "me"], folder.path);
    assert.equal(run.code, 1, run.stderr);
    assert.match(oneLineError(run), new RegExp(`holds ${MAX_IDS_PER_CALL + 1} memories; one ingest writes at most ${MAX_IDS_PER_CALL}, all or nothing`));
  });
});
