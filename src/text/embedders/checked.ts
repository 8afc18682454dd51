import { Embeddings, type EmbeddingsInterface } from "@langchain/core/embeddings";
import { RecallGraphError } from "../../core/errors.js";
import type { EmbeddingSpec } from "../embedder.js";
import type { Embedder } from "../embedder.js";

/** An embedder produced a vector that does not fit its own spec (wrong dimension, NaN, wrong count). */
export class EmbeddingOutputError extends RecallGraphError {
  constructor(spec: EmbeddingSpec, message: string, context: Record<string, unknown> = {}) {
    super("embedder_mismatch", `embedder "${spec.model}" (${spec.dimension}-d): ${message}`, { spec, ...context });
  }
}

/** Throws unless `vector` has exactly `spec.dimension` finite numbers. `position` names the input in the message. */
export function assertVector(spec: EmbeddingSpec, vector: unknown, position: number): asserts vector is number[] {
  if (!Array.isArray(vector)) throw new EmbeddingOutputError(spec, `returned no vector for input ${position}`, { position });
  if (vector.length !== spec.dimension) {
    throw new EmbeddingOutputError(
      spec,
      `returned a ${vector.length}-d vector for input ${position}, expected ${spec.dimension}-d ` +
        "(check the configured dimensions against what the model produces)",
      { position, dimension: vector.length },
    );
  }
  for (let i = 0; i < vector.length; i++) {
    const value: unknown = vector[i];
    if (typeof value !== "number" || !Number.isFinite(value)) {
      throw new EmbeddingOutputError(spec, `returned a non-finite value (${String(value)}) at index ${i} for input ${position}`, {
        position,
        index: i,
      });
    }
  }
}

/**
 * Wraps any LangChain embeddings so that every vector leaving it is checked against the spec the
 * store records: a provider silently returning 1536-d vectors for a 512-d store, or NaN, is an
 * error here rather than garbage in the index.
 */
export class CheckedEmbeddings extends Embeddings {
  constructor(
    readonly inner: EmbeddingsInterface,
    readonly spec: EmbeddingSpec,
  ) {
    // Retries belong to the inner embeddings (the OpenAI one has its own); none are added here.
    super({ maxRetries: 0 });
  }

  override async embedDocuments(documents: string[]): Promise<number[][]> {
    if (documents.length === 0) return [];
    const vectors: unknown = await this.inner.embedDocuments(documents);
    if (!Array.isArray(vectors) || vectors.length !== documents.length) {
      const count = Array.isArray(vectors) ? vectors.length : 0;
      throw new EmbeddingOutputError(this.spec, `returned ${count} vectors for ${documents.length} inputs`);
    }
    // An index loop, not forEach: forEach would skip holes in a sparse array.
    for (let position = 0; position < vectors.length; position++) assertVector(this.spec, vectors[position], position);
    return vectors as number[][];
  }

  override async embedQuery(document: string): Promise<number[]> {
    const vector: unknown = await this.inner.embedQuery(document);
    assertVector(this.spec, vector, 0);
    return vector;
  }
}

/** Assembles an Embedder whose embeddings are checked against `spec`; `close` releases what `inner` holds. */
export function checkedEmbedder(
  inner: EmbeddingsInterface,
  spec: EmbeddingSpec,
  trustworthyFor: (text: string) => boolean,
  close?: () => Promise<void>,
): Embedder {
  return { embeddings: new CheckedEmbeddings(inner, spec), spec, trustworthyFor, ...(close ? { close } : {}) };
}
