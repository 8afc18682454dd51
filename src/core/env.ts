/**
 * Reading configuration from environment variables.
 *
 * The one module that reads `process.env`: `readEnvironment` takes recallgraph's variables out of it
 * into one settings object, which every `...FromEnv` function reads (or a record a test or the
 * command line builds instead). The readers below read that object alike for the store, the embedder
 * and the chat model: each trims, treats an empty value as unset, returns `undefined` when unset
 * (callers apply their defaults with `??`), and throws a ValidationError whose field is the
 * variable's name and whose message says what was expected and what was found. A value is checked
 * when the part that needs it reads it, so a bad variable fails only what it configures.
 */
import { z } from "zod";
import { ValidationError } from "./errors.js";

/**
 * Every environment variable recallgraph reads. The readers below take only these names, and README's
 * table of variables lists exactly these (a test holds the two together), so a new variable is
 * declared here once and documented there.
 */
export const ENV_VARIABLES = [
  // Store
  "RECALLGRAPH_STORE",
  "RECALLGRAPH_DB",
  "RECALLGRAPH_READ_ONLY",
  "RECALLGRAPH_VECTOR_INDEX",
  "RECALLGRAPH_HNSW_MIN_ENTRIES",
  "RECALLGRAPH_HNSW_SCALAR_KIND",
  "QDRANT_URL",
  "QDRANT_API_KEY",
  "QDRANT_COLLECTION",
  "QDRANT_SHARDS",
  "QDRANT_REPLICATION_FACTOR",
  "QDRANT_WRITE_CONSISTENCY",
  // Served graphs
  "RECALLGRAPH_API_KEYS",
  "RECALLGRAPH_SHARED_NAMESPACES",
  "RECALLGRAPH_THREAD_HISTORY",
  // Embedder
  "RECALLGRAPH_EMBEDDER",
  "RECALLGRAPH_EMBEDDING_MODEL",
  "RECALLGRAPH_EMBEDDING_DIMENSIONS",
  "RECALLGRAPH_EMBEDDING_DTYPE",
  "RECALLGRAPH_MODEL_CACHE",
  "RECALLGRAPH_EMBEDDING_BATCH_SIZE",
  "RECALLGRAPH_EMBEDDING_TIMEOUT_MS",
  "RECALLGRAPH_EMBEDDING_RETRIES",
  "RECALLGRAPH_EMBEDDING_WORKERS",
  // Chat model
  "RECALLGRAPH_LLM_MODEL",
  "OPENAI_BASE_URL",
  "OPENAI_API_KEY",
  "RECALLGRAPH_LLM_TIMEOUT_MS",
  "RECALLGRAPH_LLM_RETRIES",
  // Logging
  "RECALLGRAPH_LOG_LEVEL",
] as const;

export type EnvVariable = (typeof ENV_VARIABLES)[number];

/** The variables a configuration is read from: the settings `readEnvironment` returns, or a plain record in tests. */
export type Environment = Readonly<Record<string, string | undefined>>;

const VariableSchema = z
  .string()
  .optional()
  .transform((value) => value?.trim() || undefined)
  .describe("The variable's value, trimmed; unset, empty and whitespace-only all read as unset");

/** recallgraph's settings from the environment: each of its variables, trimmed, or unset. */
export const EnvironmentSettingsSchema = z
  .object(Object.fromEntries(ENV_VARIABLES.map((name) => [name, VariableSchema])) as Record<EnvVariable, typeof VariableSchema>)
  .describe("recallgraph's environment variables (README, Configuration); each part checks the values it reads");

export type EnvironmentSettings = Readonly<z.output<typeof EnvironmentSettingsSchema>>;

/** recallgraph's variables of `source` (the process's environment), as one settings object; nothing else of it is kept. */
export function readEnvironment(source: Environment = process.env): EnvironmentSettings {
  return EnvironmentSettingsSchema.parse(source);
}

/** One variable of the process's environment, read as `readEnvironment` reads it: for the logger, which looks at every line. */
export function readProcessVariable(name: EnvVariable): string | undefined {
  return readVariable(process.env, name);
}

/** The error every reader throws: `NAME: <expected>, got "<found>"`. */
function invalid(name: string, expected: string, found: string): ValidationError {
  return new ValidationError(name, `${expected}, got "${found}"`);
}

/** The variable's value, trimmed; unset, empty and whitespace-only all read as `undefined`. */
export function readVariable(env: Environment, name: EnvVariable): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

/** The variable's value, which must be set; `when` says why it is needed (e.g. "when X=y"). */
export function readRequired(env: Environment, name: EnvVariable, when: string): string {
  const value = readVariable(env, name);
  if (value === undefined) throw new ValidationError(name, `is required ${when}`);
  return value;
}

/** The variable parsed by `schema`, or `undefined` when unset; the schema's first message says what was expected. */
export function readParsed<T>(env: Environment, name: EnvVariable, schema: z.ZodType<T, string>): T | undefined {
  const value = readVariable(env, name);
  if (value === undefined) return undefined;
  const result = schema.safeParse(value);
  if (!result.success) throw invalid(name, result.error.issues[0]?.message ?? "must be valid", value);
  return result.data;
}

// Digits only, at least one of them not zero: no sign, fraction, exponent or hex, which Number() would accept.
const PositiveIntegerSchema = z.string().regex(/^\d*[1-9]\d*$/, "must be a positive integer").transform(Number);

/** The variable as a positive integer (1, 2, ...), or `undefined` when unset. */
export function readPositiveInteger(env: Environment, name: EnvVariable): number | undefined {
  return readParsed(env, name, PositiveIntegerSchema);
}

// Zero is a real choice for a retry count (fail fast), which readPositiveInteger would refuse.
const RetryCountSchema = z.string().regex(/^\d+$/, "must be a whole number (0 for no retries)").transform(Number);

/** The variable as a retry count (0, 1, ...), or `undefined` when unset. */
export function readRetryCount(env: Environment, name: EnvVariable): number | undefined {
  return readParsed(env, name, RetryCountSchema);
}

/** The variable as one of `choices`, matched case-insensitively and returned as the list spells it; `undefined` when unset. */
export function readChoice<const C extends string>(env: Environment, name: EnvVariable, choices: readonly C[]): C | undefined {
  const value = readVariable(env, name);
  if (value === undefined) return undefined;
  const choice = choices.find((candidate) => candidate.toLowerCase() === value.toLowerCase());
  if (choice === undefined) throw invalid(name, `must be one of ${choices.join(", ")}`, value);
  return choice;
}

const TRUE_WORDS = ["1", "true", "yes", "on"] as const;
const FALSE_WORDS = ["0", "false", "no", "off"] as const;

/** The variable as a switch: 1/true/yes/on or 0/false/no/off (any case); `undefined` when unset, anything else refused. */
export function readBoolean(env: Environment, name: EnvVariable): boolean | undefined {
  const choice = readChoice(env, name, [...TRUE_WORDS, ...FALSE_WORDS]);
  return choice === undefined ? undefined : (TRUE_WORDS as readonly string[]).includes(choice);
}
