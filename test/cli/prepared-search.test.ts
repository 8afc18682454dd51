/**
 * `recallgraph ingest` leaves each namespace it wrote ready to search: its BM25 terms and, with an HNSW
 * index, the index, saved beside the store file and current. A one-shot command never lives long
 * enough for the background builds a first search starts, so without this every later command would
 * read the memories again. Checked by opening the file read-only (which loads but never writes) and
 * counting what it loaded, and what it had to catch up.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { openSqliteStore } from "../../src/stores/sqlite/store.js";
import { indexFolder, termsFolder } from "../../src/stores/sqlite/store-file.js";
import { createHashEmbedder } from "../../src/text/embedders/create-embedder.js";
import { runCli, temporaryFolder } from "./helpers.js";
import { IngestJsonSchema } from "./schemas.js";

const STORE = "memory.db";
const MIN_ENTRIES = 20;
const HNSW = { RECALLGRAPH_VECTOR_INDEX: "hnsw", RECALLGRAPH_HNSW_MIN_ENTRIES: String(MIN_ENTRIES) };
const TOPICS = ["kayak trip", "sourdough bake", "cello lesson", "museum visit", "garden plan", "chess club", "ramen night", "harbour walk"];

function memories(from: number, count: number): string {
  return Array.from({ length: count }, (_, offset) => {
    const n = from + offset;
    return JSON.stringify({ id: `m${n}`, text: `Note ${n}: the ${TOPICS[n % TOPICS.length]} with Ada on day ${n}.`, timestamp: `2026-03-${String(1 + (n % 28)).padStart(2, "0")}T10:00:00Z` });
  }).join("\n");
}

describe("recallgraph ingest prepares search before it exits", () => {
  let folder = { path: "", remove: async () => {} };
  const storeFile = (): string => path.join(folder.path, STORE);

  async function ingest(file: string, count: number, from: number, variables: NodeJS.ProcessEnv = HNSW, json = true) {
    await writeFile(path.join(folder.path, file), memories(from, count));
    const run = await runCli(["--embedder", "hash", "--db", STORE, "ingest", file, "--namespace", "team", ...(json ? ["--json"] : [])], folder.path, undefined, variables);
    assert.equal(run.code, 0, run.stderr);
    return run;
  }

  /** What a fresh read-only opening of the file loads, and whether it had anything to catch up. */
  async function reopened() {
    const store = await openSqliteStore({
      path: storeFile(),
      embedding: createHashEmbedder({ dimension: 512 }).spec,
      readOnly: true,
      vectorIndex: "hnsw",
      hnswMinEntries: MIN_ENTRIES,
    });
    try {
      const termsHeld = await store.buildLexicalIndex("team");
      const vectorIndex = await store.buildVectorIndex("team");
      return { termsHeld, vectorIndex, terms: store.lexicalIndexCounters(), vectors: store.vectorSearchCounters() };
    } finally {
      await store.close();
    }
  }

  before(async () => {
    folder = await temporaryFolder();
  });
  after(() => folder.remove());

  it("builds and saves the terms and the index of a new namespace, and says so", async () => {
    const run = await ingest("first.jsonl", 30, 0);
    const summary = IngestJsonSchema.parse(JSON.parse(run.stdout));
    assert.deepEqual(summary.search.namespaces, { team: { termsHeld: true, vectorIndex: "built" } });
    assert.ok(existsSync(termsFolder(storeFile())) && readdirSync(termsFolder(storeFile())).length > 0, "terms saved");
    assert.ok(existsSync(indexFolder(storeFile())) && readdirSync(indexFolder(storeFile())).length > 0, "index saved");

    const opened = await reopened();
    assert.equal(opened.termsHeld, true);
    assert.equal(opened.vectorIndex, "loaded");
    assert.deepEqual([opened.terms.loaded, opened.terms.copied], [1, 0], "terms loaded, not read from the memories");
    assert.equal(opened.vectors.built, 0, "index loaded, not built");
  });

  it("saves again what a later ingest added, so the next opening has nothing to catch up", async () => {
    const run = await ingest("second.jsonl", 10, 30, HNSW, false);
    assert.match(run.stdout, /^Vector index ready and saved in [\d.]+ s: team \(loaded\)$/m);

    const opened = await reopened();
    assert.deepEqual([opened.terms.loaded, opened.terms.copied, opened.terms.caughtUp], [1, 0, 0]);
    assert.deepEqual([opened.vectors.loaded, opened.vectors.built, opened.vectors.caughtUp], [1, 0, 0]);
  });

  it("without an index, saves the terms alone and prints no index line", async () => {
    const run = await ingest("third.jsonl", 5, 40, {}, false);
    assert.doesNotMatch(run.stdout, /Vector index/);
    const opened = await reopened();
    assert.deepEqual([opened.terms.loaded, opened.terms.caughtUp], [1, 0], "the terms saved by this ingest are current");
    assert.equal(opened.vectors.caughtUp, 1, "the index saved by the ingest before is behind by this one's memories");
  });
});
