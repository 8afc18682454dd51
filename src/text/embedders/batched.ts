/**
 * How an in-process model embeds a list of texts, whatever the model (USE-lite, an ONNX model): in
 * batches of texts of similar length, in the calling thread or, for calls of several batches, on a
 * pool of worker threads (`worker-pool.ts`) each with its own copy of the model.
 */
import { ValidationError } from "../../core/errors.js";
import { availableParallelism } from "node:os";
import { acquireEmbeddingPool, EmbeddingWorkerPool, releaseEmbeddingPool, sharedEmbeddingPool, type SpawnWorker } from "./worker-pool.js";

/**
 * The model calls an embedDocuments call makes, as positions of `documents`. Encoders pad every text
 * of a batch to the longest one, so batches are formed from texts of similar length (by character
 * count, a good proxy for word pieces), at most `batchSize` each; results go back in input order. The
 * in-process path and the worker pool make exactly these calls.
 */
export function lengthSortedBatches(documents: readonly string[], batchSize: number): number[][] {
  const order = documents.map((_, position) => position).sort((a, b) => (documents[a]?.length ?? 0) - (documents[b]?.length ?? 0));
  const batches: number[][] = [];
  for (let start = 0; start < order.length; start += batchSize) batches.push(order.slice(start, start + batchSize));
  return batches;
}

/**
 * The most worker threads the default gives (each holds a model copy: about 100-150 MB RSS for
 * USE-lite, 260-420 MB for MiniLM); more can be configured.
 */
export const MAX_DEFAULT_WORKERS = 4;

/** The default worker count of an in-process model: one per core the process may use, at most MAX_DEFAULT_WORKERS; 1 means no workers. */
export function defaultEmbeddingWorkers(parallelism: number = availableParallelism()): number {
  return Math.max(1, Math.min(Math.floor(parallelism), MAX_DEFAULT_WORKERS));
}

export function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new ValidationError(name, `must be a positive integer, got ${value}`);
  return value;
}

export interface BatchedModelOptions {
  /** Names the model and its settings: embedders of the same name and worker count share one pool. */
  name: string;
  /** The program each worker runs, and what it is told of the model (`workerData.model`). */
  workerSource: string;
  workerModel?: Readonly<Record<string, unknown>>;
  dimension: number;
  batchSize: number;
  /** 1: every batch in the calling thread; N > 1: calls of several batches go to N worker threads. */
  workers: number;
  /** Per-batch limit for a worker. */
  timeoutMs: number;
  /** Starts the workers of a private pool instead of the shared one (tests). */
  spawnWorker?: SpawnWorker | undefined;
  /** One model call in the calling thread. */
  embedHere: (texts: string[]) => Promise<number[][]>;
}

/** A model's batching and worker pool; the embedders hold one each. */
export class BatchedModel {
  private pool: EmbeddingWorkerPool | undefined;

  constructor(private readonly options: BatchedModelOptions) {}

  private get poolKey(): string {
    return `${this.options.name}:${this.options.workers}`;
  }

  /** Whether the pool this model uses has running workers (started by this embedder's calls or another's sharing it). */
  get poolRunning(): boolean {
    const { spawnWorker, workers } = this.options;
    const pool = this.pool ?? (spawnWorker || workers === 1 ? undefined : sharedEmbeddingPool(this.poolKey));
    return pool?.running ?? false;
  }

  /** The vectors of `documents`, in their order. */
  async embed(documents: readonly string[]): Promise<number[][]> {
    // Models reject an empty batch, so never send one.
    if (documents.length === 0) return [];
    const batches = lengthSortedBatches(documents, this.options.batchSize);
    const texts = batches.map((positions) => positions.map((position) => documents[position] ?? ""));
    // One batch cannot be split: it stays here unless workers are already running (then it goes
    // there, rather than loading one more model copy in this thread).
    const usePool = this.options.workers > 1 && (batches.length > 1 || this.poolRunning);
    const embedded = usePool ? await this.poolFor().embed(texts, this.options.timeoutMs) : await this.embedEachHere(texts);
    const vectors: number[][] = new Array<number[]>(documents.length);
    batches.forEach((positions, b) => {
      const batch = embedded[b];
      positions.forEach((position, i) => {
        const vector = batch?.[i];
        if (vector) vectors[position] = vector;
      });
    });
    return vectors;
  }

  /** Lets go of the worker pool (its workers end when no other embedder shares it). Idempotent; later calls start it again. */
  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    if (!pool) return;
    if (this.options.spawnWorker) await pool.close();
    else await releaseEmbeddingPool(this, this.poolKey);
  }

  /** Each batch in one model call, in this thread, one after the other. */
  private async embedEachHere(batches: readonly string[][]): Promise<number[][][]> {
    const embedded: number[][][] = [];
    for (const batch of batches) embedded.push(await this.options.embedHere(batch));
    return embedded;
  }

  private poolFor(): EmbeddingWorkerPool {
    const { workers, workerSource, workerModel, dimension, spawnWorker } = this.options;
    const options = { size: workers, source: workerSource, dimension, ...(workerModel ? { model: workerModel } : {}) };
    this.pool ??= spawnWorker
      ? new EmbeddingWorkerPool({ ...options, spawn: spawnWorker })
      : acquireEmbeddingPool(this, this.poolKey, options);
    return this.pool;
  }
}
