import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { Embeddings } from "@langchain/core/embeddings";
import { z } from "zod";
import { ValidationError } from "../../src/core/errors.js";
import { checkedEmbedder, EmbeddingOutputError } from "../../src/text/embedders/checked.js";
import { hashEmbed } from "../../src/text/embedders/hash-features.js";
import { HASH_DEFAULT_DIMENSION } from "../../src/text/embedders/hashing.js";
import { createEmbedder, EmbedderConfigSchema, embedderConfigFromEnv } from "../../src/text/embedders/create-embedder.js";
import { loadUseLiteModel, USE_LITE_SPEC, USE_LITE_TEXT_WORDS, useLiteTrustworthyFor } from "../../src/text/embedders/use-lite.js";
import { wordCount } from "../../src/text/sentences.js";

function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let i = 0; i < a.length; i++) {
    dot += (a[i] ?? 0) * (b[i] ?? 0);
    normA += (a[i] ?? 0) ** 2;
    normB += (b[i] ?? 0) ** 2;
  }
  return dot / Math.sqrt(normA * normB);
}

function assertUnitAndFinite(vector: readonly number[]): void {
  assert.ok(vector.every(Number.isFinite));
  assert.ok(Math.abs(Math.hypot(...vector) - 1) < 1e-6);
}

describe("hash embedder", () => {
  const embedder = createEmbedder({ provider: "hash" });

  it("has spec hash-v1 and the configured dimension", async () => {
    assert.deepEqual(embedder.spec, { model: "hash-v1", dimension: HASH_DEFAULT_DIMENSION });
    const small = createEmbedder({ provider: "hash", dimension: 64 });
    assert.equal((await small.embeddings.embedQuery("hello world")).length, 64);
  });

  it("is deterministic, unit length and finite, even for empty text", async () => {
    const [first, second] = await embedder.embeddings.embedDocuments(["Caroline went hiking", "Caroline went hiking"]);
    assert.ok(first && second);
    assert.deepEqual(first, second);
    assert.deepEqual(await embedder.embeddings.embedQuery("Caroline went hiking"), first);
    assert.equal(first.length, HASH_DEFAULT_DIMENSION);
    for (const text of ["Caroline went hiking", "", "?!", "报销的标准是多少", "🙂"]) assertUnitAndFinite(hashEmbed(text, 128));
  });

  it("ranks similar texts above unrelated ones", async () => {
    const [query, near, far] = await embedder.embeddings.embedDocuments([
      "When did Caroline go hiking in the mountains?",
      "Caroline hiked in the mountains last weekend",
      "The tax return is due in April",
    ]);
    assert.ok(query && near && far);
    assert.ok(cosine(query, near) > cosine(query, far) + 0.2, `${cosine(query, near)} vs ${cosine(query, far)}`);
    const zhQuery = hashEmbed("报销标准", 512);
    assert.ok(cosine(zhQuery, hashEmbed("报销的标准是多少", 512)) > cosine(zhQuery, hashEmbed("今天天气很好", 512)));
  });

  it("trusts every script", () => {
    assert.equal(embedder.trustworthyFor("报销的标准是多少"), true);
  });
});

describe("checked embeddings", () => {
  class FakeEmbeddings extends Embeddings {
    constructor(private readonly vector: number[]) {
      super({});
    }
    override async embedDocuments(documents: string[]): Promise<number[][]> {
      return documents.map(() => this.vector);
    }
    override async embedQuery(): Promise<number[]> {
      return this.vector;
    }
  }
  const spec = { model: "fake", dimension: 4 };

  it("rejects a wrong dimension, naming both dimensions", async () => {
    const embedder = checkedEmbedder(new FakeEmbeddings([1, 0, 0]), spec, () => true);
    await assert.rejects(embedder.embeddings.embedQuery("x"), (error: unknown) => {
      assert.ok(error instanceof EmbeddingOutputError);
      assert.match(error.message, /3-d vector .*expected 4-d/);
      return true;
    });
    await assert.rejects(embedder.embeddings.embedDocuments(["x", "y"]), EmbeddingOutputError);
  });

  it("rejects non-finite values and passes good vectors through", async () => {
    const bad = checkedEmbedder(new FakeEmbeddings([1, Number.NaN, 0, 0]), spec, () => true);
    await assert.rejects(bad.embeddings.embedDocuments(["x"]), /non-finite value \(NaN\) at index 1/);
    const good = checkedEmbedder(new FakeEmbeddings([1, 0, 0, 0]), spec, () => true);
    assert.deepEqual(await good.embeddings.embedDocuments(["x"]), [[1, 0, 0, 0]]);
    assert.deepEqual(await good.embeddings.embedDocuments([]), []);
  });
});

describe("OpenAI-compatible embedder against a loopback server", () => {
  const EmbeddingRequestSchema = z.strictObject({
    model: z.string(),
    input: z.union([z.string(), z.array(z.string())]),
    dimensions: z.number().int().optional(),
    encoding_format: z.enum(["float", "base64"]).optional(),
  });
  type EmbeddingRequest = z.infer<typeof EmbeddingRequestSchema>;

  const requests: Array<{ path: string; authorization: string | undefined; body: EmbeddingRequest }> = [];
  /** Dimension the fake server answers with; a test changes it to simulate a misconfigured model. */
  let servedDimension = 8;
  let server: Server;
  let baseURL = "";

  async function readBody(request: IncomingMessage): Promise<string> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
    return Buffer.concat(chunks).toString("utf8");
  }

  before(async () => {
    server = createServer((request, response) => {
      void readBody(request).then((text) => {
        const body = EmbeddingRequestSchema.parse(JSON.parse(text));
        requests.push({ path: request.url ?? "", authorization: request.headers.authorization, body });
        const inputs = typeof body.input === "string" ? [body.input] : body.input;
        const data = inputs.map((input, index) => ({
          object: "embedding",
          index,
          // Deterministic per input, so order can be checked.
          embedding: Array.from({ length: servedDimension }, (_, i) => (i === input.length % servedDimension ? 1 : 0)),
        }));
        response.writeHead(200, { "content-type": "application/json" });
        response.end(JSON.stringify({ object: "list", data, model: body.model, usage: { prompt_tokens: 1, total_tokens: 1 } }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });

  after(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it("sends model, dimensions and encoding_format float, in batches, and returns vectors in order", async () => {
    requests.length = 0;
    servedDimension = 8;
    const embedder = createEmbedder({ provider: "openai", model: "test-embed", dimensions: 8, baseURL, apiKey: "sk-test", batchSize: 2 });
    assert.deepEqual(embedder.spec, { model: "openai:test-embed", dimension: 8 });
    const vectors = await embedder.embeddings.embedDocuments(["a", "bb", "ccc", "dddd\nline two"]);
    assert.equal(vectors.length, 4);
    assert.deepEqual(
      vectors.map((vector) => vector.indexOf(1)),
      [1, 2, 3, "dddd\nline two".length % 8],
    );
    assert.equal(requests.length, 2);
    for (const request of requests) {
      assert.equal(request.path, "/v1/embeddings");
      assert.equal(request.authorization, "Bearer sk-test");
      assert.equal(request.body.model, "test-embed");
      assert.equal(request.body.dimensions, 8);
      assert.equal(request.body.encoding_format, "float");
    }
    assert.deepEqual(requests[1]?.body.input, ["ccc", "dddd\nline two"], "newlines are kept");
    assert.equal((await embedder.embeddings.embedQuery("query")).length, 8);
  });

  it("fails with the dimension named when the server returns another size", async () => {
    servedDimension = 4;
    const embedder = createEmbedder({ provider: "openai", model: "test-embed", dimensions: 8, baseURL, maxRetries: 0 });
    await assert.rejects(embedder.embeddings.embedQuery("hello"), (error: unknown) => {
      assert.ok(error instanceof EmbeddingOutputError);
      assert.match(error.message, /4-d vector .*expected 8-d/);
      return true;
    });
    servedDimension = 8;
  });

  it("requires an API key when no base URL is given", () => {
    assert.throws(() => createEmbedder({ provider: "openai", model: "m", dimensions: 8 }), ValidationError);
  });
});

describe("embedder configuration", () => {
  it("validates explicit configuration", () => {
    assert.equal(EmbedderConfigSchema.safeParse({ provider: "hash", dimension: 0 }).success, false);
    assert.equal(EmbedderConfigSchema.safeParse({ provider: "openai", model: "m" }).success, false);
    assert.equal(EmbedderConfigSchema.safeParse({ provider: "openai", model: "m", dimensions: 8, baseURL: "ftp://x" }).success, false);
    assert.equal(EmbedderConfigSchema.safeParse({ provider: "bert" }).success, false);
    assert.throws(() => createEmbedder({ provider: "hash", dimension: -1 }), ValidationError);
  });

  it("defaults to use-lite and reads every variable", () => {
    assert.deepEqual(embedderConfigFromEnv({}), { provider: "use-lite" });
    assert.deepEqual(embedderConfigFromEnv({ RECALLGRAPH_EMBEDDER: "hash", RECALLGRAPH_EMBEDDING_DIMENSIONS: "64" }), {
      provider: "hash",
      dimension: 64,
    });
    assert.deepEqual(
      embedderConfigFromEnv({
        RECALLGRAPH_EMBEDDER: "openai",
        RECALLGRAPH_EMBEDDING_MODEL: "bge-m3",
        RECALLGRAPH_EMBEDDING_DIMENSIONS: "1024",
        RECALLGRAPH_EMBEDDING_BATCH_SIZE: "64",
        OPENAI_BASE_URL: "http://127.0.0.1:8000/v1",
      }),
      { provider: "openai", model: "bge-m3", dimensions: 1024, baseURL: "http://127.0.0.1:8000/v1", batchSize: 64 },
    );
    assert.deepEqual(embedderConfigFromEnv({ RECALLGRAPH_EMBEDDER: "openai", OPENAI_API_KEY: "sk-x" }), {
      provider: "openai",
      model: "text-embedding-3-small",
      dimensions: 1536,
      apiKey: "sk-x",
    });
  });

  it("names the variable when a value is invalid", () => {
    const cases: Array<[NodeJS.ProcessEnv, string]> = [
      [{ RECALLGRAPH_EMBEDDER: "bert" }, "RECALLGRAPH_EMBEDDER"],
      [{ RECALLGRAPH_EMBEDDER: "hash", RECALLGRAPH_EMBEDDING_DIMENSIONS: "many" }, "RECALLGRAPH_EMBEDDING_DIMENSIONS"],
      [{ RECALLGRAPH_EMBEDDER: "use-lite", RECALLGRAPH_EMBEDDING_DIMENSIONS: "256" }, "RECALLGRAPH_EMBEDDING_DIMENSIONS"],
      [{ RECALLGRAPH_EMBEDDER: "openai", RECALLGRAPH_EMBEDDING_MODEL: "bge-m3", OPENAI_API_KEY: "k" }, "RECALLGRAPH_EMBEDDING_DIMENSIONS"],
      [{ RECALLGRAPH_EMBEDDER: "openai" }, "OPENAI_API_KEY"],
      [{ RECALLGRAPH_EMBEDDER: "openai", OPENAI_BASE_URL: "not a url" }, "OPENAI_BASE_URL"],
      [{ RECALLGRAPH_EMBEDDER: "openai", OPENAI_API_KEY: "k", RECALLGRAPH_EMBEDDING_BATCH_SIZE: "0" }, "RECALLGRAPH_EMBEDDING_BATCH_SIZE"],
    ];
    for (const [env, variable] of cases) {
      assert.throws(
        () => embedderConfigFromEnv(env),
        (error: unknown) => error instanceof ValidationError && error.field === variable && error.message.includes(variable),
        JSON.stringify(env),
      );
    }
  });
});

describe("USE-lite embedder", () => {
  it("distrusts mostly-CJK text", () => {
    assert.equal(useLiteTrustworthyFor("When did Caroline go hiking?"), true);
    assert.equal(useLiteTrustworthyFor("报销的标准是多少"), false);
    assert.equal(useLiteTrustworthyFor("私は本を買いました"), false);
    assert.equal(useLiteTrustworthyFor("ERR_1024 的报销"), true);
    assert.equal(useLiteTrustworthyFor("🙂🙂"), false);
  });

  it("loads offline from the package and embeds meaningfully (512-d)", async () => {
    // Any network attempt during loading fails the test.
    const realFetch = globalThis.fetch;
    const fetched: string[] = [];
    globalThis.fetch = async (input: string | URL | Request): Promise<Response> => {
      fetched.push(String(input));
      throw new Error("network disabled in this test");
    };
    try {
      await loadUseLiteModel();
    } finally {
      globalThis.fetch = realFetch;
    }
    assert.deepEqual(fetched, []);

    const embedder = createEmbedder({ provider: "use-lite", batchSize: 2 });
    assert.deepEqual(embedder.spec, USE_LITE_SPEC);
    const texts = ["dog", "puppy", "tax return", "报销的标准是多少", "今天天气很好"];
    const vectors = await embedder.embeddings.embedDocuments(texts);
    const [dog, puppy, tax, zhA, zhB] = vectors;
    assert.ok(dog && puppy && tax && zhA && zhB);
    for (const vector of vectors) {
      assert.equal(vector.length, 512);
      assert.ok(vector.every(Number.isFinite));
    }
    assert.ok(cosine(dog, puppy) > cosine(dog, tax) + 0.2, `${cosine(dog, puppy)} vs ${cosine(dog, tax)}`);
    // The documented limitation: all CJK text collapses onto one vector.
    assert.ok(cosine(zhA, zhB) > 0.999);
    // Length-sorted batching must give vectors back in input order.
    const single = await embedder.embeddings.embedQuery("tax return");
    assert.ok(cosine(single, tax) > 0.9999);
  });

  it("embeds a text longer than it represents as the mean of its sentences, a shorter one whole", async () => {
    const embedder = createEmbedder({ provider: "use-lite", workers: 1 });
    const sentences = [
      "Microglia prune synapses during the development of the mouse visual system.",
      "Complement proteins tag the weaker synapses for removal.",
      "Mice lacking the complement receptor keep more synapses into adulthood.",
    ];
    // Each sentence 35 words: the three together are over USE_LITE_TEXT_WORDS, any one of them is not.
    const padded = sentences.map((sentence) => `${sentence} ${Array.from({ length: 35 - wordCount(sentence) }, () => "indeed").join(" ")}.`);
    const long = padded.join(" ");
    assert.ok(wordCount(long) > USE_LITE_TEXT_WORDS && padded.every((sentence) => wordCount(sentence) <= USE_LITE_TEXT_WORDS));
    const [whole, ...parts] = await embedder.embeddings.embedDocuments([long, ...padded]);
    assert.ok(whole && parts.length === 3);
    const sum = whole.map((_, i) => parts.reduce((total, part) => total + (part[i] ?? 0), 0));
    const norm = Math.hypot(...sum);
    assert.ok(cosine(whole, sum.map((value) => value / norm)) > 0.9999, "the long text's vector is along the sum of its sentences'");
    assert.ok(Math.abs(Math.hypot(...whole) - 1) < 1e-6, "unit length");
    const asQuery = await embedder.embeddings.embedQuery(long);
    assert.ok(cosine(asQuery, whole) > 0.9999, "a long query is embedded the same way");
    const [short] = await embedder.embeddings.embedDocuments([sentences.join(" ")]);
    const model = await loadUseLiteModel();
    assert.ok(short && cosine(short, await model.embed(sentences.join(" "))) > 0.9999, "a text within the limit is embedded whole");
  });
});
