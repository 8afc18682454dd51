/**
 * Memories that change on the command line: JSON Lines carry `supersedes` and validity, `query` puts
 * the present first and says so (in `--json` provenance and on the terminal), and `--as-of` answers as
 * things stood then.
 */
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { oneLineError, runCli, runJson, temporaryFolder } from "./helpers.js";

const NOTES = [
  { id: "home-1", text: "Dana lives in Lund, in a flat near the station.", timestamp: "2025-01-10T09:00:00Z", persons: ["Dana"] },
  { id: "visa", text: "Dana has a work visa for Sweden.", timestamp: "2025-01-05T09:00:00Z", persons: ["Dana"], validUntil: "2025-12-31" },
  { id: "home-2", text: "Dana moved to Malmö and lives by the harbour now.", timestamp: "2025-06-01T09:00:00Z", persons: ["Dana"], supersedes: ["home-1"] },
  { id: "cat", text: "Dana has a grey cat called Pixel who lives indoors.", timestamp: "2025-03-01T09:00:00Z", persons: ["Dana"] },
];

interface JsonResult {
  id: string;
  provenance: { supersededBy?: string[]; supersedes?: string[]; history?: string };
}
const resultsOf = (value: unknown): JsonResult[] => (value as { results: JsonResult[] }).results;

describe("supersession on the command line", () => {
  let folder = { path: "", remove: async () => {} };
  const query = (...args: string[]) => runJson(["--embedder", "hash", "query", "Where is Dana's flat?", "-n", "home", "--now", "2026-05-01", ...args], folder.path);
  before(async () => {
    folder = await temporaryFolder();
    await writeFile(path.join(folder.path, "notes.jsonl"), NOTES.map((note) => JSON.stringify(note)).join("\n"));
    await runJson(["--embedder", "hash", "ingest", "notes.jsonl", "-n", "home"], folder.path);
  });
  after(() => folder.remove());

  it("query --json puts the current memory first and gives each hit's supersessions", async () => {
    const results = resultsOf(await query("--json"));
    const order = results.map((result) => result.id);
    assert.ok(order.indexOf("home-2") + 1 === order.indexOf("home-1"), order.join(","));
    const old = results.find((result) => result.id === "home-1");
    assert.deepEqual([old?.provenance.supersededBy, old?.provenance.history], [["home-2"], "superseded"]);
    assert.deepEqual(results.find((result) => result.id === "home-2")?.provenance.supersedes, ["home-1"]);
    assert.equal(results.find((result) => result.id === "visa")?.provenance.history, "validity ended");
  });

  it("query --as-of answers as things stood then, and the terminal says what is history", async () => {
    const then = resultsOf(await query("--json", "--as-of", "2025-03-01"));
    assert.ok(!then.some((result) => result.id === "home-2"), "said after --as-of");
    const old = then.find((result) => result.id === "home-1");
    assert.ok(old, then.map((result) => result.id).join(","));
    assert.deepEqual([old.provenance.supersededBy, old.provenance.history], [undefined, undefined], "current as of then");
    const run = await runCli(["--embedder", "hash", "query", "Where is Dana's flat?", "-n", "home", "--now", "2026-05-01"], folder.path);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /home-1 .*history \(superseded by home-2\)/);
    assert.match(run.stdout, /home-2 .*supersedes home-1/);
  });

  it("refuses an --as-of that is no date, naming the flag", async () => {
    const run = await runCli(["--embedder", "hash", "query", "x", "-n", "home", "--as-of", "2025-02-30"], folder.path);
    assert.equal(run.code, 1);
    assert.match(oneLineError(run), /--as-of/);
  });
});
