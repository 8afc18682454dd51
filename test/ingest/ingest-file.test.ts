import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { detectFormat, ingestFile, type IngestProgress } from "../../src/ingest/ingest-file.js";
import { ValidationError } from "../../src/core/errors.js";
import { RecordingStore, testEmbedder } from "./helpers.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const LOCOMO_PATH = path.resolve(ROOT, "../shared/data/locomo/locomo10.json");
const DEMO_PATH = path.join(ROOT, "samples/demo-memory.jsonl");

describe("ingestFile", () => {
  let folder = "";
  const file = (name: string) => path.join(folder, name);
  before(async () => {
    folder = await mkdtemp(path.join(tmpdir(), "recallgraph-ingest-"));
    await writeFile(file("good.jsonl"), '{"text": "Alice met Bob in Berlin."}\n{"text": "Bob fixed ERR_1024.", "id": "m2"}\n');
    await writeFile(file("bad.jsonl"), '{"text": "Alice met Bob."}\n{"text": "ok"}\n{"text": ""}\n');
    await writeFile(file("empty.jsonl"), "");
    await writeFile(file("broken.json"), '[{"sample_id": "c1",\n  "conversation": }]');
    await writeFile(file("wrong.json"), '[{"sample_id": "c1", "conversation": {"speaker_a": "A"}}]');
    await writeFile(
      file("dialogue.json"),
      JSON.stringify({ turns: [{ turnId: "t1", speaker: "Ann", text: "We launch XYZ-100 tomorrow.", time: "2026-03-10T09:00:00Z" }] }),
    );
    await writeFile(file("notes.md"), "# Notes\n\nSome text.");
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it("detects the format from the extension and the content", async () => {
    assert.equal(await detectFormat(file("good.jsonl")), "jsonl");
    assert.equal(await detectFormat(file("dialogue.json")), "dialogue");
    assert.equal(await detectFormat(file("notes.md")), "docs");
    assert.equal(await detectFormat(folder), "docs");
    assert.equal(await detectFormat(file("wrong.json")), "locomo");
  });

  it("writes JSON Lines and reports entries per namespace", async () => {
    const store = new RecordingStore();
    const progress: IngestProgress[] = [];
    const summary = await ingestFile(file("good.jsonl"), { store, embedder: testEmbedder, namespace: "team", onProgress: (p) => progress.push(p) });
    assert.deepEqual(summary.namespaces, { team: 2 });
    assert.equal(summary.entries, 2);
    assert.ok(summary.seconds >= 0);
    assert.deepEqual(progress.slice(-2), [
      { phase: "store", namespace: "team", done: 0, total: 2 },
      { phase: "store", namespace: "team", done: 2, total: 2 },
    ]);
    await ingestFile(file("good.jsonl"), { store, embedder: testEmbedder, namespace: "team" });
    assert.equal(store.all("team").length, 2, "re-ingest replaces");
  });

  it("bad files are ValidationErrors naming the line or field, and write nothing", async () => {
    const cases: [string, RegExp][] = [
      ["bad.jsonl", /^line 3: text: text must not be empty$/],
      ["empty.jsonl", /is empty$/],
      ["broken.json", /^line 2: not valid JSON/],
      ["wrong.json", /^0\.conversation\.speaker_b: /],
      ["missing.jsonl", /no such file/],
    ];
    for (const [name, message] of cases) {
      const store = new RecordingStore();
      await assert.rejects(
        ingestFile(file(name), { store, embedder: testEmbedder }),
        (error: unknown) => error instanceof ValidationError && message.test(error.message),
        name,
      );
      assert.equal(store.upserts, 0, `${name}: nothing written`);
    }
  });

  it("refuses a memory that has expired, or with skipExpired leaves it out and counts it", async () => {
    const now = Date.parse("2026-06-01T00:00:00Z");
    const text = [
      { id: "live", text: "The badge office moved to floor 3.", expiresAt: "2026-07-01T00:00:00Z" },
      { id: "gone", text: "The lift is out of order today.", expiresAt: "2026-05-31T23:59:59Z" },
      { id: "also-gone", text: "Parking is closed until noon.", expiresAt: now },
      { id: "kept", text: "Alice leads the launch review." },
    ]
      .map((line) => JSON.stringify(line))
      .join("\n");
    const refused = new RecordingStore();
    await assert.rejects(
      ingestFile({ text }, { store: refused, embedder: testEmbedder, namespace: "office", now }),
      (error: unknown) => error instanceof ValidationError && /^line 2: expiresAt: /.test(error.message),
    );
    assert.equal(refused.upserts, 0);

    const store = new RecordingStore();
    const summary = await ingestFile({ text }, { store, embedder: testEmbedder, namespace: "office", now, skipExpired: true });
    assert.deepEqual([summary.entries, summary.expired], [2, 2]);
    assert.deepEqual(store.all("office").map((entry) => entry.id).sort(), ["kept", "live"]);
    // The count is of this ingest alone: a plain one leaves nothing out.
    assert.equal((await ingestFile(file("good.jsonl"), { store, embedder: testEmbedder, namespace: "team" })).expired, 0);
    await assert.rejects(
      ingestFile(file("dialogue.json"), { store, embedder: testEmbedder, skipExpired: true }),
      (error: unknown) => error instanceof ValidationError && error.field === "skipExpired" && /JSON Lines/.test(error.message),
    );
  });

  it("ingests a dialogue file with the rule builder", async () => {
    const store = new RecordingStore();
    const summary = await ingestFile(file("dialogue.json"), { store, embedder: testEmbedder });
    assert.deepEqual(summary.namespaces, { default: 1 });
    assert.match(store.all("default")[0]?.text ?? "", /^Ann said: We launch XYZ-100 11 March 2026\.$|^Ann said: We launch XYZ-100 .*11 March 2026/);
  });

  it("ingests the shipped demo memory", { skip: existsSync(DEMO_PATH) ? false : "samples/demo-memory.jsonl missing" }, async () => {
    const store = new RecordingStore();
    const summary = await ingestFile(DEMO_PATH, { store, embedder: testEmbedder, namespace: "demo" });
    assert.ok(summary.entries >= 40);
    const chinese = store.all("demo").filter((entry) => /\p{Script=Han}/u.test(entry.text));
    assert.ok(chinese.length >= 5);
    assert.ok(store.all("demo").every((entry) => entry.keywords.length > 0));
  });

  it(
    "ingests LoCoMo: one namespace per sample, --namespace only for one selected sample",
    { skip: existsSync(LOCOMO_PATH) ? false : `LoCoMo data not found at ${LOCOMO_PATH}` },
    async () => {
      const store = new RecordingStore();
      const summary = await ingestFile(LOCOMO_PATH, { store, embedder: testEmbedder, conversations: ["conv-26", "conv-30"] });
      assert.deepEqual(summary.namespaces, { "conv-26": 419, "conv-30": 369 });
      const entry = store.all("conv-26").find((e) => e.source?.turnIds?.[0] === "D1:3");
      assert.match(entry?.text ?? "", /^Caroline said: I went to a LGBTQ support group .*7 May 2023/);
      await assert.rejects(
        ingestFile(LOCOMO_PATH, { store, embedder: testEmbedder, namespace: "x", conversations: ["conv-26", "conv-30"] }),
        /namespace: the file holds 2 conversations/,
      );
      await assert.rejects(ingestFile(LOCOMO_PATH, { store, embedder: testEmbedder, conversations: ["conv-0"] }), /conversations: not in the file: conv-0/);
      const one = await ingestFile(LOCOMO_PATH, { store, embedder: testEmbedder, namespace: "x", conversations: ["conv-30"] });
      assert.deepEqual(one.namespaces, { x: 369 });
    },
  );
});
