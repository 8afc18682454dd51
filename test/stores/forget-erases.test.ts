/**
 * Forgetting erases: after a memory is forgotten (or pruned once expired, or its namespace cleared), no
 * byte of its text is left in the sqlite file, its write-ahead log or the terms saved beside it, whether
 * the store is still open or closed. SQLite only unlinks deleted rows, FTS5 keeps deleted terms in its
 * segments until they merge, the WAL keeps old pages until a checkpoint, and saved terms hold every word
 * they were saved with: each is a place the words would otherwise stay.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { openRecallGraph, type RecallGraph } from "../../src/library/open-recallgraph.js";
import { termsFolder } from "../../src/stores/sqlite/store-file.js";
import { SqliteMemoryStore } from "../../src/stores/sqlite/store.js";

const folder = mkdtempSync(path.join(tmpdir(), "recallgraph-erase-"));
after(() => rmSync(folder, { recursive: true, force: true }));

/** A word that appears nowhere else, made of letters so that the tokenizer keeps it whole. */
const uniqueWord = () => `zq${randomUUID().replace(/[^a-f]/g, "").slice(0, 12)}word`;

function savedTermsFiles(db: string): string[] {
  const folder = termsFolder(db);
  return existsSync(folder) ? readdirSync(folder).map((name) => path.join(folder, name)) : [];
}

function filesHolding(db: string, word: string): string[] {
  return [db, `${db}-wal`, ...savedTermsFiles(db)].filter((file) => existsSync(file) && readFileSync(file).includes(word));
}

/** Reads the namespace's terms now, which saves them beside the file: the words written so far are in them. */
async function saveTerms(memory: RecallGraph, namespace: string, word: string, db: string): Promise<void> {
  assert.ok(memory.store instanceof SqliteMemoryStore);
  assert.equal(await memory.store.buildLexicalIndex(namespace), true);
  assert.ok(savedTermsFiles(db).some((file) => readFileSync(file).includes(word)), "saved, the terms hold the word");
}

async function storeWithFiller(name: string): Promise<{ memory: RecallGraph; db: string }> {
  const db = path.join(folder, `${name}.db`);
  const memory = await openRecallGraph({ env: { RECALLGRAPH_EMBEDDER: "hash", RECALLGRAPH_DB: db }, model: null });
  await memory.remember("alice", Array.from({ length: 300 }, (_, i) => ({ text: `Filler memory ${i} about the garden and its tomatoes.` })));
  return { memory, db };
}

describe("the sqlite store erases what is forgotten", () => {
  it("leaves no byte of a forgotten memory in the file or the WAL, open or closed", async () => {
    const { memory, db } = await storeWithFiller("forget");
    const word = uniqueWord();
    const [kept] = await memory.remember("alice", [{ text: `Alice keeps the ${word} passphrase in the grey safe.`, persons: ["Alice"] }]);
    assert.ok(kept);
    assert.ok(filesHolding(db, word).length > 0, "written, the word is in the files");
    await saveTerms(memory, "alice", word, db);
    assert.equal(await memory.forget("alice", [kept.id]), 1);
    assert.deepEqual(filesHolding(db, word), [], "forgotten, while the store is open");
    await memory.close();
    assert.deepEqual(filesHolding(db, word), [], "forgotten, after the store is closed");
  });

  it("erases an expired memory when it is pruned, and a cleared namespace", async () => {
    const { memory, db } = await storeWithFiller("prune");
    const expiring = uniqueWord();
    const cleared = uniqueWord();
    await memory.remember("alice", [{ text: `The ${expiring} offer ends soon.`, expiresAt: new Date(Date.now() + 500).toISOString() }]);
    await memory.remember("bob", [{ text: `Bob noted the ${cleared} code.` }]);
    await saveTerms(memory, "alice", expiring, db);
    await saveTerms(memory, "bob", cleared, db);
    await new Promise((resolve) => setTimeout(resolve, 600));
    assert.equal(await memory.prune("alice"), 1);
    assert.deepEqual(filesHolding(db, expiring), [], "pruned");
    assert.equal(await memory.store.clearNamespace("bob"), 1);
    assert.deepEqual(filesHolding(db, cleared), [], "cleared");
    await memory.close();
    assert.deepEqual(filesHolding(db, expiring).concat(filesHolding(db, cleared)), []);
  });
});
