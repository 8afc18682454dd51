import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseDialogue } from "../../src/ingest/dialogue.js";
import { buildRuleMemories, turnEntryId } from "../../src/ingest/dialogue-rules.js";

/** A dialogue of (speaker, text) turns T1, T2... a minute apart. */
function dialogueOf(turns: ReadonlyArray<[string, string]>) {
  return parseDialogue({
    turns: turns.map(([speaker, text], i) => ({ turnId: `T${i + 1}`, speaker, text, time: new Date(Date.UTC(2026, 0, 5, 9, i)).toISOString() })),
  });
}

function linksOf(turns: ReadonlyArray<[string, string]>, supersession = true): Map<string, { supersedes: string[]; reason: string }> {
  const memories = buildRuleMemories(dialogueOf(turns), { namespace: "ns", supersession });
  return new Map(
    memories.filter((memory) => memory.supersedes).map((memory) => [memory.source?.turnIds?.[0] ?? "", { supersedes: memory.supersedes ?? [], reason: memory.supersessionReason ?? "" }]),
  );
}

const id = (turn: string) => turnEntryId("ns", turn);

describe("rule builder supersessions", () => {
  it("links a move to where the speaker lived, with the reason", () => {
    const links = linksOf([
      ["Dana", "I live in Berlin with my cat."],
      ["Sam", "Nice city!"],
      ["Dana", "Big news: I moved to Malmö last week."],
    ]);
    assert.deepEqual(links.get("T3")?.supersedes, [id("T1")]);
    assert.match(links.get("T3")?.reason ?? "", /"moved to": Malmö replaces Berlin \(turn T1\)/);
    assert.equal(links.size, 1);
  });

  it("takes a move as the person's it names before the new place, not as one named after it", () => {
    const links = linksOf([
      ["Dana", "I live in Berlin."],
      ["Dana", "My sister Anna lives in Oslo."],
      ["Dana", "I moved to Malmö and adopted a puppy named Oscar."],
      ["Dana", "My sister Anna moved to Bergen last spring."],
    ]);
    assert.deepEqual(links.get("T3")?.supersedes, [id("T1")], "the speaker moved; the puppy is named after the place");
    assert.deepEqual(links.get("T4")?.supersedes, [id("T2")], "Anna's move replaces where Anna lived, not where the speaker did");
    const ended = linksOf([
      ["Dana", "I play the guitar every week with my friend Ben."],
      ["Dana", "I no longer play the guitar."],
    ]);
    assert.deepEqual(ended.get("T2")?.supersedes, [id("T1")], "an ending ends what it names, whoever else the statement names");
  });

  it("reads whose change it is from the word before its verb, named or not", () => {
    const links = linksOf([
      ["Alice", "I live in Oslo with my family."],
      ["Ben", "Where does Dana live now?"],
      ["Alice", "Dana moved to Malmö for her job."],
      ["Alice", "She moved to Lund after that."],
      ["Alice", "Dana lives in Malmö with her cat."],
      ["Alice", "Dana moved to Bergen in the spring."],
      ["Alice", "I told my friend Ben that I moved to Trondheim."],
      ["Alice", "Finally moved to Tromsø!"],
    ]);
    assert.equal(links.get("T3"), undefined, "Dana's move does not replace where the speaker lives");
    assert.equal(links.get("T4"), undefined, "a move that does not say whose replaces nothing");
    assert.deepEqual(links.get("T6")?.supersedes, [id("T5")], "Dana's move replaces where Dana lived");
    assert.deepEqual(links.get("T7")?.supersedes, [id("T1")], "the speaker's move, in a clause after a friend's name");
    assert.deepEqual(links.get("T8")?.supersedes, [id("T7")], "a move with no subject is the speaker's");
    assert.equal(links.size, 3);
  });

  it("links a changed value of the same attribute to the latest earlier statement of it", () => {
    const links = linksOf([
      ["Ana", "The deadline for the first sprint is April 1."],
      ["Ana", "The budget for the sprint is $500."],
      ["Ana", "The first sprint deadline was moved to April 5."],
    ]);
    assert.deepEqual(links.get("T3")?.supersedes, [id("T1")]);
    assert.match(links.get("T3")?.reason ?? "", /April 5 replaces April 1/);
  });

  it("reads a restated attribute, a new value, 'no longer', 'instead of' and Chinese moves", () => {
    assert.deepEqual(linksOf([["Ana", "My deadline is April 1."], ["Ana", "My deadline is April 9."]]).get("T2")?.supersedes, [id("T1")]);
    assert.deepEqual(linksOf([["Ana", "I have a deadline of April 1 for the report."], ["Ana", "There is a new deadline of April 3."]]).get("T2")?.supersedes, [id("T1")]);
    assert.deepEqual(linksOf([["Bo", "I work at Google as an engineer."], ["Bo", "I no longer work at Google."]]).get("T2")?.supersedes, [id("T1")]);
    assert.deepEqual(linksOf([["Bo", "Our frontend uses React for the dashboard."], ["Bo", "The dashboard now uses Vue instead of React."]]).get("T2")?.supersedes, [id("T1")]);
    assert.deepEqual(linksOf([["李", "我住在北京。"], ["李", "我上个月搬到上海了。"]]).get("T2")?.supersedes, [id("T1")]);
  });

  it("links nothing that is not an explicit change of the same speaker's same attribute", () => {
    // Another speaker, a hedge, a question, a different attribute, the same value again.
    assert.equal(linksOf([["Ana", "My deadline is April 1."], ["Bo", "My deadline is April 9."]]).size, 0);
    assert.equal(linksOf([["Ana", "The sprint deadline is April 1."], ["Ana", "Maybe the sprint deadline will be moved to April 9."]]).size, 0);
    assert.equal(linksOf([["Ana", "The sprint deadline is April 1."], ["Ana", "Has the sprint deadline changed to April 9?"]]).size, 0);
    assert.equal(linksOf([["Ana", "The budget for the sprint is $500."], ["Ana", "The sprint deadline was moved to April 5."]]).size, 0);
    assert.equal(linksOf([["Ana", "The sprint deadline is April 5."], ["Ana", "The sprint deadline was moved to April 5."]]).size, 0);
    assert.equal(linksOf([["Bo", "I never liked Google."], ["Bo", "Keep it no longer than two pages."]]).size, 0);
  });

  it("links nothing with supersession off", () => {
    assert.equal(linksOf([["Dana", "I live in Berlin."], ["Dana", "I moved to Malmö."]], false).size, 0);
  });
});
