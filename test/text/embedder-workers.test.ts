import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { after, describe, it } from "node:test";
import ts from "typescript";
import { ValidationError } from "../../src/core/errors.js";
import { CheckedEmbeddings } from "../../src/text/embedders/checked.js";
import { createEmbedder, embedderConfigFromEnv, EmbedderConfigSchema } from "../../src/text/embedders/create-embedder.js";
import { lengthSortedBatches } from "../../src/text/embedders/batched.js";
import { EmbeddingWorkerError, spawnEmbeddingWorker, type SpawnWorker } from "../../src/text/embedders/worker-pool.js";
import { defaultEmbeddingWorkers } from "../../src/text/embedders/batched.js";
import { createUseLiteEmbedder, UseLiteEmbeddings } from "../../src/text/embedders/use-lite.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Texts of many lengths and scripts, so the pool's batches differ from each other. */
const TEXTS = [
  "dog",
  "puppy",
  "tax return",
  "When did Caroline go hiking with her friends last summer?",
  "Ada said: I went bouldering in Lisbon and loved every minute, and Bruno came along.",
  "报销的标准是多少",
  "ERR_1024 的报销",
  "🙂🙂",
  "Bob Müller lives in Berlin-Kreuzberg and leads firmware development for the XYZ-100 air-quality sensor.",
  `${"A long memory about planning a kayak trip along the coast, the weather, the gear and who came. ".repeat(6)}`,
  "x",
  "The quick brown fox jumps over the lazy dog.",
  "Priya Nair moved the XYZ-200 launch from September to October 2026 after the supplier slipped.",
  "Ünïcödé àccents, Ελληνικά, русский, العربية",
  "",
  "1 2 3 4 5 6 7 8 9 10",
  "She adopted a rescue dog named Pepper on a quiet Sunday.",
  "Which museum did Jun visit in Kyoto, and what did he think of the glass collection?",
];

function innerOf(embedder: { embeddings: unknown }): UseLiteEmbeddings {
  assert.ok(embedder.embeddings instanceof CheckedEmbeddings);
  const inner = embedder.embeddings.inner;
  assert.ok(inner instanceof UseLiteEmbeddings);
  return inner;
}

/** A spawn that starts an eval'd fake worker with `body` (no model), counting the workers it starts. */
function fakeSpawn(body: string): SpawnWorker & { count: () => number } {
  let count = 0;
  const spawn: SpawnWorker = () => {
    count += 1;
    return new Worker(`const { parentPort } = require("node:worker_threads");\n${body}`, { eval: true, execArgv: [] });
  };
  return Object.assign(spawn, { count: () => count });
}

function bitsEqual(a: readonly number[][], b: readonly number[][]): boolean {
  return a.length === b.length && a.every((vector, i) => vector.length === b[i]?.length && vector.every((value, k) => Object.is(value, b[i]?.[k])));
}

/** Runs node with `args`; resolves with its exit code and output (a hang fails the test through the test's own timeout). */
function runNode(args: readonly string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd, encoding: "utf8", timeout: 240_000, env: { ...process.env, RECALLGRAPH_LOG_LEVEL: "error" } }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr });
    });
  });
}

describe("USE-lite worker pool: configuration", () => {
  it("reads the worker count and the timeout from the config and the environment", () => {
    assert.deepEqual(embedderConfigFromEnv({ RECALLGRAPH_EMBEDDING_WORKERS: "3", RECALLGRAPH_EMBEDDING_TIMEOUT_MS: "5000" }), {
      provider: "use-lite",
      workers: 3,
      timeoutMs: 5000,
    });
    assert.equal(EmbedderConfigSchema.safeParse({ provider: "use-lite", workers: 0 }).success, false);
    assert.equal(EmbedderConfigSchema.safeParse({ provider: "use-lite", workers: 65 }).success, false);
    const inner = innerOf(createEmbedder({ provider: "use-lite", workers: 3, timeoutMs: 1234, batchSize: 4 }));
    assert.deepEqual([inner.workers, inner.timeoutMs, inner.batchSize], [3, 1234, 4]);
    assert.equal(innerOf(createEmbedder({ provider: "use-lite" })).workers, defaultEmbeddingWorkers());
  });

  it("names the variable of a bad worker count, whatever the provider", () => {
    for (const value of ["0", "-1", "two", "1.5"]) {
      for (const provider of ["use-lite", "hash"]) {
        assert.throws(
          () => embedderConfigFromEnv({ RECALLGRAPH_EMBEDDER: provider, RECALLGRAPH_EMBEDDING_WORKERS: value }),
          (error: unknown) => error instanceof ValidationError && error.field === "RECALLGRAPH_EMBEDDING_WORKERS",
          `${provider} ${value}`,
        );
      }
    }
  });

  it("defaults to one worker per core, at most four, and 1 (this thread) on one core", () => {
    assert.deepEqual([1, 2, 3, 4, 8, 64].map((cores) => defaultEmbeddingWorkers(cores)), [1, 2, 3, 4, 4, 4]);
    assert.equal(defaultEmbeddingWorkers(0), 1);
  });

  it("plans the same batches as the single-thread path: by length, at most batchSize, every position once", () => {
    const batches = lengthSortedBatches(TEXTS, 4);
    assert.deepEqual(batches.flat().sort((a, b) => a - b), TEXTS.map((_, i) => i));
    assert.ok(batches.every((batch) => batch.length <= 4));
    const lengths = batches.flat().map((position) => TEXTS[position]?.length ?? 0);
    assert.deepEqual(lengths, [...lengths].sort((a, b) => a - b));
  });

  it("starts no worker until a call needs one", async () => {
    const embedder = createUseLiteEmbedder({ workers: 2, spawnWorker: fakeSpawn("") });
    assert.equal(innerOf(embedder).poolRunning, false);
    assert.deepEqual(await embedder.embeddings.embedDocuments([]), []);
    assert.equal(innerOf(embedder).poolRunning, false);
    await embedder.close?.();
  });
});

describe("USE-lite worker pool: failures reject, never hang", { timeout: 120_000 }, () => {
  const texts = ["one", "two", "three", "four", "five"];

  it("a worker that crashes rejects the call with an EmbeddingWorkerError", async () => {
    const spawn = fakeSpawn(`parentPort.on("message", () => { throw new Error("boom"); });`);
    const embedder = createUseLiteEmbedder({ workers: 2, batchSize: 2, spawnWorker: spawn });
    await assert.rejects(
      embedder.embeddings.embedDocuments(texts),
      (error: unknown) => error instanceof EmbeddingWorkerError && error.reason === "crashed" && /boom/.test(error.message),
    );
    await embedder.close?.();
  });

  it("a worker that exits rejects the call", async () => {
    const spawn = fakeSpawn(`parentPort.on("message", () => process.exit(3));`);
    const embedder = createUseLiteEmbedder({ workers: 2, batchSize: 2, spawnWorker: spawn });
    await assert.rejects(
      embedder.embeddings.embedDocuments(texts),
      (error: unknown) => error instanceof EmbeddingWorkerError && error.reason === "exited" && error.context.exitCode === 3,
    );
    await embedder.close?.();
  });

  it("a worker that never answers is terminated after the timeout and the call rejects", async () => {
    const spawn = fakeSpawn(`parentPort.on("message", () => {}); setInterval(() => {}, 1000);`);
    const embedder = createUseLiteEmbedder({ workers: 2, batchSize: 2, timeoutMs: 200, spawnWorker: spawn });
    await assert.rejects(
      embedder.embeddings.embedDocuments(texts),
      (error: unknown) => error instanceof EmbeddingWorkerError && error.reason === "timeout" && error.code === "not_configured",
    );
    // The other worker, busy with a batch of the failed call, is terminated at its own timeout: then
    // the pool is empty, and a new call starts fresh workers (which hang again).
    for (let waited = 0; innerOf(embedder).poolRunning && waited < 100; waited += 1) await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(innerOf(embedder).poolRunning, false);
    const before = spawn.count();
    await assert.rejects(embedder.embeddings.embedDocuments(texts), EmbeddingWorkerError);
    assert.ok(spawn.count() > before);
    await embedder.close?.();
  });

  it("a worker that reports an error (model not loadable) rejects the call with its message", async () => {
    const spawn = fakeSpawn(`parentPort.on("message", ({ id }) => parentPort.postMessage({ id, error: "no model here" }));`);
    const embedder = createUseLiteEmbedder({ workers: 2, batchSize: 2, spawnWorker: spawn });
    await assert.rejects(
      embedder.embeddings.embedDocuments(texts),
      (error: unknown) => error instanceof EmbeddingWorkerError && error.reason === "failed" && /no model here/.test(error.message),
    );
    await embedder.close?.();
  });

  it("a worker answering with vectors of the wrong size rejects the call", async () => {
    const spawn = fakeSpawn(`parentPort.on("message", ({ id }) => parentPort.postMessage({ id, vectors: new Float32Array(3) }));`);
    const embedder = createUseLiteEmbedder({ workers: 2, batchSize: 2, spawnWorker: spawn });
    await assert.rejects(embedder.embeddings.embedDocuments(texts), (error: unknown) => error instanceof EmbeddingWorkerError && error.reason === "failed");
    await embedder.close?.();
  });

  it("closing the embedder rejects the waiting call and a later call starts workers again", async () => {
    const spawn = fakeSpawn(`parentPort.on("message", () => {});`);
    const embedder = createUseLiteEmbedder({ workers: 2, batchSize: 2, timeoutMs: 600_000, spawnWorker: spawn });
    // The expectations are attached before the rejections happen, so none is ever unhandled.
    const waiting = assert.rejects(
      embedder.embeddings.embedDocuments(texts),
      (error: unknown) => error instanceof EmbeddingWorkerError && error.reason === "closed",
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(innerOf(embedder).poolRunning, true);
    await embedder.close?.();
    await waiting;
    assert.equal(innerOf(embedder).poolRunning, false);
    const again = assert.rejects(embedder.embeddings.embedDocuments(texts), EmbeddingWorkerError);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(innerOf(embedder).poolRunning, true);
    await embedder.close?.();
    await again;
  });

  it("recovers after a crash: the next call gets a fresh worker with the real model", async () => {
    let spawned = 0;
    const crashFirst: SpawnWorker = (source, data) => {
      spawned += 1;
      return spawned === 1 ? new Worker(`process.exit(1)`, { eval: true, execArgv: [] }) : spawnEmbeddingWorker(source, data);
    };
    const embedder = createUseLiteEmbedder({ workers: 2, batchSize: 2, spawnWorker: crashFirst });
    await assert.rejects(embedder.embeddings.embedDocuments(texts), EmbeddingWorkerError);
    const vectors = await embedder.embeddings.embedDocuments(texts);
    assert.equal(vectors.length, texts.length);
    assert.ok(vectors.every((vector) => vector.length === 512));
    await embedder.close?.();
  });
});

describe("USE-lite worker pool: the real model", { timeout: 600_000 }, () => {
  const pooled = createUseLiteEmbedder({ workers: 2, batchSize: 3 });
  after(() => pooled.close?.());

  it("gives bit-for-bit the vectors of the single-thread embedder", async () => {
    const single = createUseLiteEmbedder({ workers: 1, batchSize: 3 });
    const expected = await single.embeddings.embedDocuments(TEXTS);
    assert.equal(innerOf(single).poolRunning, false, "one worker embeds in this thread");
    const actual = await pooled.embeddings.embedDocuments(TEXTS);
    assert.equal(innerOf(pooled).poolRunning, true);
    assert.ok(bitsEqual(actual, expected), "pool vectors differ from the single-thread ones");
    // A call of one batch, with the pool running, goes to the pool: still the same vectors.
    const small = await pooled.embeddings.embedDocuments(TEXTS.slice(3, 5));
    assert.ok(bitsEqual(small, expected.slice(3, 5)));
    // Queries stay in this thread and agree too.
    assert.ok(bitsEqual([await pooled.embeddings.embedQuery(TEXTS[4] ?? "")], [expected[4] ?? []]));
  });

  it("keeps each call's vectors apart and in input order when calls run at once", async () => {
    // Each half against the single-thread embedding of the same half: vectors depend (in the last
    // float32 bit or so) on which texts share a model call, and the pool keeps the same calls.
    const single = createUseLiteEmbedder({ workers: 1, batchSize: 3 });
    const halves = [TEXTS.slice(0, 9), TEXTS.slice(9)];
    const expected = [await single.embeddings.embedDocuments(halves[0] ?? []), await single.embeddings.embedDocuments(halves[1] ?? [])];
    const actual = await Promise.all(halves.map((half) => pooled.embeddings.embedDocuments(half)));
    assert.ok(bitsEqual(actual[0] ?? [], expected[0] ?? []) && bitsEqual(actual[1] ?? [], expected[1] ?? []));
  });

  it("rejects a batch the model refuses, as in this thread, and keeps the worker", async () => {
    // A model call of only empty texts is refused by the model itself (in this thread too).
    const started = innerOf(pooled).poolRunning;
    assert.ok(started);
    await assert.rejects(
      pooled.embeddings.embedDocuments(["", "", "", "", ""].map(() => "")),
      (error: unknown) => error instanceof EmbeddingWorkerError && error.reason === "failed" && /sparseIndices/.test(error.message),
    );
    assert.equal((await pooled.embeddings.embedDocuments(["still", "works", "fine", "after", "that"])).length, 5);
  });

  it("shares one pool between embedders of the same worker count; the last to close ends it", async () => {
    assert.ok(innerOf(pooled).poolRunning);
    const other = createUseLiteEmbedder({ workers: 2, batchSize: 3 });
    // Already running (the other's): even a call of one batch goes to it, no model in this thread.
    assert.ok(innerOf(other).poolRunning);
    assert.equal((await other.embeddings.embedDocuments(TEXTS)).length, TEXTS.length);
    await other.close?.();
    assert.ok(innerOf(pooled).poolRunning, "still held by the first embedder");
    assert.equal((await pooled.embeddings.embedDocuments(TEXTS.slice(0, 7))).length, 7);
    await pooled.close?.();
    assert.equal(innerOf(pooled).poolRunning, false);
    assert.equal(innerOf(other).poolRunning, false);
  });

  it("lets a process that never closes its embedder exit (sources under tsx)", async () => {
    const script = [
      `import { createUseLiteEmbedder } from "./src/text/embedders/use-lite.ts";`,
      `const embedder = createUseLiteEmbedder({ workers: 2, batchSize: 2 });`,
      `const vectors = await embedder.embeddings.embedDocuments(["a dog", "a puppy", "tax return", "a cat", "a kitten"]);`,
      `console.log("embedded", vectors.length, embedder.embeddings.inner.poolRunning);`,
    ].join("\n");
    const run = await runNode(["--import", "tsx", "--input-type=module", "-e", script], ROOT);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /embedded 5 true/);
  });

  it("works from compiled JavaScript with no TypeScript loader, and that process exits too", async () => {
    // The embedder's modules transpiled as the build emits them (one .js per .ts, same folders),
    // beside a node_modules like an installed package's: no tsx anywhere in the child.
    const out = mkdtempSync(join(tmpdir(), "recallgraph-dist-"));
    try {
      const files = [
        ...readdirSync(join(ROOT, "src", "core")).map((name) => join("core", name)),
        "text/embedder.ts",
        "text/sentences.ts",
        ...readdirSync(join(ROOT, "src", "text", "embedders")).map((name) => join("text", "embedders", name)),
      ].filter((file) => file.endsWith(".ts"));
      for (const file of files) {
        const source = readFileSync(join(ROOT, "src", file), "utf8");
        const { outputText } = ts.transpileModule(source, {
          compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
          fileName: file,
        });
        const target = join(out, "dist", file.replace(/\.ts$/, ".js"));
        mkdirSync(dirname(target), { recursive: true });
        writeFileSync(target, outputText);
      }
      writeFileSync(join(out, "package.json"), JSON.stringify({ type: "module" }));
      symlinkSync(join(ROOT, "node_modules"), join(out, "node_modules"), "dir");
      const entry = `./${relative(out, join(out, "dist", "text", "embedders", "use-lite.js"))}`;
      const script = [
        `import { createUseLiteEmbedder } from ${JSON.stringify(entry)};`,
        `const embedder = createUseLiteEmbedder({ workers: 2, batchSize: 3 });`,
        `const vectors = await embedder.embeddings.embedDocuments(${JSON.stringify(TEXTS)});`,
        `console.log(JSON.stringify({ running: embedder.embeddings.inner.poolRunning, vectors }));`,
      ].join("\n");
      const run = await runNode(["--input-type=module", "-e", script], out);
      assert.equal(run.code, 0, run.stderr);
      assert.doesNotMatch(run.stderr, /tsx/);
      const output = JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}") as { running: boolean; vectors: number[][] };
      assert.equal(output.running, true, run.stdout.slice(0, 200));
      const expected = await createUseLiteEmbedder({ workers: 1, batchSize: 3 }).embeddings.embedDocuments(TEXTS);
      // JSON carries doubles exactly (shortest round-trip form), so this is still bit for bit.
      assert.ok(bitsEqual(output.vectors, expected));
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
