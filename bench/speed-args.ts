/** The speed benchmark's command line (bench/speed.ts), checked: each field is named after its flag. */
import { parseArgs } from "node:util";
import { z } from "zod";
import { parseOrThrow, ValidationError } from "../src/core/errors.js";
import { HNSW_SCALAR_KINDS } from "../src/stores/sqlite/hnsw-index.js";
import { VECTOR_INDEX_KINDS } from "../src/stores/sqlite/vector-search-fields.js";
import { BENCHED_EMBEDDERS } from "./embedding.js";

/** What else answers the same questions on the same data, each in a process of its own. */
export const SPEED_PEERS = ["inmemory", "lancedb"] as const;
export type SpeedPeer = (typeof SPEED_PEERS)[number];

/** The measurements a child process makes (`--child`), one per process so each peak RSS is its own. */
export const SPEED_CHILDREN = ["recallgraph", "inmemory", "lancedb", "qdrant", "reopen", "floor"] as const;

/**
 * Untimed questions before the timed ones. At 5, a 1k-entry question's p50 was twice its p50 after 200
 * (20.8 against 10.5 ms): the timed ones were still being compiled.
 */
const DEFAULT_WARMUP = 100;

export const SpeedArgsSchema = z.object({
  sizes: z
    .array(z.number().int().min(10).max(1_000_000))
    .min(1)
    .describe("--sizes: entries in the one namespace, comma-separated, each size measured in processes of its own"),
  queries: z.number().int().min(10).max(10_000).describe("--queries: timed questions per size and side (after the warm-up ones)"),
  warmup: z
    .number()
    .int()
    .min(0)
    .max(10_000)
    .describe(`--warmup: questions each side answers untimed first (default ${DEFAULT_WARMUP}): V8 compiles the graph's code as it runs, and a long-lived agent or server answers from compiled code`),
  index: z
    .array(z.enum(VECTOR_INDEX_KINDS))
    .min(1)
    .describe("--index: recallgraph's dense search, `exact`, `hnsw` or `exact,hnsw` (each size runs each; hnsw indexes every size)"),
  scalarKind: z.enum(HNSW_SCALAR_KINDS).describe("--scalar-kind: with hnsw, how the index holds vectors (the store's hnswScalarKind): f32 (default), f16 or i8"),
  peers: z.array(z.enum(SPEED_PEERS)).describe("--peers: `inmemory` (LangGraph's InMemoryStore), `lancedb` (its hybrid query), both, or `none`"),
  json: z.boolean().describe("--json: print the results as JSON"),
  chart: z.boolean().describe("--no-chart: do not write bench/results/speed.json and its charts"),
  markdown: z.boolean().describe("--markdown: print the README's tables"),
  from: z.string().min(1).optional().describe("--from: print the tables of saved results instead of measuring"),
  child: z.enum(SPEED_CHILDREN).optional().describe("--child: the one measurement this process makes (internal)"),
  size: z.number().int().min(1).optional().describe("--size: the child's entries (internal)"),
  path: z.string().min(1).optional().describe("--path: the store file a reopen child opens (internal)"),
  keep: z
    .string()
    .min(1)
    .optional()
    .describe("--keep: with one size and one index, build the store file at this path (which must not exist) and keep it and its index, for --reuse"),
  reuse: z
    .string()
    .min(1)
    .optional()
    .describe("--reuse: open the store --keep kept at this path (same --scalar-kind), load its index, and measure only the questions: latency, breakdown, the slowest questions"),
  exact: z.boolean().describe("--no-exact: with --reuse, skip the comparison with exact search (recall@10, graph agreement)"),
  embedder: z.enum(BENCHED_EMBEDDERS).describe("--embedder: whose embedding rates (bench:embedding's results) go with the figures"),
  store: z
    .enum(["sqlite", "qdrant"])
    .describe("--store: sqlite (recallgraph beside its peers) or qdrant (the Qdrant path beside sqlite, with requests and server time per question)"),
});
export type SpeedArgs = z.infer<typeof SpeedArgsSchema>;

/** A comma-separated flag's items, each once, or undefined when the flag is absent. */
function list(text: string | undefined): string[] | undefined {
  if (text === undefined) return undefined;
  const items = text.split(",").map((item) => item.trim());
  return [...new Set(items.filter((item) => item !== ""))];
}

/** The flags parseArgs reads: every one is a string but the switches. */
const FLAGS = {
  sizes: { type: "string" },
  queries: { type: "string" },
  warmup: { type: "string" },
  index: { type: "string" },
  "scalar-kind": { type: "string" },
  peers: { type: "string" },
  json: { type: "boolean" },
  "no-chart": { type: "boolean" },
  markdown: { type: "boolean" },
  from: { type: "string" },
  child: { type: "string" },
  size: { type: "string" },
  path: { type: "string" },
  keep: { type: "string" },
  reuse: { type: "string" },
  "no-exact": { type: "boolean" },
  embedder: { type: "string" },
  store: { type: "string" },
} as const;

/** What `--help` prints: each flag as its field's description says it. */
export function speedUsage(): string {
  const lines = Object.values(SpeedArgsSchema.shape).map((field) => `  ${field.description ?? ""}`);
  return ["npm run bench:speed -- [flags]", ...lines].join("\n");
}

/**
 * Parses the benchmark's flags; an unknown flag is refused (so a mistyped one never starts an hour's
 * run with the defaults), and a bad value fails with its flag's name (`sizes.1: ...`).
 */
export function parseSpeedArgs(argv: readonly string[]): SpeedArgs {
  const values = flagValues(argv);
  const number = (text: string | undefined) => (text === undefined ? undefined : Number(text));
  const peers = list(values.peers);
  return parseOrThrow(SpeedArgsSchema, {
    sizes: list(values.sizes)?.map(Number) ?? [1000, 10_000, 100_000],
    queries: number(values.queries) ?? 100,
    warmup: number(values.warmup) ?? DEFAULT_WARMUP,
    index: list(values.index) ?? ["exact"],
    scalarKind: values["scalar-kind"] ?? "f32",
    peers: peers?.length === 1 && peers[0] === "none" ? [] : (peers ?? ["inmemory"]),
    json: values.json === true,
    chart: values["no-chart"] !== true,
    markdown: values.markdown === true,
    from: values.from,
    child: values.child,
    size: number(values.size),
    path: values.path,
    keep: values.keep,
    reuse: values.reuse,
    exact: values["no-exact"] !== true,
    embedder: values.embedder ?? "use-lite",
    store: values.store ?? "sqlite",
  });
}

function flagValues(argv: readonly string[]) {
  try {
    return parseArgs({ args: [...argv], options: FLAGS, strict: true }).values;
  } catch (error) {
    throw new ValidationError("", `${error instanceof Error ? error.message : String(error)}\n${speedUsage()}`);
  }
}
