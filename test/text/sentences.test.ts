import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { sentencesOf, wordCount } from "../../src/text/sentences.js";

describe("sentences", () => {
  it("splits at sentence ends and line breaks, and keeps abbreviations and decimals inside their sentence", () => {
    const abstract = "Diffusion tensor imaging of the newborn brain.\nWhite matter (e.g. the corpus callosum) was measured at 1.5 T. The mean ADC fell vs. controls!  Why?";
    assert.deepEqual(sentencesOf(abstract), [
      "Diffusion tensor imaging of the newborn brain.",
      "White matter (e.g. the corpus callosum) was measured at 1.5 T.",
      "The mean ADC fell vs. controls!",
      "Why?",
    ]);
    assert.deepEqual(sentencesOf("我们去了上海。然后回家了！"), ["我们去了上海。", "然后回家了！"]);
    assert.deepEqual(sentencesOf(" \n "), []);
  });

  it("counts words as runs of non-space characters", () => {
    assert.equal(wordCount("  one two\tthree\nfour "), 4);
    assert.equal(wordCount(""), 0);
  });
});
