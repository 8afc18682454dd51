/**
 * The command line on a store it must not or cannot write: `--read-only` answers reading commands and
 * refuses writing ones as a user error (exit 1, one line), and reading commands open a store file this
 * process cannot write read-only by themselves. The file's bytes never change. The permission cases
 * need a process that chmod binds: as root they are skipped, saying so, and `--read-only` stands in.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { chmodSync, existsSync, readdirSync, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { oneLineError, runCli, runJson, temporaryFolder } from "./helpers.js";
import { QueryJsonSchema, StatsJsonSchema } from "./schemas.js";

const TEAM = [
  { id: "t1", text: "Alice Chen met Wang Lei in Shanghai on 10 March 2026 about the XYZ-100 order.", timestamp: "2026-03-10T06:30:00Z" },
  { id: "t2", text: "Bob Müller fixed ERR_1024 in firmware 2.3.1 on 2 March 2026.", timestamp: "2026-03-02T12:00:00Z" },
  { id: "t3", text: "Error code ERR_2048 means the Wi-Fi provisioning timed out.", timestamp: "2026-03-05T08:45:00Z" },
];
const STORE = "store/memory.db";
const ROOT_SKIP =
  process.getuid?.() === 0 ? "running as root: chmod does not stop root from writing, so the --read-only cases stand in for it" : false;
if (ROOT_SKIP) console.log(`# SKIP permission cases: ${ROOT_SKIP}`);

describe("recallgraph on a read-only store", () => {
  let folder = { path: "", remove: async () => {} };
  const storeFile = (): string => path.join(folder.path, STORE);
  const sha1 = (): string => createHash("sha1").update(readFileSync(storeFile())).digest("hex");
  const query = async (...flags: string[]) =>
    QueryJsonSchema.parse(await runJson(["--embedder", "hash", "--db", STORE, ...flags, "query", "What does ERR_2048 mean?", "-n", "team"], folder.path));
  const entries = async (): Promise<number> => StatsJsonSchema.parse(await runJson(["--db", STORE, "stats"], folder.path)).namespaces.team?.entries ?? 0;

  before(async () => {
    folder = await temporaryFolder();
    await writeFile(path.join(folder.path, "team.jsonl"), TEAM.map((entry) => JSON.stringify(entry)).join("\n"));
    await runJson(["--embedder", "hash", "--db", STORE, "ingest", "team.jsonl", "--namespace", "team"], folder.path);
  });
  after(async () => {
    // A folder a failed test left read-only must be writable again to be removed.
    if (existsSync(path.dirname(storeFile()))) chmodSync(path.dirname(storeFile()), 0o755);
    await folder.remove();
  });

  it("--read-only answers query, list and stats, and leaves the file's bytes, and its folder, unchanged", async () => {
    const bytes = sha1();
    const besideBefore = readdirSync(path.dirname(storeFile()));
    assert.deepEqual(besideBefore, ["memory.db", "memory.db.terms"], "no writer has the store open (ingest saved the terms it read)");
    const answer = await query("--read-only");
    assert.equal(answer.results[0]?.id, "t3");
    const listed = await runJson(["--db", STORE, "--read-only", "list", "-n", "team"], folder.path);
    assert.deepEqual((listed as { entries: { id: string }[] }).entries.map((entry) => entry.id), ["t1", "t3", "t2"]);
    const stats = await runJson(["--db", STORE, "--read-only", "stats"], folder.path);
    assert.equal((stats as { readOnly?: unknown }).readOnly, true);
    const text = await runCli(["--db", STORE, "--read-only", "stats"], folder.path);
    assert.match(text.stdout, /^store {5}store\/memory\.db \(sqlite, read-only, [\d.]+ KiB\)$/m);
    assert.equal(sha1(), bytes);
    assert.deepEqual(readdirSync(path.dirname(storeFile())), besideBefore, "no -wal or -shm left beside it");
  });

  it("--read-only refuses delete, prune and ingest as a user error naming the operation, and nothing changes", async () => {
    const bytes = sha1();
    const refusals: Array<[args: string[], operation: string]> = [
      [["delete", "-n", "team", "--id", "t1"], "delete"],
      [["delete", "-n", "team", "--all"], "clearNamespace"],
      [["prune"], "deleteExpired"],
      [["--embedder", "hash", "ingest", "team.jsonl", "-n", "other"], "upsert"],
    ];
    for (const [args, operation] of refusals) {
      const run = await runCli(["--db", STORE, "--read-only", ...args], folder.path);
      assert.equal(run.code, 1, `${args.join(" ")}: ${run.stderr}`);
      assert.equal(oneLineError(run), `error: ${operation}: the store is open read-only, nothing was written`);
    }
    assert.equal(sha1(), bytes);
    assert.equal(await entries(), 3);
  });

  it("--read-only never creates a store", async () => {
    const run = await runCli(["--embedder", "hash", "--db", "absent/memory.db", "--read-only", "ingest", "team.jsonl"], folder.path);
    assert.equal(run.code, 1, run.stderr);
    assert.match(oneLineError(run), /^error: open: no sqlite store at "absent\/memory\.db", and a read-only store is never created$/);
    assert.equal(existsSync(path.join(folder.path, "absent")), false);
  });

  it("a chmod-444 store answers query, list and stats unasked, refuses writes as a user error, and keeps its bytes", { skip: ROOT_SKIP }, async () => {
    chmodSync(storeFile(), 0o444);
    try {
      const bytes = sha1();
      const besideBefore = readdirSync(path.dirname(storeFile()));
      assert.equal((await query()).results[0]?.id, "t3");
      assert.equal(await entries(), 3);
      const listed = await runCli(["--db", STORE, "list", "-n", "team"], folder.path);
      assert.equal(listed.code, 0, listed.stderr);
      assert.match(listed.stdout, /t1 {2}Alice Chen met Wang Lei/);
      const run = await runCli(["--db", STORE, "delete", "-n", "team", "--id", "t1"], folder.path);
      assert.equal(run.code, 1, run.stderr);
      assert.match(oneLineError(run), /^error: open: "store\/memory\.db" cannot be written by this process/);
      assert.equal(sha1(), bytes);
      assert.deepEqual(readdirSync(path.dirname(storeFile())), besideBefore, "no -shm left to block writers once it is writable again");
    } finally {
      chmodSync(storeFile(), 0o644);
    }
  });

  it("a store in a read-only folder answers query unasked", { skip: ROOT_SKIP }, async () => {
    chmodSync(path.dirname(storeFile()), 0o555);
    try {
      const bytes = sha1();
      assert.equal((await query()).results[0]?.id, "t3");
      assert.equal(sha1(), bytes);
    } finally {
      chmodSync(path.dirname(storeFile()), 0o755);
    }
  });
});
