/**
 * `recallgraph export`: a namespace's memories as JSON Lines that `ingest` reads back, so they move
 * to another store file (or store kind, or embedder) as they were: ids, times, metadata and origins.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { realpath, writeFile } from "node:fs/promises";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { MemoryEntrySchema, type MemoryEntry } from "../../src/memory/entry.js";
import { assertBuildIsCurrent, CLI_COMMAND, oneLineError, runCli, runJson, temporaryFolder } from "./helpers.js";
import { IngestJsonSchema } from "./schemas.js";

const NOTES = [
  { id: "n1", text: "Alice met Bob in Shanghai about the XYZ-100 order.", timestamp: "2026-03-10T06:30:00Z", speaker: "Alice", location: "Shanghai" },
  { id: "n2", text: "The launch review moved to Friday.", timestamp: "2026-03-11T09:00:00Z", topic: "launch", expiresAt: "2099-01-01T00:00:00Z" },
  { id: "n3", text: "Priya adopted a grey cat named Pixel.", timestamp: "2026-03-12T18:00:00Z", persons: ["Priya"] },
  { id: "n4", text: "The launch review moved to Monday.", timestamp: "2026-03-13T09:00:00Z", supersedes: ["n2"], validFrom: "2026-03-16", validUntil: "2026-03-17" },
];
/** More than one page of the store's list (1,000), so the export pages through. */
const MANY = Array.from({ length: 1_050 }, (_, i) => ({ id: `m${i}`, text: `Reading ${i} of the meter`, timestamp: 1_770_000_000_000 + i * 60_000 }));

const ListSchema = MemoryEntrySchema.array();

/** Every entry of the namespace in a store file, by id, without the times a store keeps of its own. */
async function storedEntries(db: string, namespace: string, cwd: string): Promise<Map<string, Omit<MemoryEntry, "createdAt" | "updatedAt">>> {
  const entries = new Map<string, Omit<MemoryEntry, "createdAt" | "updatedAt">>();
  let cursor: string | undefined;
  do {
    const page = (await runJson(["--db", db, "list", "-n", namespace, "--limit", "1000", ...(cursor ? ["--cursor", cursor] : [])], cwd)) as { entries: unknown; nextCursor?: string };
    for (const { createdAt: _created, updatedAt: _updated, ...entry } of ListSchema.parse(page.entries)) entries.set(entry.id, entry);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return entries;
}

async function exportLines(args: readonly string[], cwd: string): Promise<{ lines: string[]; note: string }> {
  const run = await runCli(["--db", "a.db", "export", ...args], cwd);
  assert.equal(run.code, 0, run.stderr);
  return { lines: run.stdout.split("\n").filter(Boolean), note: run.stderr.trim() };
}

describe("export", () => {
  let folder = { path: "", remove: async () => {} };
  before(async () => {
    folder = await temporaryFolder();
    await writeFile(path.join(folder.path, "notes.jsonl"), NOTES.map((note) => JSON.stringify(note)).join("\n"));
    await writeFile(path.join(folder.path, "many.jsonl"), MANY.map((note) => JSON.stringify(note)).join("\n"));
    for (const [file, namespace] of [["notes.jsonl", "team"], ["many.jsonl", "meter"]] as const) {
      const ingest = IngestJsonSchema.parse(await runJson(["--db", "a.db", "--embedder", "hash", "ingest", file, "-n", namespace], folder.path));
      assert.equal(ingest.entries, namespace === "team" ? NOTES.length : MANY.length);
    }
  });
  after(() => folder.remove());

  it("prints one JSON line per memory, which an ingest from standard input writes again as it was", async () => {
    const { lines, note } = await exportLines(["-n", "team"], folder.path);
    assert.equal(lines.length, NOTES.length);
    assert.equal(note, `exported ${NOTES.length} memories of namespace "team"`);
    const run = await runCli(["--db", "b.db", "--embedder", "hash", "ingest", "-", "-n", "team"], folder.path, `${lines.join("\n")}\n`);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(await storedEntries("b.db", "team", folder.path), await storedEntries("a.db", "team", folder.path));
  });

  it("keeps each memory's origin, so re-ingesting the source later replaces what it wrote in the new store", async () => {
    const moved = await storedEntries("b.db", "team", folder.path);
    // An ingest records the file's path with symbolic links resolved.
    assert.equal(moved.get("n1")?.source?.origin, path.join(await realpath(folder.path), "notes.jsonl"));
    // The source loses a line; ingesting it into the new store retires that memory there.
    await writeFile(path.join(folder.path, "notes.jsonl"), NOTES.slice(0, 2).map((note) => JSON.stringify(note)).join("\n"));
    const run = await runCli(["--db", "b.db", "--embedder", "hash", "ingest", "notes.jsonl", "-n", "team"], folder.path);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual([...(await storedEntries("b.db", "team", folder.path)).keys()].sort(), ["n1", "n2"]);
  });

  it("read back after one of its memories expired: refused whole, or with --skip-expired that one left out and counted", async () => {
    const { lines } = await exportLines(["-n", "team"], folder.path);
    // n2 expires in 2099; as the export reads back, it is as if that moment had passed since.
    const later = lines.map((line) => line.replace('"expiresAt":"2099-01-01T00:00:00.000Z"', '"expiresAt":"2020-01-01T00:00:00.000Z"'));
    assert.notDeepEqual(later, lines);
    const input = `${later.join("\n")}\n`;
    const refused = await runCli(["--db", "c.db", "--embedder", "hash", "ingest", "-", "-n", "team"], folder.path, input);
    assert.equal(refused.code, 1);
    assert.match(oneLineError(refused), /^error: line \d: expiresAt: /);
    const run = await runCli(["--db", "c.db", "--embedder", "hash", "ingest", "-", "-n", "team", "--skip-expired"], folder.path, input);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^Left out 1 expired memory$/m);
    const kept = await storedEntries("c.db", "team", folder.path);
    assert.deepEqual([...kept.keys()].sort(), ["n1", "n3", "n4"]);
    assert.deepEqual(kept.get("n4")?.supersedes, ["n2"], "a memory superseding one left out keeps the id as written");
  });

  it("pages through a namespace larger than one page of the store's list", async () => {
    const { lines } = await exportLines(["-n", "meter"], folder.path);
    const ids = lines.map((line) => (JSON.parse(line) as { id: string }).id);
    assert.equal(new Set(ids).size, MANY.length);
  });

  it("stops when its reader closes standard output (`| head`), and says so rather than claiming the whole namespace", async () => {
    assertBuildIsCurrent();
    const child = spawn(process.execPath, [CLI_COMMAND, "--db", "a.db", "export", "-n", "meter"], { cwd: folder.path, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    // The reader goes away before reading anything (`| head -n 0`): the first page's write already fails.
    child.stdout.destroy();
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    assert.equal(code, 0, stderr);
    const written = /^standard output was closed by its reader: stopped after writing (\d+) memories of namespace "meter"$/.exec(stderr.trim());
    assert.ok(written, stderr);
    // It stops after the page whose write failed: the first of two.
    assert.ok(Number(written[1]) > 0 && Number(written[1]) < MANY.length, stderr);
  });

  it("takes the list's filters, and an empty namespace exports nothing", async () => {
    const { lines } = await exportLines(["-n", "team", "--person", "Alice"], folder.path);
    assert.deepEqual(
      lines.map((line) => (JSON.parse(line) as { id: string }).id),
      ["n1"],
    );
    const empty = await exportLines(["-n", "nobody"], folder.path);
    assert.deepEqual(empty.lines, []);
    assert.equal(empty.note, 'exported 0 memories of namespace "nobody"');
  });

  it("refuses a store that does not exist, in one line, and without a namespace", async () => {
    const missing = await runCli(["--db", "missing.db", "export", "-n", "team"], folder.path);
    assert.equal(missing.code, 1);
    assert.match(oneLineError(missing), /no memory store at missing\.db/);
    const unnamed = await runCli(["--db", "a.db", "export"], folder.path);
    assert.equal(unnamed.code, 1);
    assert.match(unnamed.stderr, /--namespace/);
  });
});
