import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createEmbedder, USE_LITE_SPEC } from "../../src/text/embedders/create-embedder.js";
import { openAIEmbeddingSpec } from "../../src/text/embedders/openai.js";
import {
  EMBEDDER_KINDS,
  EMBEDDER_PROFILES,
  EmbedderProfileSchema,
  embedderKindOf,
  embedderProfileFor,
} from "../../src/text/embedders/profiles.js";

describe("embedder profiles", () => {
  it("knows the kind of every embedder recallgraph builds, from the spec a store records", () => {
    assert.equal(embedderKindOf(USE_LITE_SPEC), "use-lite");
    assert.equal(embedderKindOf(createEmbedder({ provider: "hash", dimension: 64 }).spec), "hash");
    assert.equal(embedderKindOf(openAIEmbeddingSpec("text-embedding-3-small", 1536)), "openai");
    // Any model behind an OpenAI-compatible endpoint is of the openai kind, not only OpenAI's own.
    assert.equal(embedderKindOf(openAIEmbeddingSpec("bge-m3", 1024)), "openai");
  });

  it("gives an embedder it did not build the documented default", () => {
    const spec = { model: "my-own-encoder", dimension: 384 };
    assert.equal(embedderKindOf(spec), "unknown");
    assert.deepEqual(embedderProfileFor(spec), EMBEDDER_PROFILES.unknown);
    // Not fooled by a model name that only contains a known one.
    assert.equal(embedderKindOf({ model: "use-lite-v2", dimension: 512 }), "unknown");
  });

  it("weighs a retrieval-trained embedder as the published chain does and the weak ones below it", () => {
    assert.equal(embedderProfileFor(openAIEmbeddingSpec("text-embedding-3-large", 3072)).denseWeight, 1);
    assert.equal(embedderProfileFor(USE_LITE_SPEC).denseWeight, 0.3);
    const weight = (kind: (typeof EMBEDDER_KINDS)[number]) => EMBEDDER_PROFILES[kind].denseWeight;
    assert.ok(weight("hash") < weight("use-lite"), "the hashing embedder only repeats BM25's evidence");
    assert.ok(weight("use-lite") < weight("unknown") && weight("unknown") < weight("openai"));
    assert.ok(weight("use-lite") < weight("onnx"), "the in-process retrieval-trained model votes more than the weak offline one");
  });

  it("declares one valid profile per kind", () => {
    assert.deepEqual(Object.keys(EMBEDDER_PROFILES).sort(), [...EMBEDDER_KINDS].sort());
    for (const profile of Object.values(EMBEDDER_PROFILES)) assert.doesNotThrow(() => EmbedderProfileSchema.parse(profile));
  });
});
