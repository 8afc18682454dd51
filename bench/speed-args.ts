/** The speed benchmark's command line (bench/speed.ts), checked: each field is named after its flag. */
import { z } from "zod";
import { parseOrThrow } from "../src/core/errors.js";
import { VECTOR_INDEX_KINDS } from "../src/stores/sqlite/vector-search.js";
import { BENCHED_EMBEDDERS } from "./embedding.js";

/** What else answers the same questions on the same data, each in a process of its own. */
export const SPEED_PEERS = ["inmemory", "lancedb"] as const;
export type SpeedPeer = (typeof SPEED_PEERS)[number];

/** The measurements a child process makes (`--child`), one per process so each peak RSS is its own. */
export const SPEED_CHILDREN = ["recallgraph", "inmemory", "lancedb", "qdrant"] as const;

export const SpeedArgsSchema = z.object({
  sizes: z
    .array(z.number().int().min(10).max(1_000_000))
    .min(1)
    .describe("--sizes: entries in the one namespace, comma-separated, each size measured in processes of its own"),
  queries: z.number().int().min(10).max(10_000).describe("--queries: timed questions per size and side (after 5 warm-up ones)"),
  index: z
    .array(z.enum(VECTOR_INDEX_KINDS))
    .min(1)
    .describe("--index: recallgraph's dense search, `exact`, `hnsw` or `exact,hnsw` (each size runs each; hnsw indexes every size)"),
  peers: z.array(z.enum(SPEED_PEERS)).describe("--peers: `inmemory` (LangGraph's InMemoryStore), `lancedb` (its hybrid query), both, or `none`"),
  json: z.boolean().describe("--json: print the results as JSON"),
  chart: z.boolean().describe("--no-chart: do not write bench/results/speed.json and its charts"),
  markdown: z.boolean().describe("--markdown: print the README's tables"),
  from: z.string().min(1).optional().describe("--from: print the tables of saved results instead of measuring"),
  child: z.enum(SPEED_CHILDREN).optional().describe("--child: the one measurement this process makes (internal)"),
  size: z.number().int().min(1).optional().describe("--size: the child's entries (internal)"),
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

/** Parses the benchmark's flags; a bad value fails with its flag's name (`sizes.1: ...`). */
export function parseSpeedArgs(argv: readonly string[]): SpeedArgs {
  const value = (flag: string) => {
    const at = argv.indexOf(flag);
    return at >= 0 ? argv[at + 1] : undefined;
  };
  const number = (text: string | undefined) => (text === undefined ? undefined : Number(text));
  const peers = list(value("--peers"));
  return parseOrThrow(SpeedArgsSchema, {
    sizes: list(value("--sizes"))?.map(Number) ?? [1000, 10_000, 100_000],
    queries: number(value("--queries")) ?? 100,
    index: list(value("--index")) ?? ["exact"],
    peers: peers?.length === 1 && peers[0] === "none" ? [] : (peers ?? ["inmemory"]),
    json: argv.includes("--json"),
    chart: !argv.includes("--no-chart"),
    markdown: argv.includes("--markdown"),
    from: value("--from"),
    child: value("--child"),
    size: number(value("--size")),
    embedder: value("--embedder") ?? "use-lite",
    store: value("--store") ?? "sqlite",
  });
}
