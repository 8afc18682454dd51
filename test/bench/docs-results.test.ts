/**
 * docs/results/ is generated from bench/results/*.json by `npm run docs:results`: regenerating it in
 * memory must give the committed files byte for byte, so a saved run never goes undocumented.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { DOCS_RESULTS_FOLDER, resultsDocuments } from "../../bench/docs-results.js";

describe("docs/results", () => {
  const documents = resultsDocuments();

  for (const [name, text] of Object.entries(documents)) {
    it(`${name} is what the saved results give (else run npm run docs:results)`, () => {
      assert.equal(readFileSync(join(DOCS_RESULTS_FOLDER, name), "utf8"), text);
    });
  }

  it("holds no generated-looking file the script does not write", () => {
    const generated = readdirSync(DOCS_RESULTS_FOLDER).filter((file) => file.endsWith(".md") && file !== "README.md");
    assert.deepEqual(generated.sort(), Object.keys(documents).sort());
  });

  it("renders the million's run of its own beside the 1k-100k run", () => {
    const speed = documents["speed.md"] ?? "";
    assert.match(speed, /from bench\/results\/speed\.json and bench\/results\/speed-1m\.json/);
    assert.match(speed, /## A million memories[\s\S]*\| 1,000,000 \| hnsw \|/);
  });

  it("renders every development set with both embedders' columns", () => {
    const report = documents["development-sets.md"] ?? "";
    for (const set of ["## locomo10.json", "## scifact, train", "## cmrc2018_trial.json"]) assert.ok(report.includes(set), set);
    assert.match(report, /use-lite.*onnx:all-MiniLM-L6-v2/);
    // RealMem is scored at both levels it labels: the sessions an answer needs and the turns its memories came from.
    assert.match(report, /## realmem\n\n\| retriever \| sessions R@5, use-lite \|.*\| turns R@25, use-lite \|.*\| turns R@25, onnx/);
    // A row only MiniLM's report has (a rule only its profile holds) sits with the other rules, before the peers.
    for (const section of report.split("\n## ").slice(1)) {
      const yieldRow = section.indexOf("| recallgraph full without the lexical yield |");
      assert.ok(yieldRow > section.indexOf("| recallgraph full without context votes |"), section.slice(0, 40));
      assert.ok(yieldRow < section.indexOf("| LangGraph InMemoryStore |"), section.slice(0, 40));
    }
  });
});
