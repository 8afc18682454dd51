import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { withoutWords } from "../../src/text/without-words.js";
import { tokenize } from "../../src/text/tokenizer.js";

describe("withoutWords", () => {
  it("blanks whole words in any case, with a possessive, and leaves words that only contain them", () => {
    const rest = withoutWords("What did Nate cook for NATE's party at Nateville? Nate’s friends came.", ["Nate"]);
    assert.deepEqual(tokenize(rest), tokenize("What did cook for party at Nateville? friends came."));
  });

  it("takes a name whole before its parts, and characters that mean something in a pattern as themselves", () => {
    assert.deepEqual(tokenize(withoutWords("Did Alice Chen-Wu fix C++ builds for Chen?", ["Alice Chen-Wu", "alice", "chen", "C++"])), tokenize("Did fix builds for?"));
    // The compiled pattern is kept and shared: a second text gets the same treatment from the start.
    assert.deepEqual(tokenize(withoutWords("Chen met Alice Chen-Wu.", ["chen", "Alice Chen-Wu", "alice", "C++"])), tokenize("met."));
  });

  it("keeps words written without spaces, and the text when there is nothing to take out", () => {
    assert.equal(withoutWords("王磊上周去了上海", ["王磊"]), "王磊上周去了上海");
    assert.equal(withoutWords("What did Nate cook?", []), "What did Nate cook?");
    assert.equal(withoutWords("What did Nate cook?", ["", "  "]), "What did Nate cook?");
  });
});
