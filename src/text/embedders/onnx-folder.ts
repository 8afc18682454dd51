/**
 * What a sentence-embedding model folder says about how to use it, read from the files
 * sentence-transformers writes beside the model (the layout transformers.js reads, with the ONNX
 * weights under `onnx/`):
 * - `modules.json`: the pipeline; a `Normalize` module means unit vectors, a `Dense` one a projection
 *   this embedder does not run (refused rather than silently skipped);
 * - `1_Pooling/config.json` (the Pooling module's folder): mean, CLS or max pooling, and the dimension;
 * - `sentence_bert_config.json`: `max_seq_length`, the truncation length the model was trained with
 *   (all-MiniLM-L6-v2: 256, where its tokenizer alone would allow 512);
 * - `config_sentence_transformers.json`: `prompts`, the query and document prefixes (E5, BGE...).
 * Without modules.json (a plain transformers export) it is mean pooling and unit vectors, the common
 * sentence-embedding recipe; any value may be set by the caller instead.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { RecallGraphError } from "../../core/errors.js";

export const ONNX_DTYPES = ["q8", "fp32"] as const;
export type OnnxDtype = (typeof ONNX_DTYPES)[number];
export const ONNX_POOLINGS = ["mean", "cls", "max"] as const;
export type OnnxPooling = (typeof ONNX_POOLINGS)[number];

/** The ONNX file transformers.js loads for each dtype; the default is the first the folder has. */
export const ONNX_FILE_OF_DTYPE: Readonly<Record<OnnxDtype, string>> = { q8: "onnx/model_quantized.onnx", fp32: "onnx/model.onnx" };

/** Why an ONNX model cannot be used. */
export type OnnxModelFailure = "missing_folder" | "missing_onnx" | "bad_config" | "not_installed" | "load_failed" | "run_failed" | "timeout";

/** The ONNX model cannot be used: its folder or file is missing, a config file is wrong, the runtime is not installed... `reason` says which. */
export class OnnxModelError extends RecallGraphError {
  readonly reason: OnnxModelFailure;

  constructor(reason: OnnxModelFailure, message: string, context: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    // "not_configured", as for USE-lite's model: the embedder is not available.
    super("not_configured", `onnx embedder: ${message}`, { reason, ...context }, options);
    this.reason = reason;
  }
}

/** What the caller may set instead of what the folder says. */
export interface OnnxModelOverrides {
  dtype?: OnnxDtype | undefined;
  pooling?: OnnxPooling | undefined;
  normalize?: boolean | undefined;
  maxLength?: number | undefined;
  queryPrefix?: string | undefined;
  documentPrefix?: string | undefined;
}

/** How to run one model folder: everything the embedder and its workers need, as plain data. */
export interface OnnxModelSettings {
  folder: string;
  dtype: OnnxDtype;
  dimension: number;
  pooling: OnnxPooling;
  normalize: boolean;
  /** Tokens per text, special tokens included; longer texts are cut. */
  maxLength: number;
  queryPrefix: string;
  documentPrefix: string;
}

const ModulesSchema = z.array(z.object({ type: z.string().describe("sentence_transformers.models.<Module>"), path: z.string().default("") }).loose());
const PoolingSchema = z
  .object({
    word_embedding_dimension: z.number().int().min(1).optional(),
    pooling_mode_cls_token: z.boolean().default(false),
    pooling_mode_mean_tokens: z.boolean().default(false),
    pooling_mode_max_tokens: z.boolean().default(false),
    pooling_mode_mean_sqrt_len_tokens: z.boolean().default(false),
    pooling_mode_weightedmean_tokens: z.boolean().default(false),
    pooling_mode_lasttoken: z.boolean().default(false),
  })
  .loose();
const SentenceBertSchema = z.object({ max_seq_length: z.number().int().min(1).optional() }).loose();
const SentenceTransformersSchema = z.object({ prompts: z.record(z.string(), z.string()).optional().describe("prompt name -> prefix") }).loose();
const ModelConfigSchema = z.object({ hidden_size: z.number().int().min(1).optional() }).loose();
const TokenizerConfigSchema = z.object({ model_max_length: z.number().min(1).optional() }).loose();

/** Used when neither sentence_bert_config.json nor the tokenizer says: BERT's position limit. */
const FALLBACK_MAX_LENGTH = 512;

/** A JSON file of the folder parsed by `schema`, or undefined when absent; anything else is a `bad_config` error naming the file and field. */
function readJson<T>(folder: string, file: string, schema: z.ZodType<T>): T | undefined {
  const location = path.join(folder, file);
  if (!existsSync(location)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(location, "utf8"));
  } catch (error) {
    throw new OnnxModelError("bad_config", `${location} is not JSON: ${String(error)}`, { file: location }, { cause: error });
  }
  const result = schema.safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new OnnxModelError("bad_config", `${location}: ${issue?.path.join(".") || "(root)"}: ${issue?.message ?? "invalid"}`, { file: location });
  }
  return result.data;
}

/** The dtype to load: the caller's (its file must exist), else the first whose file the folder has (q8 first: 4x smaller, as accurate here). */
export function dtypeOf(folder: string, wanted: OnnxDtype | undefined): OnnxDtype {
  const has = (dtype: OnnxDtype) => existsSync(path.join(folder, ONNX_FILE_OF_DTYPE[dtype]));
  if (wanted !== undefined) {
    if (has(wanted)) return wanted;
    throw new OnnxModelError("missing_onnx", `${path.join(folder, ONNX_FILE_OF_DTYPE[wanted])} not found (dtype ${wanted})`, { folder, dtype: wanted });
  }
  const found = ONNX_DTYPES.find(has);
  if (found) return found;
  const expected = ONNX_DTYPES.map((dtype) => ONNX_FILE_OF_DTYPE[dtype]).join(" or ");
  throw new OnnxModelError("missing_onnx", `${folder} has no ONNX model (${expected})`, { folder });
}

/** The one pooling mode the Pooling config turns on; others are refused by name. */
function poolingOf(config: z.output<typeof PoolingSchema>, file: string): OnnxPooling {
  const unsupported = (["pooling_mode_mean_sqrt_len_tokens", "pooling_mode_weightedmean_tokens", "pooling_mode_lasttoken"] as const).filter((key) => config[key]);
  const modes: OnnxPooling[] = [];
  if (config.pooling_mode_mean_tokens) modes.push("mean");
  if (config.pooling_mode_cls_token) modes.push("cls");
  if (config.pooling_mode_max_tokens) modes.push("max");
  const [mode, ...more] = modes;
  if (unsupported.length > 0 || more.length > 0 || mode === undefined) {
    const on = [...modes, ...unsupported].join(", ") || "none";
    throw new OnnxModelError("bad_config", `${file}: pooling modes on: ${on}; exactly one of mean, cls, max is supported (or set pooling)`, { file });
  }
  return mode;
}

/**
 * Reads how to run the model in `folder`, the caller's overrides winning. Throws an OnnxModelError:
 * `missing_folder`, `missing_onnx` (no ONNX file for the dtype), or `bad_config` (a file that is
 * not what sentence-transformers writes, a pipeline this embedder cannot run, no dimension).
 */
export function readModelFolder(folder: string, overrides: OnnxModelOverrides = {}): OnnxModelSettings {
  if (!existsSync(path.join(folder, "config.json"))) {
    const what = existsSync(folder) ? `${folder} has no config.json (not a model folder)` : `model folder ${folder} not found`;
    throw new OnnxModelError("missing_folder", what, { folder });
  }
  const dtype = dtypeOf(folder, overrides.dtype);
  const modules = readJson(folder, "modules.json", ModulesSchema);
  const moduleOf = (kind: string) => modules?.find((module) => module.type.endsWith(`.${kind}`) || module.type === kind);
  const dense = moduleOf("Dense");
  if (dense) {
    throw new OnnxModelError("bad_config", `${path.join(folder, "modules.json")}: a Dense module (${dense.path}) follows pooling; this embedder does not run it`, { folder });
  }
  const poolingModule = moduleOf("Pooling");
  const poolingFile = path.join(poolingModule?.path ?? "1_Pooling", "config.json");
  const poolingConfig = readJson(folder, poolingFile, PoolingSchema);
  const prompts = readJson(folder, "config_sentence_transformers.json", SentenceTransformersSchema)?.prompts ?? {};
  const maxLength =
    overrides.maxLength ??
    readJson(folder, "sentence_bert_config.json", SentenceBertSchema)?.max_seq_length ??
    readJson(folder, "tokenizer_config.json", TokenizerConfigSchema)?.model_max_length ??
    FALLBACK_MAX_LENGTH;
  const dimension = poolingConfig?.word_embedding_dimension ?? readJson(folder, "config.json", ModelConfigSchema)?.hidden_size;
  if (dimension === undefined) {
    throw new OnnxModelError("bad_config", `${folder}: no dimension (${poolingFile} word_embedding_dimension or config.json hidden_size)`, { folder });
  }
  return {
    folder,
    dtype,
    dimension,
    pooling: overrides.pooling ?? (poolingConfig ? poolingOf(poolingConfig, path.join(folder, poolingFile)) : "mean"),
    // No modules.json: a plain export, normalised as sentence embedders almost always are (cosine search wants it).
    normalize: overrides.normalize ?? (modules ? moduleOf("Normalize") !== undefined : true),
    // A tokenizer's "no limit" is a huge number (1e30): BERT-like models stop at their positions.
    maxLength: Math.min(Math.floor(maxLength), overrides.maxLength ?? FALLBACK_MAX_LENGTH),
    queryPrefix: overrides.queryPrefix ?? prompts.query ?? "",
    documentPrefix: overrides.documentPrefix ?? prompts.document ?? prompts.passage ?? "",
  };
}
