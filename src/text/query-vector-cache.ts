import { Embeddings } from "@langchain/core/embeddings";
import type { Embedder, EmbeddingSpec } from "./embedder.js";
import { EmbeddingOutputError } from "./embedders/checked.js";

/** Query texts whose vectors a graph keeps: a few questions' worth of sub-queries and gap queries. */
const DEFAULT_LIMIT = 256;

/**
 * Embeddings that remember the vectors of recent query texts, oldest dropped first. In one round the
 * semantic view embeds the question and the symbolic view may need the same vector to rank its
 * matches; the two run in parallel, so a pending call is shared, and a failed one is forgotten so
 * the next run asks again.
 */
export class QueryVectorCache extends Embeddings {
  private readonly vectors = new Map<string, Promise<number[]>>();

  constructor(
    private readonly inner: Embeddings,
    /** The embedder's spec, to name it when it answers without a vector. */
    private readonly spec: EmbeddingSpec,
    private readonly limit = DEFAULT_LIMIT,
  ) {
    super({ maxRetries: 0 });
  }

  override embedDocuments(texts: string[]): Promise<number[][]> {
    const missing = [...new Set(texts)].filter((text) => !this.vectors.has(text));
    if (missing.length > 0) {
      const batch = this.inner.embedDocuments(missing);
      missing.forEach((text, i) => {
        const vector = batch.then((vectors) => vectors[i] ?? Promise.reject(new EmbeddingOutputError(this.spec, `returned no vector for query ${i}`, { position: i })));
        vector.catch(() => {
          if (this.vectors.get(text) === vector) this.vectors.delete(text);
        });
        this.vectors.set(text, vector);
      });
      for (const oldest of this.vectors.keys()) {
        if (this.vectors.size <= this.limit) break;
        this.vectors.delete(oldest);
      }
    }
    return Promise.all(texts.map((text) => this.vectors.get(text) ?? this.inner.embedQuery(text)));
  }

  override async embedQuery(text: string): Promise<number[]> {
    const [vector] = await this.embedDocuments([text]);
    if (!vector) throw new EmbeddingOutputError(this.spec, "returned no vector for the query");
    return vector;
  }
}

/** The same embedder (spec, trust rules) with its query vectors remembered. */
export function withQueryVectorCache(embedder: Embedder, limit?: number): Embedder {
  return { embeddings: new QueryVectorCache(embedder.embeddings, embedder.spec, limit), spec: embedder.spec, trustworthyFor: embedder.trustworthyFor };
}
