import { createHash } from "node:crypto";
import { Embeddings } from "@langchain/core/embeddings";
import type { Embedder, EmbeddingSpec } from "../text/embedder.js";
import { EmbeddingOutputError } from "../text/embedders/checked.js";

/** Texts per model call when warming: big enough to sort by length usefully, small enough to show progress. */
const WARM_CHUNK = 256;

/** The key a text's vector is kept under: its SHA-256, so a saved cache holds no text (see embedding-cache-file.ts). */
export function textDigest(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/**
 * Embeds each distinct text once and serves it from memory afterwards, so the ingest, every
 * ablation and every peer (LangGraph's InMemoryStore included) work on the very same vectors and the
 * slow offline model runs once per text. It also measures the time spent inside the model, so
 * retrieval latency can be reported without it. Vectors can be preloaded from, and exported to, a
 * file between runs (embedding-cache-file.ts); nothing is written unless a caller does so.
 */
export class CachedEmbeddings extends Embeddings {
  private readonly vectors = new Map<string, number[]>();
  /** Texts the model embedded (cache misses). */
  textsEmbedded = 0;
  /** Milliseconds spent inside the model. */
  modelMs = 0;

  constructor(
    private readonly inner: Embeddings,
    /** The embedder's spec, to name it when it answers without a vector. */
    private readonly spec: EmbeddingSpec,
  ) {
    super({ maxRetries: 0 });
  }

  override async embedDocuments(documents: string[]): Promise<number[][]> {
    await this.embedMissing(documents);
    return documents.map((document) => this.known(document));
  }

  override async embedQuery(document: string): Promise<number[]> {
    await this.embedMissing([document]);
    return this.known(document);
  }

  /**
   * Embeds the texts not seen yet, shortest first in chunks (the offline encoder pads a batch to its
   * longest text, so similar lengths waste least), reporting progress after each chunk.
   */
  async warm(texts: readonly string[], onProgress?: (done: number, total: number) => void): Promise<void> {
    const missing = [...new Set(texts)].filter((text) => !this.vectors.has(textDigest(text))).sort((a, b) => a.length - b.length);
    onProgress?.(0, missing.length);
    for (let start = 0; start < missing.length; start += WARM_CHUNK) {
      await this.embedMissing(missing.slice(start, start + WARM_CHUNK));
      onProgress?.(Math.min(start + WARM_CHUNK, missing.length), missing.length);
    }
  }

  /** Vectors by text digest, to be saved. */
  saved(): ReadonlyMap<string, readonly number[]> {
    return this.vectors;
  }

  /** Takes vectors saved by an earlier run (the caller checked they come from the same embedder). */
  preload(vectors: ReadonlyMap<string, number[]>): void {
    for (const [digest, vector] of vectors) this.vectors.set(digest, vector);
  }

  private async embedMissing(texts: readonly string[]): Promise<void> {
    const missing = [...new Set(texts)].filter((text) => !this.vectors.has(textDigest(text)));
    if (missing.length === 0) return;
    const started = performance.now();
    const vectors = await this.inner.embedDocuments(missing);
    this.modelMs += performance.now() - started;
    this.textsEmbedded += missing.length;
    missing.forEach((text, i) => {
      const vector = vectors[i];
      if (vector) this.vectors.set(textDigest(text), vector);
    });
  }

  private known(text: string): number[] {
    const vector = this.vectors.get(textDigest(text));
    if (!vector) throw new EmbeddingOutputError(this.spec, `returned no vector for a ${text.length}-character text`);
    return vector;
  }
}

/** The same embedder (spec, trust rules) with its vectors served from one in-memory cache. */
export function cachedEmbedder(embedder: Embedder): Embedder & { embeddings: CachedEmbeddings } {
  return { embeddings: new CachedEmbeddings(embedder.embeddings, embedder.spec), spec: embedder.spec, trustworthyFor: embedder.trustworthyFor };
}
