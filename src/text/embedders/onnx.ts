/**
 * A sentence-embedding ONNX model run in process by transformers.js (`@huggingface/transformers`, on
 * onnxruntime-node's CPU binaries): all-MiniLM-L6-v2, BGE, E5... from a local folder, or from a hub id
 * fetched once into a cache folder and read from there afterwards (no network once it is there).
 *
 * transformers.js is an optional peer of recallgraph (about 470 MB installed with onnxruntime):
 * imported only when this embedder first embeds, and its absence is an OnnxModelError naming the
 * package to install. Pooling, normalisation, truncation and prefixes come from the model folder
 * (`onnx-folder.ts`); the model call itself is `embedBatch`, the one function both the calling
 * thread and the worker threads run.
 */
import { z } from "zod";
import { readChoice, readVariable } from "../../core/env.js";
import { defineEmbedder, MAX_DIMENSION, setFields, SharedEmbedderFields } from "./embedder-definition.js";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism, homedir } from "node:os";
import path from "node:path";
import { Embeddings } from "@langchain/core/embeddings";
import { boundedFetch } from "../../core/bounded-fetch.js";
import { errorMessage, isRecallGraphError, ValidationError } from "../../core/errors.js";
import { abortAfter, untilAborted } from "../../core/time-limit.js";
import type { Embedder, EmbeddingSpec } from "../embedder.js";
import { BatchedModel, defaultEmbeddingWorkers, positiveInteger } from "./batched.js";
import { checkedEmbedder } from "./checked.js";
import { readableBy } from "./letter-coverage.js";
import { ONNX_DTYPES, ONNX_FILE_OF_DTYPE, ONNX_POOLINGS, OnnxModelError, readModelFolder, type OnnxDtype, type OnnxModelOverrides, type OnnxModelSettings } from "./onnx-folder.js";
import { embeddingWorkerSource } from "./worker-program.js";
import type { SpawnWorker } from "./worker-pool.js";

/** A store records an ONNX model as `onnx:NAME:DTYPE` (NAME the hub id or the folder's name), so its kind is known when it is reopened. */
export const ONNX_MODEL_PREFIX = "onnx:";

/**
 * Texts per model call. The runtime pads a batch to its longest text, and batches are of similar
 * lengths; 32 keeps one call's activations small (32 x 256 tokens x 384 floats) while amortising a
 * call's fixed cost.
 */
export const ONNX_DEFAULT_BATCH_SIZE = 32;


/** The model `RECALLGRAPH_EMBEDDER=onnx` runs when none is named, and its vector size (known before its first download). */
export const ONNX_DEFAULT_MODEL = "Xenova/all-MiniLM-L6-v2";
export const ONNX_DEFAULT_DIMENSIONS = 384;

/** How long one batch (the first including loading the model, or fetching it for a hub id) may take. */
export const ONNX_DEFAULT_TIMEOUT_MS = 60_000;

export interface OnnxEmbedderOptions extends OnnxModelOverrides {
  /** A model folder (a path) or a hub id (`owner/name`, e.g. Xenova/all-MiniLM-L6-v2). */
  model: string;
  /** The vector size, needed only for a hub id not yet in the cache (the store must know it before the model is there). */
  dimensions?: number | undefined;
  /** Where hub models are kept (default $XDG_CACHE_HOME/recallgraph/models, else ~/.cache/recallgraph/models). */
  cacheDir?: string | undefined;
  batchSize?: number | undefined;
  /** 1: every batch in the calling thread; N > 1: large embedDocuments calls on N worker threads. */
  workers?: number | undefined;
  /** Limit for one batch, in this thread or a worker. */
  timeoutMs?: number | undefined;
  /** Starts the worker threads of a private pool (tests). */
  spawnWorker?: SpawnWorker | undefined;
}

/** The shape of a hub id: `owner/name`, neither part a path segment like `.` or `..`. */
const HUB_ID = /^[A-Za-z0-9][\w.-]*\/[A-Za-z0-9][\w.-]*$/;

export function isHubId(model: string): boolean {
  return HUB_ID.test(model) && !existsSync(model);
}

/** The system's cache folder (XDG_CACHE_HOME is the desktop standard's variable, not one of recallgraph's settings). */
export function defaultModelCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(env.XDG_CACHE_HOME || path.join(homedir(), ".cache"), "recallgraph", "models");
}

export function onnxEmbeddingSpec(name: string, dtype: OnnxDtype, dimension: number): EmbeddingSpec {
  return { model: `${ONNX_MODEL_PREFIX}${name}:${dtype}`, dimension };
}

/** Where the model is and what is known of it before anything is loaded. */
interface Located {
  /** The hub id, or the folder's name: what the spec records. */
  name: string;
  hubId: string | undefined;
  folder: string;
  /** Read from the folder, or undefined for a hub model not yet fetched. */
  settings: OnnxModelSettings | undefined;
  spec: EmbeddingSpec;
}

/** Resolves the model option to a folder and reads it when it is there; a hub model not yet fetched needs `dimensions`. */
function locate(options: OnnxEmbedderOptions): Located {
  const hubId = isHubId(options.model) ? options.model : undefined;
  const folder = hubId ? path.join(options.cacheDir ?? defaultModelCacheDir(), hubId) : path.resolve(options.model);
  const name = hubId ?? path.basename(folder);
  const fetched = hubId === undefined || existsSync(path.join(folder, ONNX_FILE_OF_DTYPE[options.dtype ?? "q8"])) || existsSync(path.join(folder, ONNX_FILE_OF_DTYPE.fp32));
  if (fetched) {
    const settings = readModelFolder(folder, options);
    if (options.dimensions !== undefined && options.dimensions !== settings.dimension) {
      throw new ValidationError("dimensions", `${name} makes ${settings.dimension}-d vectors, got ${options.dimensions}; unset it`);
    }
    return { name, hubId, folder, settings, spec: onnxEmbeddingSpec(name, settings.dtype, settings.dimension) };
  }
  if (options.dimensions === undefined) {
    throw new ValidationError(
      "dimensions",
      `${hubId} is not in ${folder} yet: give its vector size (RECALLGRAPH_EMBEDDING_DIMENSIONS, e.g. 384 for all-MiniLM-L6-v2) so the store knows it before the first download, or point RECALLGRAPH_EMBEDDING_MODEL at a model folder`,
    );
  }
  return { name, hubId, folder, settings: undefined, spec: onnxEmbeddingSpec(name, options.dtype ?? "q8", options.dimensions) };
}

/** What embedBatch needs of transformers.js's tokenizer and model: our own shapes, so no declaration of ours names that optional package. */
interface TensorLike {
  dims: readonly number[];
  data: { [index: number]: number | bigint; readonly length: number };
}
type Tokenizer = (texts: string[], options: { padding: boolean; truncation: boolean; max_length: number }) => Record<string, TensorLike>;
type Model = (inputs: Record<string, TensorLike>) => Promise<Record<string, TensorLike | undefined>>;
type BatchSettings = Pick<OnnxModelSettings, "pooling" | "normalize" | "maxLength">;

/**
 * One model call: the texts tokenized (padded to the longest, cut at maxLength), the model run, its
 * token vectors pooled over the attention mask and (when the model says so) scaled to unit length.
 * Returns `texts.length x dimension` float32 values.
 *
 * Self-contained (no imports, no helpers outside it, no nested functions): the worker program is
 * built from this function's own source text, so both threads run the very same code.
 */
export async function embedBatch(tokenizer: Tokenizer, model: Model, texts: string[], settings: BatchSettings): Promise<Float32Array> {
  const inputs = tokenizer(texts, { padding: true, truncation: true, max_length: settings.maxLength });
  // transformers.js cuts a long text after adding the special tokens, losing the closing one
  // ([SEP]), where sentence-transformers cuts the text and then closes it: put it back. It is the
  // last token of an empty text's encoding ([CLS] [SEP]), when that has an opening and a closing one.
  const frame = tokenizer([""], { padding: false, truncation: false, max_length: settings.maxLength }).input_ids;
  const ids = inputs.input_ids;
  const closing = frame && frame.data.length >= 2 ? frame.data[frame.data.length - 1] : undefined;
  if (ids && closing !== undefined && ids.dims[1] === settings.maxLength) {
    for (let t = 0; t < (ids.dims[0] ?? 0); t++) {
      const last = (t + 1) * settings.maxLength - 1;
      if (Number(inputs.attention_mask?.data[last] ?? 0) === 1) ids.data[last] = closing;
    }
  }
  const output = await model(inputs);
  const hidden = output.last_hidden_state ?? output.token_embeddings;
  const mask = inputs.attention_mask;
  if (!hidden || !mask || hidden.dims.length !== 3) throw new Error("the model returned no token embeddings (last_hidden_state)");
  const count = hidden.dims[0] ?? 0;
  const tokens = hidden.dims[1] ?? 0;
  const dimension = hidden.dims[2] ?? 0;
  const vectors = new Float32Array(count * dimension);
  const pooled = new Float64Array(dimension);
  for (let t = 0; t < count; t++) {
    pooled.fill(settings.pooling === "max" ? -Infinity : 0);
    let used = 0;
    for (let k = 0; k < tokens; k++) {
      if (Number(mask.data[t * tokens + k]) === 0 || (settings.pooling === "cls" && k > 0)) continue;
      used += 1;
      const offset = (t * tokens + k) * dimension;
      for (let d = 0; d < dimension; d++) {
        const value = Number(hidden.data[offset + d]);
        pooled[d] = settings.pooling === "max" ? Math.max(pooled[d] ?? value, value) : (pooled[d] ?? 0) + value;
      }
    }
    if (settings.pooling === "mean" && used > 0) for (let d = 0; d < dimension; d++) pooled[d] = (pooled[d] ?? 0) / used;
    let norm = 0;
    for (let d = 0; d < dimension; d++) norm += (pooled[d] ?? 0) ** 2;
    const scale = settings.normalize && norm > 0 ? 1 / Math.sqrt(norm) : 1;
    for (let d = 0; d < dimension; d++) vectors[t * dimension + d] = (pooled[d] ?? 0) * scale;
  }
  return vectors;
}

/** The worker program: the folder's tokenizer and model loaded as `loadModel` does, then `embedBatch`. */
const ONNX_WORKER_SOURCE = embeddingWorkerSource(
  `    const { AutoTokenizer, AutoModel } = requireFromPool("@huggingface/transformers");
    const settings = workerData.model;
    const local = { local_files_only: true };
    return Promise.all([
      AutoTokenizer.from_pretrained(settings.folder, local),
      AutoModel.from_pretrained(settings.folder, { ...local, dtype: settings.dtype, session_options: { intraOpNumThreads: settings.threads } }),
    ]).then(([tokenizer, model]) => ({ tokenizer, model }));`,
  `  const embedBatch = ${embedBatch.toString()};
  return embedBatch(loaded.tokenizer, loaded.model, texts, workerData.model);`,
);

interface Loaded {
  tokenizer: Tokenizer;
  model: Model;
  settings: OnnxModelSettings;
}

/** The sentence-transformers files transformers.js does not fetch itself (it needs only config, tokenizer and weights). */
const SENTENCE_TRANSFORMERS_FILES = ["modules.json", "1_Pooling/config.json", "sentence_bert_config.json", "config_sentence_transformers.json"];

/** Fetches the sentence-transformers files of a hub model into its cache folder; a file the model lacks (404) is skipped. */
async function fetchSentenceTransformersFiles(remoteHost: string, hubId: string, folder: string, signal: AbortSignal): Promise<void> {
  const fetchBounded = boundedFetch();
  for (const file of SENTENCE_TRANSFORMERS_FILES) {
    const response = await fetchBounded(`${remoteHost.replace(/\/$/, "")}/${hubId}/resolve/main/${file}`, { signal });
    if (response.status === 404) continue;
    if (!response.ok) throw new OnnxModelError("load_failed", `fetching ${file} of ${hubId}: HTTP ${response.status}`, { hubId, file });
    const target = path.join(folder, file);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, await response.text());
  }
}

/** The ONNX model as LangChain embeddings: prefixes added, batched, large calls optionally on worker threads. */
export class OnnxEmbeddings extends Embeddings {
  readonly batchSize: number;
  readonly workers: number;
  readonly timeoutMs: number;
  private loading: Promise<Loaded> | undefined;
  private batched: BatchedModel | undefined;
  /** Which texts the vocabulary reads: read from the folder at the first text asked about, not at start-up (a hub model: after its first use). */
  private readable: ((text: string) => boolean) | undefined;
  /** The model folder once known: given, or fetched by the first load. */
  private folder: string | undefined;

  constructor(
    private readonly located: Located,
    private readonly options: OnnxEmbedderOptions,
  ) {
    super({ maxRetries: 0 });
    this.batchSize = positiveInteger("batchSize", options.batchSize ?? ONNX_DEFAULT_BATCH_SIZE);
    // USE-lite's default (defaultEmbeddingWorkers), though onnxruntime spreads one call over the cores
    // itself. Measured here (2 busy cores, 512 synthetic memories, bench:embedding --embedder onnx): 74.6
    // texts/s in one thread, 113 with 2 workers of one runtime thread each (8.7 CPU ms per text
    // against 13.8: one runtime's threads waiting on each other cost more than a second model copy).
    this.workers = positiveInteger("workers", options.workers ?? defaultEmbeddingWorkers());
    this.timeoutMs = positiveInteger("timeoutMs", options.timeoutMs ?? ONNX_DEFAULT_TIMEOUT_MS);
    this.folder = located.settings?.folder;
  }

  /** False for a text whose letters the model's vocabulary mostly lacks (letter-coverage.ts); true while that is not known. */
  canRead(text: string): boolean {
    if (this.folder === undefined) return true;
    this.readable ??= readableBy(this.folder);
    return this.readable(text);
  }

  override async embedDocuments(documents: string[]): Promise<number[][]> {
    if (documents.length === 0) return [];
    // A folder's settings are known already: a call that goes to the workers loads no model here.
    const settings = this.located.settings ?? (await this.bounded(this.load())).settings;
    return (await this.batchedFor(settings)).embed(documents.map((text) => settings.documentPrefix + text));
  }

  override async embedQuery(document: string): Promise<number[]> {
    // Always in this thread: one short text, for which a worker would only add its round trip.
    const { settings } = await this.bounded(this.load());
    const [vector] = await this.embedHere([settings.queryPrefix + document]);
    return vector ?? [];
  }

  /** Lets go of the worker pool, if one was started. Idempotent. */
  async close(): Promise<void> {
    await this.batched?.close();
  }

  /** The model, loaded once; a failed load is forgotten so a later call can retry. */
  load(): Promise<Loaded> {
    this.loading ??= loadModel(this.located, this.options).then(
      (loaded) => {
        this.folder ??= loaded.settings.folder;
        return loaded;
      },
      (error: unknown) => {
        this.loading = undefined;
        throw error;
      },
    );
    return this.loading;
  }

  private async embedHere(texts: string[]): Promise<number[][]> {
    const loaded = await this.bounded(this.load());
    const flat = await this.bounded(embedBatch(loaded.tokenizer, loaded.model, texts, loaded.settings).catch((error: unknown) => {
      // embedBatch also runs as a worker's source, where no class of ours exists: its errors are named here.
      throw new OnnxModelError("run_failed", `model ${this.located.name}: ${errorMessage(error)}`, {}, { cause: error });
    }));
    const { dimension } = loaded.settings;
    return texts.map((_, i) => Array.from(flat.subarray(i * dimension, (i + 1) * dimension)));
  }

  private batchedFor(settings: OnnxModelSettings): BatchedModel {
    // Each worker's runtime gets its share of the cores, so N workers do not run N x cores threads.
    const threads = Math.max(1, Math.floor(availableParallelism() / this.workers));
    this.batched ??= new BatchedModel({
      name: this.located.spec.model + `@${settings.folder}`,
      workerSource: ONNX_WORKER_SOURCE,
      workerModel: { ...settings, threads },
      dimension: settings.dimension,
      batchSize: this.batchSize,
      workers: this.workers,
      timeoutMs: this.timeoutMs,
      spawnWorker: this.options.spawnWorker,
      embedHere: (texts) => this.embedHere(texts),
    });
    return this.batched;
  }

  /** `work`, or an OnnxModelError ("timeout") after timeoutMs: a stuck load or call never holds a question. */
  private async bounded<T>(work: Promise<T>): Promise<T> {
    const limit = abortAfter(this.timeoutMs, () => new OnnxModelError("timeout", `no answer within ${this.timeoutMs} ms (model ${this.located.name})`));
    try {
      return await untilAborted(work, limit.signal);
    } finally {
      limit.disarm();
    }
  }
}

/** transformers.js, imported on first use: an optional peer, and some seconds of loading a process with another embedder never pays. */
async function importTransformers(): Promise<typeof import("@huggingface/transformers")> {
  try {
    return await import("@huggingface/transformers");
  } catch (error) {
    throw new OnnxModelError(
      "not_installed",
      "@huggingface/transformers is not installed (an optional peer of recallgraph): npm install @huggingface/transformers@4.3.2",
      {},
      { cause: error },
    );
  }
}

/** Loads the tokenizer and model of a folder (fetching a hub model into its cache folder first). */
async function loadModel(located: Located, options: OnnxEmbedderOptions): Promise<Loaded> {
  const transformers = await importTransformers();
  let settings = located.settings;
  if (settings === undefined && located.hubId) {
    // First use of a hub model: its sentence-transformers files, then the weights and tokenizer
    // (transformers.js writes them to cache_dir/<id>/, which is `located.folder`), then read as any folder.
    const hubId = located.hubId;
    const cacheDir = path.dirname(path.dirname(located.folder));
    mkdirSync(located.folder, { recursive: true });
    const limit = abortAfter(options.timeoutMs ?? ONNX_DEFAULT_TIMEOUT_MS, () => new OnnxModelError("timeout", `fetching ${hubId} took too long`));
    try {
      await fetchSentenceTransformersFiles(transformers.env.remoteHost, hubId, located.folder, limit.signal);
      const remote = { cache_dir: cacheDir, dtype: options.dtype ?? "q8" };
      await Promise.all([transformers.AutoTokenizer.from_pretrained(hubId, remote), transformers.AutoModel.from_pretrained(hubId, remote)]);
    } catch (error) {
      if (isRecallGraphError(error)) throw error;
      throw new OnnxModelError("load_failed", `could not fetch ${hubId}: ${errorMessage(error)}`, { hubId }, { cause: error });
    } finally {
      limit.disarm();
    }
    settings = readModelFolder(located.folder, options);
    if (settings.dimension !== located.spec.dimension) {
      throw new OnnxModelError("bad_config", `${hubId} makes ${settings.dimension}-d vectors, but ${located.spec.dimension} was configured`, { hubId });
    }
  }
  if (settings === undefined) throw new OnnxModelError("missing_folder", `model folder ${located.folder} not found`);
  const local = { local_files_only: true };
  try {
    const [tokenizer, model] = await Promise.all([
      transformers.AutoTokenizer.from_pretrained(settings.folder, local),
      transformers.AutoModel.from_pretrained(settings.folder, { ...local, dtype: settings.dtype }),
    ]);
    return { tokenizer: tokenizer as unknown as Tokenizer, model: model as unknown as Model, settings };
  } catch (error) {
    throw new OnnxModelError("load_failed", `could not load ${settings.folder} (${settings.dtype}): ${String(error)}`, { folder: settings.folder }, { cause: error });
  }
}

/**
 * The ONNX embedder. Reads the model folder now (small JSON files, so the spec is known before any
 * vector: the store compares it at open), loads the model on first use.
 */
export function createOnnxEmbedder(options: OnnxEmbedderOptions): Embedder {
  const located = locate(options);
  const embeddings = new OnnxEmbeddings(located, options);
  return checkedEmbedder(embeddings, located.spec, (text) => embeddings.canRead(text), () => embeddings.close());
}

/** A sentence-embedding ONNX model in process: retrieval-trained, needs the optional transformers.js. */
export const onnxEmbedder = defineEmbedder({
  name: "onnx",
  config: z.strictObject({
    provider: z.literal("onnx"),
    model: z.string().trim().min(1, "model must not be empty").describe("A model folder (path) or a hub id (owner/name)"),
    dimensions: z.number().int().min(1).max(MAX_DIMENSION).optional().describe("Needed only for a hub id not yet in the cache"),
    dtype: z.enum(ONNX_DTYPES).optional().describe("q8 (onnx/model_quantized.onnx) or fp32 (onnx/model.onnx); default the first the folder has"),
    pooling: z.enum(ONNX_POOLINGS).optional().describe("Instead of the folder's 1_Pooling/config.json"),
    normalize: z.boolean().optional().describe("Unit vectors; default: whether modules.json has a Normalize module"),
    maxLength: z.number().int().min(1).max(MAX_DIMENSION).optional().describe("Tokens per text; default sentence_bert_config.json max_seq_length"),
    queryPrefix: z.string().optional().describe("Put before each query; default config_sentence_transformers.json prompts.query"),
    documentPrefix: z.string().optional().describe("Put before each document; default prompts.document or prompts.passage"),
    cacheDir: z.string().min(1).optional().describe("Where hub models are kept"),
    batchSize: SharedEmbedderFields.batchSize,
    workers: SharedEmbedderFields.workers.describe("Threads for large embedDocuments calls: 1 in the calling thread, N > 1 worker threads (default one per core, at most 4)"),
    timeoutMs: SharedEmbedderFields.timeoutMs.describe("Limit in ms for one batch, the first including loading the model (default 60000)"),
  }),
  create: ({ provider: _provider, ...options }) => createOnnxEmbedder(options satisfies OnnxEmbedderOptions),
  fromEnv: (env, { dimensions, batchSize, workers, timeoutMs }) => {
    const model = readVariable(env, "RECALLGRAPH_EMBEDDING_MODEL") ?? ONNX_DEFAULT_MODEL;
    // The default model's size is known, so `RECALLGRAPH_EMBEDDER=onnx` alone works before its first download.
    const knownDimensions = dimensions ?? (model === ONNX_DEFAULT_MODEL ? ONNX_DEFAULT_DIMENSIONS : undefined);
    const dtype = readChoice(env, "RECALLGRAPH_EMBEDDING_DTYPE", ONNX_DTYPES);
    const cacheDir = readVariable(env, "RECALLGRAPH_MODEL_CACHE");
    return { provider: "onnx" as const, model, ...setFields({ dimensions: knownDimensions, dtype, cacheDir, batchSize, workers, timeoutMs }) };
  },
  built: (spec) => spec.model.startsWith(ONNX_MODEL_PREFIX),
  profile: {
    denseWeight: 0.7,
    denseWeightWithoutNames: 2.1,
    // Measured with MiniLM (docs/experiments.md, "A flat BM25 list yields half its vote").
    lexicalYield: { ramp: { from: 2, to: 4 }, kept: 0.5 },
    basis:
      "measured with all-MiniLM-L6-v2 (int8) on both development sets: semantic weights 0.3 / 0.5 / 0.7 / 1 / 2 give LoCoMo recall@10 0.766 / 0.768 / 0.768 / 0.767 / -, SciFact train nDCG@10 0.700 / 0.708 / 0.718 / 0.709 / 0.698; no separation ramp (the knowledge-base preset: 0.716 without, 0.712 with 2 / 4; 0.689 with 5 / 7 at weight 1). Over a conversation, a question naming no person: weights 0.7 / 1.4 / 2.1 / 2.8 / 3.5 give BEAM 100K recall@10 0.457 / 0.505 / 0.520 / 0.527 / 0.528 and RealMem session recall@10 0.706 / 0.710 / 0.717 / 0.717 / 0.713 (LoCoMo's questions name a speaker; SciFact's abstracts are documents). A flat BM25 list keeping half its vote (lexicalYield, ramp 2 / 4): LoCoMo recall@10 0.7825 -> 0.7906 (42 better, 20 worse, p = 0.007), no development set lower beyond chance. No clause sub-queries: with them RealMem's turn recall@25 is 0.430 against 0.449 without (7 better, 28 worse)",
  },
  flagsFor: (spec) => {
    // onnx:NAME:DTYPE; a folder's NAME is its last path segment, so only the user knows where it is.
    const name = spec.model.slice(ONNX_MODEL_PREFIX.length, spec.model.lastIndexOf(":"));
    const dtype = spec.model.slice(spec.model.lastIndexOf(":") + 1);
    return `--embedder onnx with RECALLGRAPH_EMBEDDING_MODEL=${name} (its hub id, or the path of that folder) RECALLGRAPH_EMBEDDING_DTYPE=${dtype}`;
  },
});
