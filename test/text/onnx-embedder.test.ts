/**
 * The onnx embedder on the project's copy of all-MiniLM-L6-v2 (int8), read in place from
 * ../shared/models (skipped, saying so, where that folder is absent). The model is loaded once for
 * the file: one embedder serves every test that needs vectors.
 */
import assert from "node:assert/strict";
import { cpSync, createReadStream, existsSync, mkdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { EmbedderMismatchError, ValidationError } from "../../src/core/errors.js";
import { openStore } from "../../src/stores/open-store.js";
import { createEmbedder, embedderConfigFromEnv, OnnxModelError } from "../../src/text/embedders/create-embedder.js";
import { readModelFolder } from "../../src/text/embedders/onnx-folder.js";
import { EMBEDDER_PROFILES, embedderKindOf, embedderProfileFor } from "../../src/text/embedders/profiles.js";
import { oneLineError, ROOT, runProcess, temporaryFolder } from "../cli/helpers.js";

const MODEL = path.resolve(ROOT, "../shared/models/all-MiniLM-L6-v2-int8");
const skip = existsSync(path.join(MODEL, "onnx/model_quantized.onnx")) ? false : `MiniLM model folder not found at ${MODEL}`;

const cosine = (a: readonly number[], b: readonly number[]) => a.reduce((sum, value, i) => sum + value * (b[i] ?? 0), 0);
const norm = (a: readonly number[]) => Math.hypot(...a);

/** A scratch folder with a copy of the model's small files (not the weights) to break in one way or another. */
function brokenCopy(name: string): string {
  const folder = path.join(tmpdir(), `recallgraph-onnx-${process.pid}-${name}`);
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  for (const file of ["config.json", "modules.json", "1_Pooling", "sentence_bert_config.json", "config_sentence_transformers.json"]) {
    cpSync(path.join(MODEL, file), path.join(folder, file), { recursive: true });
  }
  return folder;
}

/**
 * The model folder served as a model hub serves it (`/<owner>/<name>/resolve/main/<file>`), on
 * loopback, so the first-use download runs without the network. Records every path asked for.
 */
async function loopbackHub(folder: string, hubId: string): Promise<{ url: string; asked: string[]; close: () => Promise<void> }> {
  const asked: string[] = [];
  const prefix = `/${hubId}/resolve/main/`;
  const server = createServer((request, response) => {
    const url = decodeURIComponent(new URL(request.url ?? "/", "http://127.0.0.1").pathname);
    asked.push(url);
    const file = url.startsWith(prefix) ? path.join(folder, url.slice(prefix.length)) : undefined;
    if (!file || !existsSync(file) || !statSync(file).isFile()) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { "content-length": statSync(file).size });
    if (request.method === "HEAD") response.end();
    else createReadStream(file).pipe(response);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    asked,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe("the onnx embedder (all-MiniLM-L6-v2, int8)", { skip }, () => {
  const embedder = skip ? undefined : createEmbedder({ provider: "onnx", model: MODEL });
  const scratch: string[] = [];
  after(async () => {
    await embedder?.close?.();
    for (const folder of scratch) rmSync(folder, { recursive: true, force: true });
  });
  const embeddings = () => {
    assert.ok(embedder);
    return embedder.embeddings;
  };

  it("is trusted on English and not on Chinese prose, whose characters its vocabulary mostly lacks", () => {
    assert.ok(embedder);
    assert.equal(embedder.trustworthyFor("Where did Dana move for her job?"), true);
    assert.equal(embedder.trustworthyFor("《战国无双3》是由光荣和ω-force开发的战国无双系列的正统第三续作。"), false);
  });

  it("reads the model folder: 384-d, mean pooling, unit vectors, 256 tokens, no prefixes, q8", () => {
    assert.deepEqual(embedder?.spec, { model: "onnx:all-MiniLM-L6-v2-int8:q8", dimension: 384 });
    assert.deepEqual(readModelFolder(MODEL), {
      folder: MODEL,
      dtype: "q8",
      dimension: 384,
      pooling: "mean",
      normalize: true,
      maxLength: 256,
      queryPrefix: "",
      documentPrefix: "",
    });
    assert.equal(embedderKindOf(embedder?.spec ?? { model: "", dimension: 1 }), "onnx");
    assert.deepEqual(embedderProfileFor(embedder?.spec ?? { model: "", dimension: 1 }), EMBEDDER_PROFILES.onnx);
  });

  it("gives 384-d unit vectors with the model README's cosines, to 3 decimals", async () => {
    const [cat, kitten, markets] = await embeddings().embedDocuments(["the cat sat on the mat", "a kitten rests on a rug", "stock markets fell sharply"]);
    assert.ok(cat && kitten && markets);
    for (const vector of [cat, kitten, markets]) {
      assert.equal(vector.length, 384);
      assert.ok(Math.abs(norm(vector) - 1) < 1e-5, `unit length, got ${norm(vector)}`);
    }
    assert.equal(cosine(cat, kitten).toFixed(3), "0.615");
    assert.equal(cosine(cat, markets).toFixed(3), "0.053");
    // A query (no prefix for this model) is the same text embedded the same way.
    const query = await embeddings().embedQuery("the cat sat on the mat");
    assert.ok(cosine(query, cat) > 0.99999);
  });

  it("cuts a text at 256 tokens: a 1,000-word text embeds as its first 254 word pieces", async () => {
    // One word piece per word ("w0".."w9" are not single pieces, so plain common words), [CLS] and [SEP] around them.
    const words = Array.from({ length: 1000 }, (_, i) => ["river", "stone", "light", "house", "green"][i % 5] ?? "");
    const [whole, head, shorter] = await embeddings().embedDocuments([words.join(" "), words.slice(0, 254).join(" "), words.slice(0, 200).join(" ")]);
    assert.ok(whole && head && shorter);
    assert.ok(cosine(whole, head) > 0.99999, `the long text is its first 254 words, cosine ${cosine(whole, head)}`);
    assert.ok(cosine(whole, shorter) < 0.99999, "and not fewer");
  });

  it("embeds a batch as it embeds each text alone", async () => {
    const texts = ["dog", "Alice moved to Lisbon in 2021 and works as a nurse.", "tax return deadline", "ERR_1024 的报销"];
    const together = await embeddings().embedDocuments(texts);
    for (const [i, text] of texts.entries()) {
      const [alone] = await embeddings().embedDocuments([text]);
      assert.ok(alone && together[i]);
      assert.ok(cosine(alone, together[i] ?? []) > 0.99999, `text ${i}: padding in a batch changes nothing`);
    }
  });

  it("gives the same vectors, bit for bit, from worker threads", async () => {
    const texts = ["dog", "puppy", "a kitten rests on a rug", "stock markets fell sharply", "Bob drinks green tea every morning.", "x"];
    const pooled = createEmbedder({ provider: "onnx", model: MODEL, workers: 2, batchSize: 2 });
    try {
      const fromWorkers = await pooled.embeddings.embedDocuments(texts);
      const here = await createEmbedder({ provider: "onnx", model: MODEL, workers: 1, batchSize: 2 }).embeddings.embedDocuments(texts);
      assert.deepEqual(fromWorkers, here);
    } finally {
      await pooled.close?.();
    }
  });

  it("names the problem: a missing folder, a folder without ONNX weights, a missing dtype, a bad config", () => {
    const code = (reason: string) => (error: unknown) => error instanceof OnnxModelError && error.reason === reason && error.code === "not_configured";
    assert.throws(() => createEmbedder({ provider: "onnx", model: path.join(tmpdir(), "no-such-model-folder") }), code("missing_folder"));
    const noWeights = brokenCopy("no-weights");
    scratch.push(noWeights);
    assert.throws(() => createEmbedder({ provider: "onnx", model: noWeights }), (error: unknown) => code("missing_onnx")(error) && /model_quantized\.onnx or onnx\/model\.onnx/.test(String(error)));
    assert.throws(() => createEmbedder({ provider: "onnx", model: MODEL, dtype: "fp32" }), (error: unknown) => code("missing_onnx")(error) && /onnx\/model\.onnx not found \(dtype fp32\)/.test(String(error)));
    const badPooling = brokenCopy("bad-pooling");
    scratch.push(badPooling);
    mkdirSync(path.join(badPooling, "onnx"));
    writeFileSync(path.join(badPooling, "onnx/model.onnx"), "");
    writeFileSync(path.join(badPooling, "1_Pooling/config.json"), JSON.stringify({ word_embedding_dimension: 384, pooling_mode_lasttoken: true }));
    assert.throws(() => createEmbedder({ provider: "onnx", model: badPooling }), (error: unknown) => code("bad_config")(error) && /pooling_mode_lasttoken/.test(String(error)));
    writeFileSync(path.join(badPooling, "sentence_bert_config.json"), JSON.stringify({ max_seq_length: "long" }));
    assert.throws(() => createEmbedder({ provider: "onnx", model: badPooling, pooling: "mean" }), (error: unknown) => code("bad_config")(error) && /sentence_bert_config\.json: max_seq_length/.test(String(error)));
  });

  it("needs the vector size of a hub model that is not in the cache yet, except the default one's", () => {
    const cacheDir = path.join(tmpdir(), `recallgraph-onnx-cache-${process.pid}`);
    assert.throws(() => createEmbedder({ provider: "onnx", model: "someone/some-model", cacheDir }), (error: unknown) => error instanceof ValidationError && error.field === "dimensions");
    const config = embedderConfigFromEnv({ RECALLGRAPH_EMBEDDER: "onnx", RECALLGRAPH_MODEL_CACHE: cacheDir });
    assert.deepEqual(config, { provider: "onnx", model: "Xenova/all-MiniLM-L6-v2", dimensions: 384, cacheDir });
    // Nothing is fetched to build it: the spec is known, the model comes on first use.
    assert.deepEqual(createEmbedder(config).spec, { model: "onnx:Xenova/all-MiniLM-L6-v2:q8", dimension: 384 });
    assert.throws(() => embedderConfigFromEnv({ RECALLGRAPH_EMBEDDER: "onnx", RECALLGRAPH_EMBEDDING_DTYPE: "fp16" }), (error: unknown) => error instanceof ValidationError && error.field === "RECALLGRAPH_EMBEDDING_DTYPE");
  });

  it("fetches a hub model once into its cache on first use, then embeds from there with no server (a hub on loopback)", { timeout: 120_000 }, async () => {
    const { env } = await import("@huggingface/transformers");
    const hubId = "Xenova/all-MiniLM-L6-v2";
    const hub = await loopbackHub(MODEL, hubId);
    const cacheDir = path.join(tmpdir(), `recallgraph-onnx-hub-${process.pid}`);
    scratch.push(cacheDir);
    const remoteHost = env.remoteHost;
    env.remoteHost = hub.url;
    const text = "the cat sat on the mat";
    const [fromFolder] = await embeddings().embedDocuments([text]);
    try {
      const first = createEmbedder({ provider: "onnx", model: hubId, dimensions: 384, cacheDir, workers: 1 });
      assert.deepEqual(first.spec, { model: `onnx:${hubId}:q8`, dimension: 384 }, "known before anything is fetched");
      const [fetched] = await first.embeddings.embedDocuments([text]);
      await first.close?.();
      for (const file of ["onnx/model_quantized.onnx", "tokenizer.json", "modules.json", "1_Pooling/config.json"]) {
        assert.ok(hub.asked.includes(`/${hubId}/resolve/main/${file}`), `${file} fetched (asked: ${hub.asked.join(", ")})`);
        assert.ok(existsSync(path.join(cacheDir, hubId, file)), `${file} kept in the cache`);
      }
      await hub.close();
      const asked = hub.asked.length;
      const again = createEmbedder({ provider: "onnx", model: hubId, dimensions: 384, cacheDir, workers: 1 });
      const [cached] = await again.embeddings.embedDocuments([text]);
      await again.close?.();
      assert.equal(hub.asked.length, asked, "the second embedder asked the hub nothing");
      assert.ok(fromFolder && fetched && cached);
      assert.deepEqual(cached, fetched);
      assert.ok(cosine(fetched, fromFolder) > 0.99999, "the same model as the folder's");
    } finally {
      env.remoteHost = remoteHost;
      await hub.close();
    }
  });

  it("writes a store that refuses another model", async () => {
    const folder = await temporaryFolder();
    try {
      const file = path.join(folder.path, "memory.db");
      const store = await openStore({ kind: "sqlite", path: file }, embedder?.spec ?? { model: "", dimension: 1 });
      await store.close();
      // The same model at another dtype, and another 384-d model, are both other models.
      for (const spec of [{ model: "onnx:all-MiniLM-L6-v2-int8:fp32", dimension: 384 }, { model: "onnx:Xenova/bge-small-en-v1.5:q8", dimension: 384 }]) {
        await assert.rejects(openStore({ kind: "sqlite", path: file }, spec), EmbedderMismatchError);
      }
      const again = await openStore({ kind: "sqlite", path: file }, embedder?.spec ?? { model: "", dimension: 1 });
      await again.close();
    } finally {
      await folder.remove();
    }
  });

  it("runs from the command line: --embedder onnx ingests and answers, and a store it wrote refuses use-lite", { timeout: 120_000 }, async () => {
    const folder = await temporaryFolder();
    try {
      writeFileSync(
        path.join(folder.path, "notes.jsonl"),
        ['{"text":"Bob drinks green tea every morning."}', '{"text":"Alice bought a red bicycle in Berlin."}', '{"text":"The quarterly report is due on Friday."}'].join("\n"),
      );
      const env = { ...process.env, RECALLGRAPH_EMBEDDING_MODEL: MODEL, RECALLGRAPH_LOG_LEVEL: "error" };
      const cli = (args: string[]) => runProcess(process.execPath, [path.join(ROOT, "bin/recallgraph.js"), ...args], { cwd: folder.path, env });
      const ingest = await cli(["ingest", "notes.jsonl", "--embedder", "onnx", "--json"]);
      assert.equal(ingest.code, 0, ingest.stderr);
      // "beverage" shares no word with any memory: only the dense view can find the tea.
      const query = await cli(["query", "which beverage does he like", "--namespace", "default", "--embedder", "onnx", "--json"]);
      assert.equal(query.code, 0, query.stderr);
      const answer = JSON.parse(query.stdout) as { results: { text: string; provenance: { views: string[] } }[] };
      assert.match(answer.results[0]?.text ?? "", /green tea/);
      assert.deepEqual(answer.results[0]?.provenance.views, ["semantic"], "found by the semantic view alone");
      const other = await cli(["query", "tea", "--namespace", "default", "--embedder", "use-lite"]);
      assert.equal(other.code, 1, "a user error: the store needs the embedder it was built with");
      assert.match(oneLineError(other), /onnx:all-MiniLM-L6-v2-int8:q8.*--embedder onnx/);
    } finally {
      await folder.remove();
    }
  });
});
