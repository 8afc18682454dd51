/** `recallgraph query -` reads the question from standard input; an empty one is refused naming `question`. */
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { oneLineError, runCli, runJson, temporaryFolder } from "./helpers.js";
import { QueryJsonSchema } from "./schemas.js";

const TEAM = [
  { id: "t1", text: "Alice Chen met Wang Lei in Shanghai on 10 March 2026 about the XYZ-100 order.", timestamp: "2026-03-10T06:30:00Z" },
  { id: "t2", text: "Bob Müller fixed ERR_1024 in firmware 2.3.1 on 2 March 2026.", timestamp: "2026-03-02T12:00:00Z" },
  { id: "t3", text: "Error code ERR_2048 means the Wi-Fi provisioning timed out.", timestamp: "2026-03-05T08:45:00Z" },
];
const QUESTION = "What does ERR_2048 mean?";

describe("query - reads the question from standard input", () => {
  let folder = { path: "", remove: async () => {} };
  const query = (question: string): string[] => ["--embedder", "hash", "query", question, "-n", "team", "--no-plan", "--no-reflect", "--json"];

  before(async () => {
    folder = await temporaryFolder();
    await writeFile(path.join(folder.path, "team.jsonl"), TEAM.map((entry) => JSON.stringify(entry)).join("\n"));
    await runJson(["--embedder", "hash", "ingest", "team.jsonl", "--namespace", "team"], folder.path);
  });
  after(() => folder.remove());

  it("answers a piped question as it answers the same question given as an argument", async () => {
    const asArgument = QueryJsonSchema.parse(JSON.parse((await runCli(query(QUESTION), folder.path)).stdout));
    const piped = await runCli(query("-"), folder.path, `${QUESTION}\n`);
    assert.equal(piped.code, 0, piped.stderr);
    const answer = QueryJsonSchema.parse(JSON.parse(piped.stdout));
    assert.equal(answer.results[0]?.id, "t3");
    assert.deepEqual(answer.results.map((result) => result.id), asArgument.results.map((result) => result.id));
    assert.deepEqual(answer.plan?.subQueries, [QUESTION], "the question searched is the piped line, its newline trimmed");
  });

  it("an empty or blank standard input is a ValidationError naming question", async () => {
    for (const input of ["", "  \n\t\n"]) {
      const run = await runCli(["--embedder", "hash", "query", "-", "-n", "team"], folder.path, input);
      assert.equal(run.code, 1, run.stderr);
      assert.match(oneLineError(run), /^error: question: standard input is empty: pipe the question in/);
    }
    const closed = await runCli(["--embedder", "hash", "query", "-", "-n", "team"], folder.path);
    assert.equal(closed.code, 1, "no input at all (stdin is /dev/null) is the same refusal");
    assert.match(oneLineError(closed), /^error: question: standard input is empty/);
  });
});
