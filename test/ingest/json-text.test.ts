import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseJson, syntaxErrorOffset } from "../../src/ingest/json-text.js";

describe("JSON with located errors", () => {
  it("finds where text stops being JSON", () => {
    const invalid = ['[{"a": 1,\n "b": }]', '{"a": "x\\q"}', '{"a": [1, 2,]}', '{"a": 1} x', '{"a": "\\u12G4"}', '{"a"', ""];
    assert.deepEqual(invalid.map(syntaxErrorOffset), [16, 9, 12, 9, 11, 4, 0]);
    assert.equal(syntaxErrorOffset('  {"ok": [true, false, null, -1.5e3, "é\\n\\u00e9"]} '), undefined);
  });

  it("names line and column in the error", () => {
    assert.throws(() => parseJson('[\n  {"a": 1,\n   "b": }\n]'), /^ValidationError: line 3: not valid JSON at column 9/);
    assert.deepEqual(parseJson('{"a": [1]}'), { a: [1] });
  });
});
