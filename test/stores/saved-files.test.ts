/**
 * Files saved beside a sqlite store (BM25 terms, the HNSW index) when several processes save them: a
 * save never makes an older state of the store current, it replaces files only under the store
 * file's write lock, and it leaves another process's save under way alone.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import Database from "better-sqlite3";
import { StoreError } from "../../src/core/errors.js";
import { normalizeEntry } from "../../src/memory/entry.js";
import type { MemoryRecord } from "../../src/stores/port.js";
import { saveCurrent, savedFilesLock, type SavedFilesLock, type SavedState } from "../../src/stores/sqlite/saved-files.js";
import { loadTerms, saveTerms } from "../../src/stores/sqlite/saved-terms.js";
import { termsFolder } from "../../src/stores/sqlite/store-file.js";
import { openSqliteStore } from "../../src/stores/sqlite/store.js";
import { CONTRACT_EMBEDDING } from "../contract/memory-store.contract.js";

const tempDir = mkdtempSync(join(tmpdir(), "recallgraph-saved-files-"));
after(() => rmSync(tempDir, { recursive: true, force: true }));

/** A lock for the folder-level cases, where no other process runs. */
const unlocked: SavedFilesLock = (replace) => replace();

function save(folder: string, state: SavedState, text: string): void {
  saveCurrent(folder, "ns", state.generation, "terms", Buffer.from(text), ({ file, sha256 }) => ({ ...state, file, sha256 }), unlocked);
}

const manifestOf = (folder: string) => {
  const name = readdirSync(folder).find((file) => file.endsWith(".json"));
  assert.ok(name, `a manifest in ${folder}`);
  return JSON.parse(readFileSync(join(folder, name), "utf8")) as SavedState & { file: string };
};

describe("a namespace's saved file", () => {
  it("is replaced by the same or a later generation of the store, never by an earlier one", () => {
    const folder = join(tempDir, "generations");
    save(folder, { storeId: "s1", generation: 5 }, "five");
    save(folder, { storeId: "s1", generation: 4 }, "four, computed before five and finished after it");
    assert.equal(manifestOf(folder).generation, 5);
    assert.equal(readFileSync(join(folder, manifestOf(folder).file), "utf8"), "five");
    save(folder, { storeId: "s1", generation: 5 }, "five, indexed another way");
    assert.equal(readFileSync(join(folder, manifestOf(folder).file), "utf8"), "five, indexed another way");
    save(folder, { storeId: "s1", generation: 6 }, "six");
    assert.equal(manifestOf(folder).generation, 6);
    assert.deepEqual(readdirSync(folder).sort(), [manifestOf(folder).file, readdirSync(folder).find((name) => name.endsWith(".json"))].sort(), "no other file is left");
  });

  it("is replaced whatever its generation when it is another store's", () => {
    const folder = join(tempDir, "stores");
    save(folder, { storeId: "old", generation: 90 }, "a replaced store's");
    save(folder, { storeId: "new", generation: 3 }, "this store's");
    assert.deepEqual([manifestOf(folder).storeId, manifestOf(folder).generation], ["new", 3]);
  });

  it("leaves another process's partial write alone, and removes one a crash left an hour ago", () => {
    const folder = join(tempDir, "partials");
    save(folder, { storeId: "s1", generation: 1 }, "one");
    const key = manifestOf(folder).file.split(".")[0] ?? "";
    const underWay = join(folder, `${key}.2.terms.4242-aaaaaaaa.partial`);
    const crashed = join(folder, `${key}.2.terms.4141-bbbbbbbb.partial`);
    writeFileSync(underWay, "two, being written");
    writeFileSync(crashed, "two, never finished");
    const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
    utimesSync(crashed, twoHoursAgo, twoHoursAgo);
    save(folder, { storeId: "s1", generation: 3 }, "three");
    assert.equal(existsSync(underWay), true);
    assert.equal(existsSync(crashed), false);
  });
});

describe("the store file's write lock", () => {
  it("is held while saved files are replaced: no other connection can write meanwhile", () => {
    const path = join(tempDir, "lock.db");
    const saver = new Database(path);
    const other = new Database(path);
    try {
      saver.pragma("journal_mode = WAL");
      other.pragma("busy_timeout = 0");
      let tried = false;
      savedFilesLock(saver)(() => {
        assert.throws(() => other.exec("BEGIN IMMEDIATE"), /locked|busy/i);
        tried = true;
      });
      assert.equal(tried, true);
      other.exec("BEGIN IMMEDIATE; COMMIT");
      saver.exec("BEGIN");
      assert.throws(() => savedFilesLock(saver)(() => undefined), StoreError, "inside an open transaction it would take no lock");
      saver.exec("COMMIT");
    } finally {
      other.close();
      saver.close();
    }
  });
});

describe("terms saved after an erase", () => {
  const record = (id: string, text: string): MemoryRecord => ({
    entry: normalizeEntry("ns", { id, text, timestamp: "2026-01-01T00:00:00Z" }, { now: Date.parse("2026-01-02T00:00:00Z") }),
    vector: Array.from({ length: CONTRACT_EMBEDDING.dimension }, (_, i) => (i === id.length ? 1 : 0)),
  });

  it("are not replaced by terms another process held from before the erase and saved after it", async () => {
    const path = join(tempDir, "erase.db");
    const store = await openSqliteStore({ path, embedding: CONTRACT_EMBEDDING });
    try {
      await store.upsert("ns", [record("a", "the heron flew over zanzibar"), record("bb", "a heron by the river"), record("ccc", "river stones")]);
      assert.equal(await store.buildLexicalIndex("ns"), true);
      const folder = termsFolder(path);
      const identity = { storeId: manifestOf(folder).storeId, namespace: "ns" };
      const heldBefore = loadTerms(folder, identity);
      assert.ok(heldBefore);
      assert.ok(heldBefore.toSnapshot().includes("zanzibar"), "the terms held before the erase have its words");

      assert.equal(await store.delete("ns", ["a"]), 1);
      const afterErase = manifestOf(folder).generation;
      assert.ok(afterErase > heldBefore.generation);

      const other = new Database(path);
      try {
        saveTerms(folder, identity, heldBefore, savedFilesLock(other));
      } finally {
        other.close();
      }
      assert.equal(manifestOf(folder).generation, afterErase);
      assert.equal(readFileSync(join(folder, manifestOf(folder).file)).includes("zanzibar"), false, "no saved file holds the erased words");
    } finally {
      await store.close();
    }
  });
});
