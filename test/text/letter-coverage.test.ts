/** Which texts a word-piece model can read, from its vocabulary (letter-coverage.ts). */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { readableBy } from "../../src/text/embedders/letter-coverage.js";

/** A folder whose tokenizer.json holds `pieces` as a WordPiece vocabulary, with BERT's normaliser. */
function folderWith(tokenizer: unknown): string {
  const folder = mkdtempSync(path.join(tmpdir(), "recallgraph-vocab-"));
  writeFileSync(path.join(folder, "tokenizer.json"), JSON.stringify(tokenizer));
  folders.push(folder);
  return folder;
}
const folders: string[] = [];

const LATIN = [..."abcdefghijklmnopqrstuvwxyz"];
function wordPiece(pieces: readonly string[], normalizer: unknown = { type: "BertNormalizer", lowercase: true, strip_accents: null }) {
  return { normalizer, model: { type: "WordPiece", unk_token: "[UNK]", continuing_subword_prefix: "##", vocab: Object.fromEntries(pieces.map((piece, id) => [piece, id])) } };
}

describe("readableBy", () => {
  after(() => {
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
  });

  it("trusts a text whose letters the vocabulary has, as its normaliser writes them (lower case, no accents)", () => {
    const readable = readableBy(folderWith(wordPiece([...LATIN, "##s", "北"])));
    assert.equal(readable("Dana moved to Malmö"), true);
    assert.equal(readable("Crème brûlée in Zürich, 2026"), true);
  });

  it("does not trust a text of which more than a tenth of the letters have no piece", () => {
    const readable = readableBy(folderWith(wordPiece([...LATIN, "北"])));
    assert.equal(readable("北京大学的图书馆"), false, "one letter of eight has a piece");
    assert.equal(readable("the library of Peking University, 北京"), true, "one unread letter in 31");
    assert.equal(readable("the library of 北京大学"), false, "three unread letters in 16");
  });

  it("without lower-casing, a capital the vocabulary lacks is unread", () => {
    const readable = readableBy(folderWith(wordPiece(LATIN, { type: "BertNormalizer", lowercase: false, strip_accents: false })));
    assert.equal(readable("ALICE AND BOB"), false);
    assert.equal(readable("alice and bob"), true);
  });

  it("trusts every text where it cannot tell: no tokenizer.json, another tokenizer model, another normaliser", () => {
    const empty = mkdtempSync(path.join(tmpdir(), "recallgraph-vocab-"));
    folders.push(empty);
    assert.equal(readableBy(empty)("北京大学"), true);
    assert.equal(readableBy(folderWith({ model: { type: "BPE", vocab: { a: 0 } } }))("北京大学"), true);
    assert.equal(readableBy(folderWith(wordPiece(LATIN, { type: "Sequence", normalizers: [] })))("北京大学"), true);
    writeFileSync(path.join(empty, "tokenizer.json"), "{ not json");
    assert.equal(readableBy(empty)("北京大学"), true);
  });
});

const MODEL = path.resolve(import.meta.dirname, "../../../shared/models/all-MiniLM-L6-v2-int8");
const skip = existsSync(path.join(MODEL, "tokenizer.json")) ? false : `MiniLM model folder not found at ${MODEL}`;

describe("all-MiniLM-L6-v2's vocabulary", { skip }, () => {
  it("reads English with accents and names, not Chinese prose", () => {
    const readable = readableBy(MODEL);
    assert.equal(readable("Dana moved to Malmö for her job at Spotify"), true);
    assert.equal(readable("《战国无双3》是由光荣和ω-force开发的战国无双系列的正统第三续作。"), false);
  });
});
