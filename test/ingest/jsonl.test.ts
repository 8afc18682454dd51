import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseJsonl, withStableIds } from "../../src/ingest/jsonl.js";
import { ValidationError } from "../../src/core/errors.js";

describe("JSON Lines memories", () => {
  it("reads one memory per non-blank line, only text required", () => {
    const memories = parseJsonl('{"text": "First"}\n\n{"text": "Second", "persons": ["Alice"], "timestamp": "2026-03-01"}\n');
    assert.deepEqual(memories.map((m) => m.line), [1, 3]);
    assert.equal(memories[1]?.input.persons?.[0], "Alice");
  });

  it("names the line and the field of the first bad value", () => {
    const cases: [string, RegExp][] = [
      ['{"text": "ok"}\n{"text": "ok"}\n{"text": "   "}', /^line 3: text: text must not be empty$/],
      ['{"text": "ok"}\n{"text": "ok", "timestamp": "last week"}', /^line 2: timestamp: /],
      ['{"text": "ok", "persons": "Alice"}', /^line 1: persons: /],
      ['{"text": "ok", "colour": "red"}', /^line 1: .*colour/],
      ['{"text": "ok"}\n{"text": "unterminated', /^line 2: not valid JSON/],
      ['["text"]', /^line 1: expected a JSON object/],
      ['{"text": "ok"}\n{"text": "far future", "timestamp": 9e15}', /^line 2: timestamp: timestamp is out of range$/],
      ['{"id": "a", "text": "x"}\n{"id": "a", "text": "y"}', /^line 2: id: duplicate id "a" \(first used on line 1\)$/],
    ];
    for (const [content, message] of cases) {
      assert.throws(() => parseJsonl(content), (error: unknown) => error instanceof ValidationError && message.test(error.message), content);
    }
    assert.throws(() => parseJsonl("\n  \n"), /no memories/);
  });

  it("gives id-less memories stable ids from namespace and content, dropping exact repeats", () => {
    const memories = parseJsonl('{"text": "Same"}\n{"text": "Same"}\n{"text": "Other", "topic": "t"}\n{"topic": "t", "text": "Other"}');
    const once = withStableIds("ns", memories);
    assert.equal(once.length, 2, "key order does not matter, repeats are one memory");
    assert.deepEqual(withStableIds("ns", memories).map((m) => m.id), once.map((m) => m.id));
    assert.notDeepEqual(withStableIds("other", memories).map((m) => m.id), once.map((m) => m.id));
  });

});
