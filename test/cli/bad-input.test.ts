import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { oneLineError, runCli, runJson, temporaryFolder } from "./helpers.js";
import { StatsJsonSchema } from "./schemas.js";

/** Bad files are refused whole: exit 1, one line naming the line or field, and the store unchanged. */
describe("ingest refuses bad files and writes nothing", () => {
  let folder = { path: "", remove: async () => {} };
  const files: Record<string, string> = {
    "good.jsonl": '{"id": "m1", "text": "Alice met Bob in Berlin."}\n{"id": "m2", "text": "Bob fixed ERR_1024."}\n',
    "malformed.jsonl": '{"text": "Carol joined the team."}\n{"text": "Dave left\n',
    "wrong-field.jsonl": '{"text": "Carol joined the team."}\n{"text": "Erin visited Lisbon.", "persons": "Erin"}\n',
    "unknown-field.jsonl": '{"text": "Carol joined the team.", "mood": "glad"}\n',
    "empty.jsonl": "",
    "blank-lines.jsonl": "\n\n  \n",
    "malformed.json": '[{"sample_id": "c1",\n  "conversation": }]',
    "wrong-schema.json": '[{"sample_id": "c1", "conversation": {"speaker_a": "Ann"}}]',
    "bad-date.json": JSON.stringify([
      { sample_id: "c1", conversation: { speaker_a: "Ann", speaker_b: "Ben", session_1_date_time: "someday", session_1: [{ speaker: "Ann", dia_id: "D1:1", text: "Hi" }] } },
    ]),
  };
  const cases: Array<[file: string, message: RegExp]> = [
    ["malformed.jsonl", /^error: line 2: not valid JSON/],
    ["wrong-field.jsonl", /^error: line 2: persons: /],
    ["unknown-field.jsonl", /^error: line 1: .*mood/],
    ["empty.jsonl", /^error: .*empty\.jsonl is empty$/],
    ["blank-lines.jsonl", /^error: .*is empty$/],
    ["malformed.json", /^error: line 2: not valid JSON/],
    ["wrong-schema.json", /^error: 0\.conversation\.speaker_b: /],
    ["bad-date.json", /^error: c1\.conversation\.session_1_date_time: expected a date/],
  ];
  const db = () => path.join(folder.path, "memory.db");
  const storeNamespaces = async () => StatsJsonSchema.parse(await runJson(["--db", db(), "stats"], folder.path)).namespaces;

  before(async () => {
    folder = await temporaryFolder();
    for (const [name, content] of Object.entries(files)) await writeFile(path.join(folder.path, name), content);
    const run = await runCli(["--db", db(), "--embedder", "hash", "ingest", "good.jsonl", "--namespace", "team"], folder.path);
    assert.equal(run.code, 0, run.stderr);
  });
  after(() => folder.remove());

  cases.forEach(([file, message], index) => {
    // Half into the namespace that already holds memories, half into a new one: neither may change.
    const namespace = index % 2 === 0 ? "team" : "fresh";
    it(`${file} into "${namespace}": exit 1, the message names where, nothing written`, async () => {
      const run = await runCli(["--db", db(), "--embedder", "hash", "ingest", file, "--namespace", namespace], folder.path);
      assert.equal(run.code, 1, `${file}: ${run.stderr}`);
      assert.match(oneLineError(run), message);
      assert.equal(run.stdout, "");
    });
  });

  it("after all of them the store holds exactly what the good file wrote", async () => {
    assert.deepEqual(await storeNamespaces(), { team: { entries: 2 } });
  });

  const yearTenThousand = async (): Promise<string> => {
    const lines = Array.from({ length: 300 }, (_, i) => JSON.stringify({ text: `Note ${i + 1}`, ...(i + 1 === 250 ? { timestamp: 253_402_300_800_000 } : {}) }));
    await writeFile(path.join(folder.path, "year-10000.jsonl"), `${lines.join("\n")}\n`);
    return "year-10000.jsonl";
  };

  it("a file failing at line 250 of 300 exits 1, names the line and field, and writes nothing", async () => {
    const file = await yearTenThousand();
    const run = await runCli(["--db", db(), "--embedder", "hash", "ingest", file, "--namespace", "team"], folder.path);
    assert.equal(run.code, 1, run.stderr);
    assert.match(oneLineError(run), /^error: line 250: timestamp: timestamp must be in the years 0001-9999$/);
    assert.deepEqual(await storeNamespaces(), { team: { entries: 2 } });
  });

  it(
    "a failing ingest into a store that did not exist creates no store file",
    async () => {
      const fresh = path.join(folder.path, "fresh.db");
      const run = await runCli(["--db", fresh, "--embedder", "hash", "ingest", await yearTenThousand()], folder.path);
      assert.equal(run.code, 1, run.stderr);
      assert.equal(existsSync(fresh), false, "no store file was created");
    },
  );

  it("a missing file and an undetectable format are user errors too", async () => {
    await writeFile(path.join(folder.path, "notes.csv"), "a,b\n1,2\n");
    const missing = await runCli(["--db", db(), "--embedder", "hash", "ingest", "nowhere.jsonl"], folder.path);
    assert.equal(missing.code, 1);
    assert.match(oneLineError(missing), /no such file or folder: nowhere\.jsonl/);
    const unknown = await runCli(["--db", db(), "--embedder", "hash", "ingest", "notes.csv"], folder.path);
    assert.equal(unknown.code, 1);
    assert.match(oneLineError(unknown), /cannot tell the format of notes\.csv; pass one of/);
    assert.deepEqual(await storeNamespaces(), { team: { entries: 2 } });
  });

  it("--verbose adds the stack trace to a user error", async () => {
    const run = await runCli(["--db", db(), "--embedder", "hash", "ingest", "malformed.jsonl", "--verbose"], folder.path);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /^error: line 2: not valid JSON/);
    assert.match(run.stderr, /\n\s+at /, "a stack frame");
  });
});
