import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { findNames } from "../../src/ingest/names.js";

describe("findNames: persons by their cues", () => {
  it("takes the name after a family word, a title, or 'named' / 'called' for a person", () => {
    assert.deepEqual(findNames("I walked with my sister Anna.").persons, ["Anna"]);
    assert.deepEqual(findNames("My sister Anna lives in Oslo. Our friend Ben visited her.").persons, ["Anna", "Ben"], "as a sentence begins too");
    assert.deepEqual(findNames("We saw Dr. Lee today.").persons, ["Lee"]);
    assert.deepEqual(findNames("We adopted a dog named Max last week.").persons, ["Max"]);
    assert.deepEqual(findNames("She has a cat called Luna, who sleeps all day.").persons, ["Luna"]);
  });

  it("does not take the first word of a longer name after 'named' or 'called' for a person", () => {
    const found = findNames("Mutations were looked up in a database called Cancer Gene Census for each tumour.");
    assert.deepEqual(found.persons, []);
    assert.ok(found.entities.includes("Cancer Gene Census"), `entities: ${found.entities.join(", ")}`);
  });

  it("takes a word opening a sentence for a name when what people do follows it, not a thing's word", () => {
    assert.deepEqual(findNames("Dana moved to Malmö for her job at Spotify.").entities, ["Dana", "Malmö", "Spotify"]);
    assert.deepEqual(findNames("Paris is lovely in spring. Anna finally visited it.").entities, ["Anna"]);
    assert.deepEqual(findNames("Results showed a rise. Spotify opened an office. Everyone said so. Winning felt great.").entities, []);
    assert.deepEqual(findNames("Yesterday we walked to the lake.").entities, []);
  });
});
