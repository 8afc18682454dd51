/**
 * Crash safety of the sqlite store: a writer killed with SIGKILL at random moments (mid-transaction
 * included) leaves a file that opens, passes SQLite's integrity check, and holds each batch whole or
 * not at all, in every index, with every batch the writer saw committed present.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import Database from "better-sqlite3";
import * as sqliteVec from "sqlite-vec";
import { createEmbedder } from "../../src/text/embedders/create-embedder.js";
import { openSqliteStore } from "../../src/stores/sqlite/store.js";
import { BATCH, batchIds, batchText, CRASH_NAMESPACE } from "../support/crash-writer.js";

const tempDir = mkdtempSync(join(tmpdir(), "recallgraph-crash-"));
after(() => rmSync(tempDir, { recursive: true, force: true }));
const WRITER = new URL("../support/crash-writer.ts", import.meta.url).pathname;
const KILLS = 4;

/**
 * Starts the writer at batch `first`, lets it commit `commits` batches, then kills it after a further
 * random delay; resolves with the last batch it reported.
 */
function runAndKill(path: string, first: number, commits: number, extraMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", WRITER, path, String(first)], { stdio: ["ignore", "pipe", "pipe"] });
    let last = first - 1;
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.on("data", (chunk: Buffer) => {
      for (const match of chunk.toString().matchAll(/committed (\d+)/g)) last = Math.max(last, Number(match[1]));
      if (last + 1 - first === commits) setTimeout(() => child.kill("SIGKILL"), extraMs);
    });
    child.on("exit", (code, signal) => {
      if (signal === "SIGKILL") resolve(last);
      else reject(new Error(`the writer exited on its own (code ${code}): ${stderr}`));
    });
  });
}

/** What the file holds, read on a fresh connection after the crash. */
function inspect(path: string): { integrity: string; counts: Record<string, number>; textsById: Map<string, string> } {
  const db = new Database(path);
  sqliteVec.load(db);
  try {
    const count = (sql: string): number => db.prepare(sql).pluck().get() as number;
    const rows = db.prepare("SELECT entry_json FROM entry_bodies").pluck().all() as string[];
    const textsById = new Map(rows.map((json) => JSON.parse(json) as { id: string; text: string }).map((entry) => [entry.id, entry.text]));
    return {
      integrity: db.pragma("integrity_check", { simple: true }) as string,
      counts: {
        entries: count("SELECT count(*) FROM entries"),
        bodies: count("SELECT count(*) FROM entry_bodies"),
        terms: count("SELECT count(*) FROM entry_terms_docsize"),
        vectors: count("SELECT count(*) FROM entry_vectors_rowids"),
        names: count("SELECT count(DISTINCT entry_rowid) FROM entry_names"),
      },
      textsById,
    };
  } finally {
    db.close();
  }
}

/** The one batch whose writes the shared ids carry, checking they all agree. */
function batchOfSharedIds(textsById: Map<string, string>): number {
  const batches = new Set(batchIds(0).slice(0, BATCH / 2).map((id) => Number(/^batch (\d+)/.exec(textsById.get(id) ?? "")?.[1])));
  assert.equal(batches.size, 1, `the shared ids were written by one batch, not ${[...batches].join(", ")}`);
  return [...batches][0] ?? Number.NaN;
}

describe("sqlite store under SIGKILL", () => {
  it("keeps every committed batch whole, and no part of the one it was killed in", { timeout: 120_000 }, async () => {
    const path = join(tempDir, "crash.db");
    let first = 0;
    for (let kill = 0; kill < KILLS; kill += 1) {
      // Each run numbers its batches after the last one's; its batches replace the shared ids, so the
      // newest batch on file is the one to compare with what this run saw committed.
      const lastCommitted = await runAndKill(path, first, 1 + Math.floor(Math.random() * 3), Math.floor(Math.random() * 60));
      const { integrity, counts, textsById } = inspect(path);
      assert.equal(integrity, "ok");
      assert.equal(counts.bodies, counts.entries, "every entry has its body");
      assert.equal(counts.terms, counts.entries, "every entry is in the BM25 index");
      assert.equal(counts.vectors, counts.entries, "every entry is in the vector index");
      assert.equal(counts.names, counts.entries, "every entry is in the name index");
      const newest = batchOfSharedIds(textsById);
      assert.ok(newest === lastCommitted || newest === lastCommitted + 1, `the file holds batch ${newest}; the writer saw ${lastCommitted} committed`);
      for (let n = 0; n <= newest; n += 1) {
        const own = batchIds(n).slice(BATCH / 2);
        const present = own.filter((id) => textsById.has(id)).length;
        assert.equal(present, own.length, `batch ${n} is whole`);
      }
      assert.ok(
        batchIds(newest + 1).slice(BATCH / 2).every((id) => !textsById.has(id)),
        "nothing of the batch after the newest",
      );
      first = newest + 1;
    }
    // The store still opens through the adapter and finds what the last batch wrote.
    const embedder = createEmbedder({ provider: "hash", dimension: 64 });
    const store = await openSqliteStore({ path, embedding: embedder.spec });
    try {
      const { textsById } = inspect(path);
      const newest = batchOfSharedIds(textsById);
      const hits = await store.lexicalSearch(CRASH_NAMESPACE, `quorum${newest}`, { k: 5 });
      assert.ok(hits.length > 0 && hits.every((hit) => hit.entry.text.includes(`quorum${newest}`)));
      const [vector] = await embedder.embeddings.embedDocuments([batchText(newest, 0)]);
      const dense = await store.denseSearch(CRASH_NAMESPACE, vector ?? [], { k: 1 });
      assert.equal(dense[0]?.entry.id, "shared-0");
    } finally {
      await store.close();
    }
  });
});
