import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DEFAULT_AVG_DOC_LENGTH, encodeSparse, encodeSparseQuery, queryTermIndices, SparseVectorSchema, termIndex } from "../../src/text/sparse.js";
import { tokenize } from "../../src/text/tokenizer.js";

function isStrictlyAscending(values: readonly number[]): boolean {
  return values.every((value, i) => i === 0 || value > (values[i - 1] ?? -Infinity));
}

function weightOf(vector: { indices: number[]; values: number[] }, term: string): number | undefined {
  const position = vector.indices.indexOf(termIndex(term));
  return position < 0 ? undefined : vector.values[position];
}

describe("termIndex", () => {
  it("is FNV-1a 32-bit over UTF-8 (published test vectors)", () => {
    assert.equal(termIndex(""), 0x811c9dc5);
    assert.equal(termIndex("a"), 0xe40c292c);
    assert.equal(termIndex("foobar"), 0xbf9cf968);
  });

  it("is a stable uint32 for any script", () => {
    for (const term of ["err_1024", "报销", "テスト", "🙂", "привет"]) {
      const index = termIndex(term);
      assert.ok(Number.isInteger(index) && index >= 0 && index <= 0xffffffff);
      assert.equal(termIndex(term), index);
    }
    assert.notEqual(termIndex("err_1024"), termIndex("err_2048"));
    // Same bytes as Node's own UTF-8 encoder would produce: a 4-byte code point.
    assert.equal(termIndex("🙂"), fnvOfBytes(Buffer.from("🙂", "utf8")));
  });
});

function fnvOfBytes(bytes: Uint8Array): number {
  let hash = 0x811c9dc5;
  for (const byte of bytes) hash = Math.imul(hash ^ byte, 0x01000193);
  return hash >>> 0;
}

describe("encodeSparse", () => {
  const tokens = tokenize("Caroline went hiking; Caroline loves hiking with her dog near ERR_1024 报销的标准");

  it("gives sorted, unique indices, same length as values, and validates against its schema", () => {
    const vector = encodeSparse(tokens);
    assert.ok(isStrictlyAscending(vector.indices));
    assert.equal(vector.indices.length, new Set(tokens).size);
    assert.equal(vector.values.length, vector.indices.length);
    assert.ok(SparseVectorSchema.safeParse(vector).success);
  });

  it("is stable across calls", () => {
    assert.deepEqual(encodeSparse(tokens), encodeSparse([...tokens]));
  });

  it("applies BM25 term-frequency saturation", () => {
    const vector = encodeSparse(["dog", "dog", "cat"], { avgDocLength: 3 });
    // length 3 = avgDocLength, so the length norm is k1 = 1.2.
    assert.ok(Math.abs((weightOf(vector, "dog") ?? 0) - (2 * 2.2) / (2 + 1.2)) < 1e-12);
    assert.ok(Math.abs((weightOf(vector, "cat") ?? 0) - 2.2 / (1 + 1.2)) < 1e-12);
    // More occurrences weigh more but never past k1 + 1.
    const repeated = encodeSparse(Array.from({ length: 1000 }, () => "dog"), { avgDocLength: 1000 });
    assert.ok((repeated.values[0] ?? 0) < 2.2 && (repeated.values[0] ?? 0) > 2.19);
  });

  it("weighs a term less in a longer document", () => {
    const short = encodeSparse(["dog", "cat"]);
    const long = encodeSparse(["dog", ...Array.from({ length: DEFAULT_AVG_DOC_LENGTH * 3 }, (_, i) => `w${i}`)]);
    assert.ok((weightOf(short, "dog") ?? 0) > (weightOf(long, "dog") ?? 0));
  });

  it("handles empty input and rejects nonsense options", () => {
    assert.deepEqual(encodeSparse([]), { indices: [], values: [] });
    assert.throws(() => encodeSparse(["a"], { avgDocLength: 0 }), RangeError);
    assert.throws(() => encodeSparse(["a"], { b: 2 }), RangeError);
    assert.throws(() => encodeSparse(["a"], { k1: Number.NaN }), RangeError);
  });
});

describe("queryTermIndices and encodeSparseQuery", () => {
  it("lists each distinct term once, sorted", () => {
    const terms = queryTermIndices(["dog", "dog", "cat", "err_1024"]);
    assert.equal(terms.length, 3);
    assert.ok(isStrictlyAscending(terms));
    assert.deepEqual(terms, encodeSparse(["dog", "dog", "cat", "err_1024"]).indices, "the same indices a document with these tokens stores");
  });

  it("weighs each term as given (its idf), sorted by index", () => {
    const [a = 0, b = 0] = queryTermIndices(["dog", "cat"]);
    assert.deepEqual(encodeSparseQuery(new Map([[b, 0.5], [a, 2]])), a < b ? { indices: [a, b], values: [2, 0.5] } : { indices: [b, a], values: [0.5, 2] });
    assert.deepEqual(encodeSparseQuery(new Map()), { indices: [], values: [] });
  });

  it("scores the matching document higher by dot product", () => {
    const query = encodeSparseQuery(new Map(queryTermIndices(tokenize("报销标准")).map((index) => [index, 1])));
    const match = encodeSparse(tokenize("报销的标准是多少"));
    const other = encodeSparse(tokenize("今天天气很好"));
    const dot = (a: typeof query, b: typeof query): number =>
      a.indices.reduce((sum, index, i) => {
        const j = b.indices.indexOf(index);
        return j < 0 ? sum : sum + (a.values[i] ?? 0) * (b.values[j] ?? 0);
      }, 0);
    assert.ok(dot(query, match) > 0);
    assert.equal(dot(query, other), 0);
  });
});

describe("SparseVectorSchema", () => {
  it("rejects unsorted, duplicate, negative, mismatched or non-finite vectors", () => {
    for (const bad of [
      { indices: [2, 1], values: [1, 1] },
      { indices: [1, 1], values: [1, 1] },
      { indices: [-1], values: [1] },
      { indices: [1, 2], values: [1] },
      { indices: [1], values: [Number.NaN] },
      { indices: [2 ** 32], values: [1] },
    ]) {
      assert.equal(SparseVectorSchema.safeParse(bad).success, false, JSON.stringify(bad));
    }
  });
});
