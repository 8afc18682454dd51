/**
 * One namespace's terms in memory (src/stores/sqlite/namespace-terms.ts) through many writes, rewrites
 * and deletes: freed slots, term ids and pool runs are reused, and every ranking must stay the one a
 * copy read afresh from the surviving rows gives, to the bit. lexical-index.test.ts holds a fresh copy
 * to FTS5 and to BM25 computed directly.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { NamespaceTerms } from "../../src/stores/sqlite/namespace-terms.js";
import { BM25_TAGS_WEIGHT, BM25_TEXT_WEIGHT } from "../../src/stores/sqlite/schema.js";
import { BM25_B } from "../../src/text/bm25.js";
import type { LexicalFields } from "../../src/stores/lexical-document.js";

const WORDS = ["heron", "kayak", "river", "cello", "choir", "ramen", "meteor", "quilt", "garden", "market", "radio", "chess"];
const QUERIES = [["heron"], ["kayak", "river"], ["cello", "heron", "quilt", "rare0", "rare7"], ["market", "garden", "radio", "chess", "choir"], ["zebra"]];

/** A deterministic pseudo-random sequence (LCG), so every run makes the same changes. */
function sequence(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

function columnsFrom(next: () => number, step: number): LexicalFields {
  const words = Array.from({ length: 1 + Math.floor(next() * 12) }, () => WORDS[Math.floor(next() * WORDS.length)] ?? "heron");
  // Words held by one row at a time, so terms vanish from the dictionary and their ids are reused.
  if (next() < 0.2) words.push(`rare${step % 10}`);
  return { text: words.join(" "), tags: next() < 0.4 ? (WORDS[Math.floor(next() * WORDS.length)] ?? "") : "" };
}

function freshCopy(rows: ReadonlyMap<number, LexicalFields>): NamespaceTerms {
  const copy = new NamespaceTerms(0);
  for (const [rowid, columns] of rows) copy.set(rowid, columns);
  return copy;
}

function rankings(copy: NamespaceTerms, accept: (rowid: number) => boolean = () => true) {
  return QUERIES.map((terms) => copy.ranked(terms, copy.statistics(), accept, 20, BM25_B));
}

describe("sqlite in-memory namespace terms", () => {
  it("ranks as a fresh copy of the surviving rows through rewrites and deletes, one or many at a time", () => {
    const next = sequence(5);
    const rows = new Map<number, LexicalFields>();
    const copy = new NamespaceTerms(0);
    for (let step = 0; step < 600; step += 1) {
      const roll = next();
      if (roll < 0.65) {
        const rowid = 1 + Math.floor(next() * 300);
        const columns = columnsFrom(next, step);
        rows.set(rowid, columns);
        copy.set(rowid, columns);
      } else if (roll < 0.9) {
        const rowid = 1 + Math.floor(next() * 300);
        rows.delete(rowid);
        copy.delete([rowid]);
      } else {
        // A batch, as a catch-up from the change log deletes: some held, some not.
        const batch = Array.from({ length: 1 + Math.floor(next() * 10) }, () => 1 + Math.floor(next() * 300));
        for (const rowid of batch) rows.delete(rowid);
        copy.delete(batch);
      }
      if (step % 50 === 49) copy.trim();
      if (step % 10 === 9) {
        const fresh = freshCopy(rows);
        assert.deepEqual(copy.statistics(), fresh.statistics(), `step ${step}: statistics`);
        assert.deepEqual(rankings(copy), rankings(fresh), `step ${step}: rankings`);
        const odd = (rowid: number) => rowid % 2 === 1;
        assert.deepEqual(rankings(copy, odd), rankings(fresh, odd), `step ${step}: rankings of the accepted rows`);
        // A small k leaves common words' postings unwalked: the same rows and bits as ranking every row.
        for (const terms of QUERIES) {
          const all = copy.ranked(terms, copy.statistics(), () => true, 1_000_000, BM25_B);
          for (const k of [1, 3, 10]) assert.deepEqual(copy.ranked(terms, copy.statistics(), () => true, k, BM25_B), all.slice(0, k), `step ${step}: k ${k}`);
        }
      }
    }
    assert.ok(copy.size > 50, `${copy.size} rows held at the end`);
  });

  it("holds counts as float32 only because the column weights are whole numbers", () => {
    // A whole count below 2^24 is exact in float32; a weight such as 0.3 would not sum exactly.
    assert.ok(Number.isInteger(BM25_TEXT_WEIGHT) && Number.isInteger(BM25_TAGS_WEIGHT));
    const copy = new NamespaceTerms(0);
    const repeated = Array.from({ length: 5000 }, () => "heron").join(" ");
    copy.set(1, { text: repeated, tags: "heron" });
    copy.set(2, { text: "heron kayak", tags: "" });
    const counts = new Map([["heron", 5000 * BM25_TEXT_WEIGHT + BM25_TAGS_WEIGHT]]);
    const direct = new NamespaceTerms(0);
    direct.setCounts(1, 5002, counts);
    direct.setCounts(2, 3, new Map([["heron", BM25_TEXT_WEIGHT], ["kayak", BM25_TEXT_WEIGHT]]));
    assert.deepEqual(rankings(copy), rankings(direct));
  });
});
