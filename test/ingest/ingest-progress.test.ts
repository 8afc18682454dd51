/**
 * ingestFile reports the whole job: one count over every namespace per phase (model windows built,
 * entries embedded, entries stored), never restarting for each namespace.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { ingestFile, type IngestProgress } from "../../src/ingest/ingest-file.js";
import type { MemoryRecord } from "../../src/stores/port.js";
import { RecordingStore, testEmbedder } from "./helpers.js";

// The model below answers nothing usable, so every window falls back to the rules with a warning.
process.env.RECALLGRAPH_LOG_LEVEL ??= "error";

/** A LoCoMo sample of `turns` turns in one session. */
const sample = (id: string, turns: number) => ({
  sample_id: id,
  conversation: {
    speaker_a: "Ann",
    speaker_b: "Ben",
    session_1_date_time: "1:56 pm on 8 May, 2023",
    session_1: Array.from({ length: turns }, (_, i) => ({ speaker: i % 2 ? "Ben" : "Ann", dia_id: `D1:${i + 1}`, text: `Turn ${i + 1} of ${id} about item ${i}.` })),
  },
  qa: [],
});

/** A RecordingStore that records, at each report, how many entries were stored. */
class CountingStore extends RecordingStore {
  stored = 0;
  override async upsert(namespace: string, records: readonly MemoryRecord[]): Promise<void> {
    await super.upsert(namespace, records);
    this.stored += records.length;
  }
}

describe("ingest progress covers the whole job", () => {
  let folder = "";
  before(async () => {
    folder = await mkdtemp(path.join(tmpdir(), "recallgraph-progress-"));
    // 150 + 100 + 70 entries: several embedding batches of 64 each, and uneven namespaces.
    await writeFile(path.join(folder, "three.json"), JSON.stringify([sample("s1", 150), sample("s2", 100), sample("s3", 70)]));
    await writeFile(path.join(folder, "two.json"), JSON.stringify([sample("m1", 14), sample("m2", 14)]));
  });
  after(() => rm(folder, { recursive: true, force: true }));

  it("rules: one count per phase over all namespaces (built, embedded, stored); stored means written", async () => {
    const store = new CountingStore();
    const reports: (IngestProgress & { stored: number })[] = [];
    await ingestFile(path.join(folder, "three.json"), { store, embedder: testEmbedder, onProgress: (p) => reports.push({ ...p, stored: store.stored }) });
    const phases = reports.map((r) => r.phase).filter((phase, i, all) => phase !== all[i - 1]);
    assert.deepEqual(phases, ["build", "embed", "store"], "no phase comes back");
    assert.deepEqual(
      reports.filter((r) => r.phase === "build").map((r) => [r.namespace, r.done, r.total]),
      [["s1", 1, 3], ["s2", 2, 3], ["s3", 3, 3]],
      "the rules build one dialogue a step",
    );
    assert.deepEqual(new Set(reports.filter((r) => r.phase !== "build").map((r) => r.total)), new Set([320]), "one total: every namespace's entries");
    for (let i = 1; i < reports.length; i += 1) {
      const [previous, current] = [reports[i - 1], reports[i]];
      if (previous?.phase === current?.phase) assert.ok((current?.done ?? 0) >= (previous?.done ?? 0), `done never goes back within a phase (report ${i})`);
    }
    const embed = reports.filter((r) => r.phase === "embed");
    assert.ok(embed.length >= 4, `several embedding reports, got ${embed.length}`);
    assert.ok(embed.some((r) => r.namespace === "s3" && r.done > 250), "the count goes on across namespaces");
    assert.deepEqual(embed.at(-1), { phase: "embed", namespace: "s3", done: 320, total: 320, stored: 0 });
    assert.ok(embed.every((r) => r.stored === 0), "nothing is written while embedding");
    const stored = reports.filter((r) => r.phase === "store");
    assert.deepEqual(stored.map((r) => [r.namespace, r.done]), [["s1", 0], ["s1", 150], ["s2", 150], ["s2", 250], ["s3", 250], ["s3", 320]]);
    assert.ok(stored.every((r) => r.done === r.stored), "the store count is what is written");
  });

  it("JSON Lines: embedded batch by batch, then storing from 0 until all is written", async () => {
    const file = path.join(folder, "notes.jsonl");
    await writeFile(file, Array.from({ length: 200 }, (_, i) => JSON.stringify({ text: `Note ${i}` })).join("\n"));
    const store = new CountingStore();
    const reports: [string, number, number][] = [];
    await ingestFile(file, { store, embedder: testEmbedder, onProgress: (p) => reports.push([p.phase, p.done, store.stored]) });
    assert.deepEqual(reports, [["embed", 64, 0], ["embed", 128, 0], ["embed", 192, 0], ["store", 0, 0], ["store", 200, 200]]);
  });

  it("with a model: build counts the windows of every dialogue, then embed and store count every entry", async () => {
    const store = new RecordingStore();
    const reports: IngestProgress[] = [];
    const model = new FakeListChatModel({ responses: ['{"memories": []}'] });
    await ingestFile(path.join(folder, "two.json"), {
      store,
      embedder: testEmbedder,
      model,
      builder: { windowTurns: 10, overlapTurns: 2 },
      onProgress: (p) => reports.push(p),
    });
    const build = reports.filter((r) => r.phase === "build");
    // 14 turns in windows of 10 overlapping by 2: windows at turns 1 and 9, two per dialogue.
    assert.deepEqual(
      build.map((r) => [r.namespace, r.done, r.total]),
      [["m1", 1, 4], ["m1", 2, 4], ["m2", 3, 4], ["m2", 4, 4]],
    );
    const phases = reports.map((r) => r.phase).filter((phase, i, all) => phase !== all[i - 1]);
    assert.deepEqual(phases, ["build", "embed", "store"]);
    assert.deepEqual(reports.at(-1), { phase: "store", namespace: "m2", done: 28, total: 28 });
  });
});
