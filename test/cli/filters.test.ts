import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { oneLineError, runCli, runJson, temporaryFolder } from "./helpers.js";

const NOTES = [
  { id: "n1", text: "Alice Chen met Wang Lei in Shanghai about the XYZ-100 order.", persons: ["Alice Chen", "Wang Lei"], location: "Shanghai", timestamp: "2026-03-10T06:30:00Z" },
  { id: "n2", text: "Bob Müller fixed ERR_1024 in firmware 2.3.1.", persons: ["Bob Müller"], entities: ["ERR_1024"], timestamp: "2026-03-02T12:00:00Z" },
  { id: "n3", text: "Alice Chen reviewed the ERR_1024 fix with Bob Müller.", persons: ["Alice Chen", "Bob Müller"], entities: ["ERR_1024"], timestamp: "2026-03-04T09:00:00Z" },
  { id: "old", text: "A reminder that has expired.", timestamp: "2026-03-01T09:00:00Z", expiresAt: "2099-01-01T00:00:00Z" },
];

const idsOf = (value: unknown, key: "results" | "entries") => ((value as Record<string, Array<{ id: string }>>)[key] ?? []).map((entry) => entry.id);

describe("filters, list and prune on the command line", () => {
  let folder = { path: "", remove: async () => {} };
  before(async () => {
    folder = await temporaryFolder();
    await writeFile(path.join(folder.path, "notes.jsonl"), NOTES.map((entry) => JSON.stringify(entry)).join("\n"));
    await runJson(["--embedder", "hash", "ingest", "notes.jsonl", "--namespace", "team"], folder.path);
  });
  after(() => folder.remove());

  it("query keeps only what meets --person, --entity, --since and --until", async () => {
    const byPerson = await runJson(["--embedder", "hash", "query", "What happened with ERR_1024?", "-n", "team", "--person", "Alice Chen"], folder.path);
    assert.equal(idsOf(byPerson, "results")[0], "n3");
    assert.ok(!idsOf(byPerson, "results").includes("n2"), "n2 does not name Alice Chen");
    const byEntity = await runJson(["--embedder", "hash", "query", "Who worked on the firmware fix?", "-n", "team", "--entity", "ERR_1024"], folder.path);
    assert.deepEqual(idsOf(byEntity, "results").sort(), ["n2", "n3"]);
    const byTime = await runJson(["--embedder", "hash", "query", "ERR_1024", "-n", "team", "--since", "2026-03-02", "--until", "2026-03-03"], folder.path);
    assert.deepEqual(idsOf(byTime, "results"), ["n2"]);
    const nobody = await runJson(["--embedder", "hash", "query", "ERR_1024", "-n", "team", "--person", "Nobody"], folder.path);
    assert.deepEqual(idsOf(nobody, "results"), []);
  });

  it("refuses --until before --since naming the flag", async () => {
    const run = await runCli(["--embedder", "hash", "query", "x", "-n", "team", "--since", "2026-03-05", "--until", "2026-03-01"], folder.path);
    assert.equal(run.code, 1);
    assert.match(oneLineError(run), /^error: --until: must be after --since/);
  });

  it("lists newest first, a page at a time, with filters", async () => {
    const first = (await runJson(["list", "-n", "team", "--limit", "2"], folder.path)) as { entries: Array<{ id: string }>; nextCursor?: string };
    assert.deepEqual(first.entries.map((e) => e.id), ["n1", "n3"]);
    assert.ok(first.nextCursor);
    const second = await runJson(["list", "-n", "team", "--limit", "2", "--cursor", first.nextCursor ?? ""], folder.path);
    assert.deepEqual(idsOf(second, "entries"), ["n2", "old"]);
    assert.deepEqual(idsOf(await runJson(["list", "-n", "team", "--entity", "ERR_1024"], folder.path), "entries"), ["n3", "n2"]);
    const text = await runCli(["list", "-n", "team", "--person", "Wang Lei"], folder.path);
    assert.equal(text.code, 0);
    assert.match(text.stdout, /n1 {2}Alice Chen met Wang Lei/);
  });

  it("prune deletes nothing that has not expired", async () => {
    assert.deepEqual(await runJson(["prune"], folder.path), { deleted: 0 });
    assert.deepEqual(await runJson(["prune", "-n", "team"], folder.path), { namespace: "team", deleted: 0 });
  });
});
