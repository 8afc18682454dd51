/**
 * recallgraph as its users meet it: `npm pack`, the tarball installed into a fresh project, then
 * imported by plain `node` (no tsx), run as the installed `recallgraph` command, and compiled by a
 * strict TypeScript consumer that type-checks libraries too (`skipLibCheck: false`).
 *
 * Offline: the install reads only the npm cache that `npm ci` filled, so nothing is downloaded.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import { assertBuildIsCurrent, ROOT, runProcess, type CliRun } from "../cli/helpers.js";

/** What `npm pack --json` reports of one tarball (the fields used here). */
interface PackReport {
  filename: string;
  size: number;
  entryCount: number;
  files: { path: string }[];
}

/**
 * Which versions of the peers (LangChain's core, LangGraph) the application brings: the project's own
 * (the highest published when this was written), or the lowest the peer ranges accept. Both are in the
 * project's lock, the lowest core under an alias, so the offline install finds them in the npm cache.
 */
type Peers = "highest" | "lowest";
const LOWEST_CORE = "1.3.4";
const LOWEST_CORE_ALIAS = "@langchain/core-lowest";
const LOWEST_LANGGRAPH = "1.7.3";

/** One `packages` entry of a package-lock.json (the fields used here). */
interface LockEntry {
  version?: string;
  dev?: boolean;
}

interface Lockfile {
  packages: Record<string, LockEntry>;
}

/** The environment without anything that would point a run at a server, a model, another store or a loader. */
function plainEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!/^(RECALLGRAPH_|OPENAI_|QDRANT_|TSX_)/.test(name) && name !== "NODE_OPTIONS") env[name] = value;
  }
  // The installed command starts with `#!/usr/bin/env node`: let that be the node running this test.
  env.PATH = [path.dirname(process.execPath), env.PATH ?? ""].join(path.delimiter);
  return env;
}

function runCommand(command: string, args: readonly string[], cwd: string): Promise<CliRun> {
  return runProcess(command, args, { cwd, env: plainEnvironment() });
}

function describeRun(what: string, run: CliRun): string {
  return `${what} exited ${run.code}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`;
}

/**
 * Packs the project into `destination`, with the dist/ that `npm test` built. Without
 * --ignore-scripts the pack would build again (`prepare`), removing dist/ while the other test
 * files run the command from it.
 */
async function pack(destination: string): Promise<PackReport> {
  assertBuildIsCurrent();
  const run = await runCommand("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", destination], ROOT);
  assert.equal(run.code, 0, describeRun("npm pack", run));
  const reports = JSON.parse(run.stdout) as PackReport[];
  const report = reports[0];
  assert.ok(report, `npm pack reported no tarball: ${run.stdout}`);
  return report;
}

/**
 * A lockfile for the consumer holding the project's own locked runtime packages. `npm ci` caches
 * tarballs by integrity but not the registry's version lists, so an offline install that had to
 * resolve recallgraph's dependencies from scratch fails (ENOTCACHED); with their versions locked it
 * takes them from the cache, the very versions the project is tested with. npm drops whatever of it
 * the tarball does not need.
 */
async function consumerLockfile(name: string, peers: Peers): Promise<Lockfile & Record<string, unknown>> {
  const projectLock = JSON.parse(await readFile(path.join(ROOT, "package-lock.json"), "utf8")) as Lockfile;
  const packages: Record<string, LockEntry> = { "": { version: "1.0.0" } };
  // Development packages too: LangGraph and LangChain's core are peers the application brings, which
  // npm installs beside the tarball from these entries (the project tests with the same versions).
  for (const [location, entry] of Object.entries(projectLock.packages)) {
    if (location.startsWith("node_modules/")) packages[location] = entry;
  }
  // The lowest supported core is locked in the project under an alias (see package.json): here it is the application's own.
  if (peers === "lowest") {
    const { name: _alias, ...lowest } = projectLock.packages[`node_modules/${LOWEST_CORE_ALIAS}`] as LockEntry & { name?: string };
    packages["node_modules/@langchain/core"] = lowest;
  }
  delete packages[`node_modules/${LOWEST_CORE_ALIAS}`];
  return { name, version: "1.0.0", lockfileVersion: 3, requires: true, packages };
}

async function writeJson(file: string, value: unknown): Promise<void> {
  await writeFile(file, `${JSON.stringify(value, null, 2)}\n`);
}

/**
 * better-sqlite3's install script would download a prebuilt binary from GitHub, or compile SQLite for
 * over a minute; the install skips scripts and the consumer gets the project's own build of the same
 * version for the same node, which is what either would have produced.
 */
async function provideSqliteAddon(consumer: string): Promise<void> {
  const version = async (root: string) =>
    (JSON.parse(await readFile(path.join(root, "node_modules/better-sqlite3/package.json"), "utf8")) as LockEntry).version;
  assert.equal(await version(consumer), await version(ROOT), "the consumer's better-sqlite3 is the project's version");
  const addon = "node_modules/better-sqlite3/build/Release/better_sqlite3.node";
  await mkdir(path.dirname(path.join(consumer, addon)), { recursive: true });
  await copyFile(path.join(ROOT, addon), path.join(consumer, addon));
}

/** A fresh ESM project with the tarball installed, offline. */
async function installConsumer(consumer: string, tarball: string, peers: Peers = "highest"): Promise<void> {
  await mkdir(consumer);
  // The peers' versions come from the consumer's lock (consumerLockfile), not from ranges in its
  // package.json: a range there makes npm fetch the package's version list, which `npm ci` does not
  // cache, so the offline install fails (ERESOLVE) on a machine that never ran an online install.
  await writeJson(path.join(consumer, "package.json"), { name: "consumer", version: "1.0.0", private: true, type: "module" });
  await writeJson(path.join(consumer, "package-lock.json"), await consumerLockfile("consumer", peers));
  const run = await runCommand("npm", ["install", "--offline", "--no-audit", "--no-fund", "--ignore-scripts", tarball], consumer);
  if (run.code !== 0) {
    const hint = /ENOTCACHED/.test(run.stderr)
      ? "the npm cache lacks a package the install needs: run `npm ci` in the project (online) to fill it, then run this test again\n"
      : "";
    assert.fail(`${hint}${describeRun("npm install --offline <tarball>", run)}`);
  }
  await provideSqliteAddon(consumer);
}

/** Plain JavaScript, as a user writes it after `npm install recallgraph`. */
const SMOKE_SCRIPT = `import { openRecallGraph } from "recallgraph";

const memory = await openRecallGraph({ store: { kind: "sqlite", path: ":memory:" }, embedder: { provider: "hash" }, model: null });
await memory.remember("me", [
  { id: "bicycle", text: "Alice bought a red bicycle in Berlin.", persons: ["Alice"] },
  { id: "tea", text: "Bob drinks green tea every morning.", persons: ["Bob"] },
]);
const { results, account } = await memory.retrieve({ question: "What does Bob drink in the morning?", namespace: "me" });
await memory.close();
console.log(JSON.stringify({ ids: results.map((result) => result.id), llmCalls: account.llmCalls }));
`;

/** The subpaths, imported by name as an application imports them: each gives the root's own objects. */
const SUBPATHS_SCRIPT = `import * as root from "recallgraph";
import * as errors from "recallgraph/errors";
import * as langgraph from "recallgraph/langgraph";
import * as langchain from "recallgraph/langchain";
import * as evaluation from "recallgraph/eval";

console.log(JSON.stringify({
  errors: errors.RecallGraphError === root.RecallGraphError && errors.isRecallGraphError === root.isRecallGraphError,
  langgraph: langgraph.createRetrievalGraph === root.createRetrievalGraph && langgraph.RecallGraphStore === root.RecallGraphStore,
  langchain: langchain.RecallGraphRetriever === root.RecallGraphRetriever && langchain.createMemoryTools === root.createMemoryTools,
  evaluation: [typeof evaluation.runEval, typeof evaluation.runBeirEval, typeof evaluation.scoreRanking],
}));
`;

/** The installed package and the project's own build: two copies, an error thrown by each recognised by the other's guard. */
function twoCopiesScript(otherCopy: string): string {
  return `import * as installed from "recallgraph";
const other = await import(${JSON.stringify(otherCopy)});

const memory = await installed.openRecallGraph({ store: { kind: "sqlite", path: ":memory:" }, embedder: { provider: "hash" }, model: null });
let thrown;
try {
  await memory.remember("me", [{ text: "" }]);
} catch (error) {
  thrown = error;
}
await memory.close();
const back = new other.ReadOnlyStoreError("upsert");
console.log(JSON.stringify({
  twoClasses: installed.ValidationError !== other.ValidationError,
  instanceOfOther: thrown instanceof other.ValidationError,
  otherGuard: other.isRecallGraphError(thrown),
  code: thrown?.code,
  installedGuard: installed.isRecallGraphError(back),
  lookAlike: installed.isRecallGraphError({ code: "read_only", message: "not ours" }),
}));
`;
}

/** TypeScript using the public API the README shows, every export it names used in a typed position. */
const CONSUMER_SOURCE = `import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import {
  createMemoryTools,
  createRecallTool,
  openRecallGraph,
  RecallGraphRetriever,
  ValidationError,
  type MemoryInput,
  type RetrievalOutput,
  type RetrievalResult,
  type RetrieveConfig,
} from "recallgraph";
import { AbortedError, isRecallGraphError, type ErrorCode } from "recallgraph/errors";
import { createRetrievalGraph, RecallGraphStore, type RetrievalConfigInput } from "recallgraph/langgraph";
import { RecallGraphRetriever as SubpathRetriever } from "recallgraph/langchain";
import { runEval, type EvalOptions } from "recallgraph/eval";

const memory = await openRecallGraph({ store: { kind: "sqlite", path: ":memory:" }, embedder: { provider: "hash" }, model: null });
const inputs: MemoryInput[] = [{ text: "Bob drinks green tea every morning.", persons: ["Bob"], timestamp: "2026-03-02T08:00:00Z" }];
await memory.remember("me", inputs);
const output: RetrievalOutput = await memory.retrieve({ question: "What does Bob drink?", namespace: "me" }, { finalK: 3 });
const configurable: RetrievalConfigInput = { finalK: 2, preset: "no-reflect" };
const config: RetrieveConfig = { configurable, signal: new AbortController().signal, runName: "consumer", tags: ["typed"] };
const configured: RetrievalOutput = await memory.retrieve({ question: "What does Bob drink?", namespace: "me" }, config);
const graph = createRetrievalGraph(memory);
const store = new RecallGraphStore(memory);
const subpathRetriever = new SubpathRetriever({ graph, namespace: "me" });
const evalOptions: EvalOptions = { file: "locomo10.json" };
void [configured, store, subpathRetriever, evalOptions, runEval];
const first: RetrievalResult | undefined = output.results[0];
const foundBy: string[] = first ? Object.keys(first.provenance) : [];

const tool = createRecallTool({ graph: memory.graph, namespace: "me" });
const answer: unknown = await tool.invoke({ question: "What does Bob drink?" });
const retriever = new RecallGraphRetriever({ graph: memory.graph, namespace: "me" });
// An agent with the memory tools, on the application's own copy of LangChain's core and LangGraph.
declare const llm: BaseChatModel;
const agent = createReactAgent({ llm, tools: createMemoryTools({ memory, namespace: "me" }) });
void agent;
const texts: string[] = (await retriever.invoke("What does Bob drink?")).map((document) => document.pageContent);

try {
  await memory.remember("me", [{ text: "" }]);
} catch (error) {
  if (error instanceof ValidationError) console.log(error.field);
  const code: ErrorCode | undefined = isRecallGraphError(error) ? error.code : undefined;
  console.log(code, error instanceof AbortedError);
}
await memory.close();
console.log(foundBy, answer, texts);
`;

const CONSUMER_TSCONFIG = {
  compilerOptions: {
    strict: true,
    module: "nodenext",
    moduleResolution: "nodenext",
    target: "es2022",
    skipLibCheck: false,
    noEmit: true,
  },
  files: ["consumer.ts"],
};

describe("the npm package", { timeout: 240_000 }, () => {
  let workspace = "";
  let consumer = "";
  let report: PackReport = { filename: "", size: 0, entryCount: 0, files: [] };

  before(async () => {
    workspace = await mkdtemp(path.join(tmpdir(), "recallgraph-package-"));
    consumer = path.join(workspace, "consumer");
    report = await pack(workspace);
    await installConsumer(consumer, path.join(workspace, report.filename));
  });
  after(() => rm(workspace, { recursive: true, force: true }));

  it("ships the build, the command, the sample memory and the licence, and no sources, tests or tooling", (t) => {
    t.diagnostic(`${report.filename}: ${report.size} bytes, ${report.entryCount} files`);
    const files = new Set(report.files.map((file) => file.path));
    const entryPoints = ["index", "errors", "langgraph", "langchain", "evaluation"].flatMap((name) => [`dist/${name}.js`, `dist/${name}.d.ts`]);
    for (const wanted of [...entryPoints, "dist/cli/main.js", "bin/recallgraph.js", "LICENSE", "samples/demo-memory.jsonl"]) {
      assert.ok(files.has(wanted), `the tarball has ${wanted}`);
    }
    const unwanted = [...files].filter(
      (file) =>
        /^(test|bench|src)\//.test(file) || (file.endsWith(".ts") && !file.endsWith(".d.ts")) || file.endsWith(".map") || file === ".dependency-cruiser.cjs",
    );
    assert.deepEqual(unwanted, [], "no sources, and no source maps pointing at sources it does not ship");
  });

  it("takes LangChain's core and LangGraph from the application: one copy of each", async () => {
    const manifest = JSON.parse(await readFile(path.join(consumer, "node_modules/recallgraph/package.json"), "utf8")) as { peerDependencies?: Record<string, string>; dependencies?: Record<string, string> };
    for (const peer of ["@langchain/core", "@langchain/langgraph"]) {
      assert.ok(manifest.peerDependencies?.[peer], `${peer} is a peer dependency`);
      assert.equal(manifest.dependencies?.[peer], undefined, `${peer} is not a dependency of its own`);
      assert.ok(existsSync(path.join(consumer, "node_modules", peer, "package.json")), `the application has ${peer}`);
      assert.equal(existsSync(path.join(consumer, "node_modules/recallgraph/node_modules", peer)), false, `no second copy of ${peer}`);
    }
  });

  it("runs under plain node: remembers and retrieves through the public API", async () => {
    await writeFile(path.join(consumer, "smoke.mjs"), SMOKE_SCRIPT);
    const run = await runCommand(process.execPath, ["smoke.mjs"], consumer);
    assert.equal(run.code, 0, describeRun("node smoke.mjs", run));
    const printed = JSON.parse(run.stdout) as { ids: string[]; llmCalls: number };
    assert.equal(printed.ids[0], "tea");
    assert.equal(printed.llmCalls, 0);
  });

  it("resolves its subpaths under plain node, each giving the root's own objects", async () => {
    await writeFile(path.join(consumer, "subpaths.mjs"), SUBPATHS_SCRIPT);
    const run = await runCommand(process.execPath, ["subpaths.mjs"], consumer);
    assert.equal(run.code, 0, describeRun("node subpaths.mjs", run));
    assert.deepEqual(JSON.parse(run.stdout), { errors: true, langgraph: true, langchain: true, evaluation: ["function", "function", "function"] });
  });

  it("recognises its errors across two copies of the package: the installed one and the project's build", async () => {
    await writeFile(path.join(consumer, "two-copies.mjs"), twoCopiesScript(pathToFileURL(path.join(ROOT, "dist/index.js")).href));
    const run = await runCommand(process.execPath, ["two-copies.mjs"], consumer);
    assert.equal(run.code, 0, describeRun("node two-copies.mjs", run));
    assert.deepEqual(JSON.parse(run.stdout), {
      twoClasses: true,
      instanceOfOther: false,
      otherGuard: true,
      code: "invalid_input",
      installedGuard: true,
      lookAlike: false,
    });
  });

  it("installs the recallgraph command, which runs the compiled CLI", async () => {
    const bin = path.join(consumer, "node_modules/.bin/recallgraph");
    const help = await runCommand(bin, ["--help"], consumer);
    assert.equal(help.code, 0, describeRun("recallgraph --help", help));
    assert.match(help.stdout, /^Usage: recallgraph/);

    // The demo reads samples/ relative to its compiled file: it must find the shipped copy.
    const demo = await runCommand(bin, ["demo", "--embedder", "hash", "--json"], consumer);
    assert.equal(demo.code, 0, describeRun("recallgraph demo", demo));
    assert.equal((JSON.parse(demo.stdout) as { ingest: { entries: number } }).ingest.entries, 42);
  });

  it("type-checks an agent with its tools in an application on the lowest supported core, with one copy of it", async () => {
    const lowest = path.join(workspace, "lowest");
    await installConsumer(lowest, path.join(workspace, report.filename), "lowest");
    const installed = JSON.parse(await readFile(path.join(lowest, "node_modules/@langchain/core/package.json"), "utf8")) as LockEntry;
    assert.equal(installed.version, LOWEST_CORE);
    const langgraph = JSON.parse(await readFile(path.join(lowest, "node_modules/@langchain/langgraph/package.json"), "utf8")) as LockEntry;
    assert.equal(langgraph.version, LOWEST_LANGGRAPH);
    assert.equal(existsSync(path.join(lowest, "node_modules/recallgraph/node_modules/@langchain/core")), false, "no second copy");
    await writeFile(path.join(lowest, "consumer.ts"), CONSUMER_SOURCE);
    await writeJson(path.join(lowest, "tsconfig.json"), CONSUMER_TSCONFIG);
    const run = await runCommand(process.execPath, [path.join(ROOT, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], lowest);
    assert.equal(run.code, 0, describeRun("tsc", run));
  });

  it("type-checks in a strict nodenext TypeScript project that checks libraries too", async () => {
    await writeFile(path.join(consumer, "consumer.ts"), CONSUMER_SOURCE);
    await writeJson(path.join(consumer, "tsconfig.json"), CONSUMER_TSCONFIG);
    // The project's own compiler, so nothing is downloaded.
    const tsc = path.join(ROOT, "node_modules/typescript/bin/tsc");
    const run = await runCommand(process.execPath, [tsc, "-p", "tsconfig.json"], consumer);
    assert.equal(run.code, 0, describeRun("tsc", run));
  });
});
