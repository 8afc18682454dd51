/**
 * words (chrono-results.ts says why). The gate is right only while each word list is the alternation the
 * parser's own pattern requires, so these tests read chrono's patterns: an upgrade that renames a parser
 * or changes its words fails here instead of silently dropping or slowing a reading.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import * as chronoEn from "chrono-node/en";
import { ParsingContext } from "chrono-node";
import { DURATION_WORDS } from "../../src/time/chrono-results.js";
import { findTimeExpressions } from "../../src/time/index.js";

const context = { now: new Date("2023-05-10T15:00:00Z"), timeZone: "UTC" };

describe("the duration parsers' word gates", () => {
  for (const [name, words] of Object.entries(DURATION_WORDS)) {
    it(`${name} requires one of ${words.source}`, () => {
      const parser = chronoEn.casual.parsers.find((candidate) => candidate.constructor.name === name);
      assert.ok(parser, `chrono's English casual parsers have no ${name}: the gate would never apply`);
      const pattern = parser.pattern(new ParsingContext("3 days ago", context.now));
      assert.ok(pattern.source.includes(`(?:${words.source})`) || pattern.source.includes(`(${words.source})`), `${name}'s pattern no longer ends in (${words.source}): ${pattern.source.slice(-120)}`);
      assert.equal(words.flags.includes("i"), pattern.flags.includes("i"), "the gate is as case-blind as the pattern");
    });
  }

  it("still reads durations with their words, and finds nothing in a text without them", () => {
    const read = (text: string) => findTimeExpressions(text, context).map((found) => found.expression);
    assert.deepEqual(read("We met 3 days ago"), ["3 days ago"]);
    assert.deepEqual(read("Call me 5 hours from now"), ["5 hours from now"]);
    assert.deepEqual(read("What did Alice fix in Shanghai?"), []);
  });
});
