/**
 * A pool of worker threads, each holding its own copy of an embedding model, so that a large
 * embedDocuments call uses every core. Generic over the model: each worker runs the program it is
 * given (`worker-program.ts`), all speaking one protocol (see there).
 * Written for USE-lite first: TensorFlow.js runs it on its WASM backend, which in Node is single-threaded
 * (the backend turns WASM threads off when it detects Node): one process embeds on one core however
 * many it has. Measured here (2 cores free, 512 synthetic memories in ingest's calls of 64,
 * `npm run bench:embedding`): 61 texts/s in one thread, 98 with 2 workers (1.6x; CPU time per text
 * 9% higher with two models at once); about 165-185 MB RSS per model copy. On a machine whose cores
 * are busy elsewhere the pool gains nothing (Linux shares CPU between sessions, not threads), and
 * costs nothing either.
 *
 * - **Same vectors.** The pool runs the same model calls (the same batches of texts) as the
 *   in-process path; each worker calls the same model function, and its float32 values travel as a
 *   Float32Array, so the vectors are bit for bit those of one thread (tested).
 * - **Lazy, and no obstacle to exiting.** Workers start on the first call that uses the pool. A
 *   worker holds the process open only while it has a batch to embed (`ref` while busy, `unref` when
 *   idle), so a command that never closes its embedder still exits as soon as its work is done.
 *   `release` by the last embedder sharing a pool terminates its workers; a later call starts them again.
 * - **Never hangs.** A worker that throws, exits, answers with an error or takes longer than the
 *   timeout for one batch is terminated, and the call waiting for it rejects with an
 *   EmbeddingWorkerError; the pool starts a fresh worker for the next call.
 * - **Shared.** Like the in-process model (one per process), pools are per process: every embedder
 *   asking for N workers of one model shares the one pool of N, so several embedder instances never
 *   multiply the model copies.
 */
import { Worker } from "node:worker_threads";
import { RecallGraphError, ValidationError } from "../../core/errors.js";

/** Why a worker's batch failed. */
export type EmbeddingWorkerFailure = "crashed" | "exited" | "timeout" | "failed" | "closed";

/**
 * An embedding worker crashed, exited, timed out or reported an error, or its pool was closed: the
 * embedDocuments call that was waiting for it is rejected with this. `reason` says which.
 */
export class EmbeddingWorkerError extends RecallGraphError {
  readonly reason: EmbeddingWorkerFailure;

  constructor(reason: EmbeddingWorkerFailure, message: string, context: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    // "not_configured", as for a model that cannot be loaded: the embedder is not available (a
    // recallgraph failure, not the caller's: the CLI exits with status 2).
    super("not_configured", `embedding worker: ${message}`, { reason, ...context }, options);
    this.reason = reason;
  }
}

/** Starts one worker thread running `source` (eval'd) with `workerData`: the pool's default, replaceable in tests. */
export type SpawnWorker = (source: string, workerData: EmbeddingWorkerData) => Worker;

export interface EmbeddingWorkerData {
  /** A file URL that the model packages are resolved from (this module's, so the same copies as the main thread's). */
  resolveFrom: string;
  dimension: number;
  /** What the worker's program needs to know of its model beyond that (a folder, a dtype...); plain data. */
  model?: Readonly<Record<string, unknown>>;
}

/** The default spawn: an eval'd CommonJS program with no loader flags (the parent's `--import tsx` is not needed there). */
export const spawnEmbeddingWorker: SpawnWorker = (source, workerData) =>
  new Worker(source, { eval: true, workerData, execArgv: [] });

interface Task {
  texts: string[];
  timeoutMs: number;
  call: Call;
  resolve: (vectors: number[][]) => void;
  reject: (error: Error) => void;
}

/** The tasks of one `embed` call: once one fails, the rest are dropped, not embedded for nobody. */
interface Call {
  failed: boolean;
}

interface Slot {
  readonly worker: Worker;
  readonly index: number;
  task: Task | undefined;
  requestId: number;
  timer: NodeJS.Timeout | undefined;
  retired: boolean;
}

export interface EmbeddingPoolOptions {
  /** Worker threads (model copies). */
  size: number;
  /** The program each worker runs (CommonJS source, eval'd). */
  source: string;
  dimension: number;
  /** Passed to each worker as `workerData.model`. */
  model?: Readonly<Record<string, unknown>>;
  spawn?: SpawnWorker;
}

export class EmbeddingWorkerPool {
  readonly size: number;
  private readonly source: string;
  private readonly dimension: number;
  private readonly model: Readonly<Record<string, unknown>> | undefined;
  private readonly spawn: SpawnWorker;
  private readonly slots: Slot[] = [];
  private queue: Task[] = [];
  private nextRequest = 0;
  private spawned = 0;

  constructor(options: EmbeddingPoolOptions) {
    if (!Number.isInteger(options.size) || options.size < 1) throw new ValidationError("size", `must be a positive integer, got ${options.size}`);
    this.size = options.size;
    this.source = options.source;
    this.dimension = options.dimension;
    this.model = options.model;
    this.spawn = options.spawn ?? spawnEmbeddingWorker;
  }

  /** Whether any worker is running (started and not yet terminated). */
  get running(): boolean {
    return this.slots.length > 0;
  }

  /** Workers started over the pool's life (a crashed or timed-out one is replaced by a new one). */
  get started(): number {
    return this.spawned;
  }

  /**
   * Embeds each batch of texts in one model call on some worker, the longest batches first (so the
   * last to finish is a short one), and returns the vectors batch by batch in the order given.
   * `timeoutMs` bounds each batch from the moment a worker takes it (the first batch of a new
   * worker includes loading its model, about a second).
   */
  async embed(batches: readonly string[][], timeoutMs: number): Promise<number[][][]> {
    const call: Call = { failed: false };
    const results = batches.map(
      (texts) =>
        new Promise<number[][]>((resolve, reject) => {
          this.queue.push({ texts, timeoutMs, call, resolve, reject });
        }),
    );
    // Longest first: the queue is stable for other calls' tasks, this call's are sorted among themselves.
    const mine = this.queue.filter((task) => task.call === call).sort((a, b) => weight(b.texts) - weight(a.texts));
    this.queue = [...this.queue.filter((task) => task.call !== call), ...mine];
    this.dispatch();
    return Promise.all(results);
  }

  /** Terminates every worker; waiting calls reject with an EmbeddingWorkerError ("closed"). A later `embed` starts workers again. */
  async close(): Promise<void> {
    const closed = () => new EmbeddingWorkerError("closed", "the embedder was closed while texts were waiting to be embedded");
    for (const task of this.queue.splice(0)) task.reject(closed());
    await Promise.all([...this.slots].map((slot) => this.retire(slot, closed())));
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      let slot = this.slots.find((candidate) => candidate.task === undefined);
      if (!slot && this.slots.length < this.size) {
        try {
          slot = this.start();
        } catch (error) {
          // No thread could be started (resource limits): the waiting call fails rather than waits.
          const head = this.queue[0];
          if (head) this.fail(head, new EmbeddingWorkerError("crashed", `could not start a worker: ${String(error)}`, {}, { cause: error }));
          continue;
        }
      }
      if (!slot) return;
      const task = this.queue.shift();
      if (task) this.assign(slot, task);
    }
  }

  private start(): Slot {
    const data: EmbeddingWorkerData = { resolveFrom: import.meta.url, dimension: this.dimension, ...(this.model ? { model: this.model } : {}) };
    const worker = this.spawn(this.source, data);
    const slot: Slot = { worker, index: this.spawned, task: undefined, requestId: 0, timer: undefined, retired: false };
    this.spawned += 1;
    this.slots.push(slot);
    worker.on("message", (message: unknown) => this.answered(slot, message));
    worker.on("error", (error: unknown) => {
      void this.retire(slot, new EmbeddingWorkerError("crashed", `worker ${slot.index} crashed: ${String((error as Error)?.message ?? error)}`, {}, { cause: error }));
    });
    worker.on("messageerror", (error: unknown) => {
      void this.retire(slot, new EmbeddingWorkerError("crashed", `worker ${slot.index} sent a message that could not be read`, {}, { cause: error }));
    });
    worker.on("exit", (code: number) => {
      void this.retire(slot, new EmbeddingWorkerError("exited", `worker ${slot.index} exited (code ${code})`, { exitCode: code }));
    });
    return slot;
  }

  private assign(slot: Slot, task: Task): void {
    this.nextRequest += 1;
    slot.task = task;
    slot.requestId = this.nextRequest;
    // Busy: the process waits for this batch (an idle worker is unref'd and holds nothing open).
    slot.worker.ref();
    slot.timer = setTimeout(() => {
      void this.retire(
        slot,
        new EmbeddingWorkerError("timeout", `worker ${slot.index} took longer than ${task.timeoutMs} ms for ${task.texts.length} texts`, {
          timeoutMs: task.timeoutMs,
        }),
      );
    }, task.timeoutMs);
    try {
      slot.worker.postMessage({ id: slot.requestId, texts: task.texts });
    } catch (error) {
      void this.retire(slot, new EmbeddingWorkerError("crashed", `could not send texts to worker ${slot.index}`, {}, { cause: error }));
    }
  }

  private answered(slot: Slot, message: unknown): void {
    const task = slot.task;
    if (slot.retired || !task || !isAnswer(message) || message.id !== slot.requestId) return;
    if (typeof message.error === "string") {
      const error = new EmbeddingWorkerError("failed", `worker ${slot.index}: ${message.error}`);
      if (message.loaded !== true) {
        // The model could not be loaded: a fresh worker retries on the next call.
        void this.retire(slot, error);
        return;
      }
      // The model refused this batch; the worker is sound and stays.
      this.finish(slot);
      this.fail(task, error);
      this.next(slot);
      return;
    }
    const vectors = message.vectors;
    if (!(vectors instanceof Float32Array) || vectors.length !== task.texts.length * this.dimension) {
      void this.retire(slot, new EmbeddingWorkerError("failed", `worker ${slot.index} returned vectors of the wrong size`));
      return;
    }
    this.finish(slot);
    const rows: number[][] = [];
    for (let i = 0; i < task.texts.length; i++) rows.push(Array.from(vectors.subarray(i * this.dimension, (i + 1) * this.dimension)));
    task.resolve(rows);
    this.next(slot);
  }

  private finish(slot: Slot): void {
    clearTimeout(slot.timer);
    slot.timer = undefined;
    slot.task = undefined;
  }

  /** Gives a free worker the next waiting batch, or lets it idle without holding the process open. */
  private next(slot: Slot): void {
    this.dispatch();
    if (slot.task === undefined && !slot.retired) slot.worker.unref();
  }

  /** Takes a worker out of the pool for good: its batch (if any) fails with `error`, and with it the rest of that call. */
  private async retire(slot: Slot, error: EmbeddingWorkerError): Promise<void> {
    if (slot.retired) return;
    slot.retired = true;
    clearTimeout(slot.timer);
    const index = this.slots.indexOf(slot);
    if (index >= 0) this.slots.splice(index, 1);
    const task = slot.task;
    slot.task = undefined;
    if (task) this.fail(task, error);
    const exited = slot.worker.terminate().then(
      () => undefined,
      () => undefined,
    );
    // Other calls' waiting batches go to the remaining (or a fresh) worker.
    this.dispatch();
    await exited;
  }

  private fail(task: Task, error: EmbeddingWorkerError): void {
    task.call.failed = true;
    const dropped = this.queue.filter((other) => other.call === task.call);
    this.queue = this.queue.filter((other) => other.call !== task.call);
    task.reject(error);
    for (const other of dropped) other.reject(error);
  }
}

function weight(texts: readonly string[]): number {
  let characters = 0;
  for (const text of texts) characters += text.length;
  return characters;
}

function isAnswer(message: unknown): message is { id: number; vectors?: unknown; error?: unknown; loaded?: unknown } {
  return typeof message === "object" && message !== null && typeof (message as { id?: unknown }).id === "number";
}

/** The process's pools, one per model and size, shared by the embedders that ask for the same. */
const pools = new Map<string, { pool: EmbeddingWorkerPool; holders: Set<object> }>();

/**
 * The process-wide pool under `key` (which names the model and the worker count, e.g. `use-lite:4`),
 * held by `holder` until `releaseEmbeddingPool(holder, key)`. A pool is created idle (`options` are
 * used only then); its workers start with its first call.
 */
export function acquireEmbeddingPool(holder: object, key: string, options: EmbeddingPoolOptions): EmbeddingWorkerPool {
  let entry = pools.get(key);
  if (!entry) {
    entry = { pool: new EmbeddingWorkerPool(options), holders: new Set() };
    pools.set(key, entry);
  }
  entry.holders.add(holder);
  return entry.pool;
}

/** The process-wide pool under `key` if one exists (running or not); starts nothing. */
export function sharedEmbeddingPool(key: string): EmbeddingWorkerPool | undefined {
  return pools.get(key)?.pool;
}

/** Lets go of `holder`'s pool; the last holder's release terminates its workers. */
export async function releaseEmbeddingPool(holder: object, key: string): Promise<void> {
  const entry = pools.get(key);
  if (!entry || !entry.holders.delete(holder)) return;
  if (entry.holders.size > 0) return;
  pools.delete(key);
  await entry.pool.close();
}
