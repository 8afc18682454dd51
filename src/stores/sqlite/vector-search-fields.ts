/**
 * A sqlite store's vector search settings as configuration fields, apart from the search itself so that
 * reading a configuration never loads the database's modules.
 */
import { z } from "zod";
import { HNSW_SCALAR_KINDS, HnswParametersSchema } from "./hnsw-index.js";

export const VECTOR_INDEX_KINDS = ["exact", "hnsw"] as const;
export type VectorIndexKind = (typeof VECTOR_INDEX_KINDS)[number];

/**
 * Below this many entries a namespace is searched exactly even when the store is configured for HNSW:
 * exact search costs ~0.25 µs per entry with usearch's kernel (12 ms at 50k, 512-d), and an index costs a
 * build (minutes per million entries) and approximate answers. See bench/vector-index.ts.
 */
export const DEFAULT_HNSW_MIN_ENTRIES = 50_000;

/** Memory all exact in-memory copies of one store may hold together (least recently searched dropped first). */
export const DEFAULT_VECTOR_CACHE_MIB = 1024;

/** The vector search settings of a sqlite store, described, without defaults (the store's configuration reuses them as optional fields). */
export const VectorSearchFields = {
  vectorIndex: z
    .enum(VECTOR_INDEX_KINDS)
    .describe(
      `Dense search of large namespaces: "exact" (default: every entry measured, the same results as sqlite-vec) or "hnsw" ` +
        `(an approximate usearch HNSW index per namespace of at least hnswMinEntries entries, saved beside the store file)`,
    ),
  hnswMinEntries: z
    .number()
    .int()
    .min(1)
    .describe(`With vectorIndex "hnsw": namespaces smaller than this are searched exactly (default ${DEFAULT_HNSW_MIN_ENTRIES})`),
  hnsw: HnswParametersSchema.describe(
    "HNSW construction and search parameters. Default: connectivity 16, expansionAdd 64, and a search width that follows the namespace's size (256 candidates at 100k entries, doubling with each tenfold growth, at least 64; half as wide again for an i8 index); a given expansionSearch is the width at every size",
  ),
  hnswScalarKind: z
    .enum(HNSW_SCALAR_KINDS)
    .describe(
      `With vectorIndex "hnsw": how the index holds vectors, "f32" (default, 4 bytes a dimension), "f16" (2) or "i8" (1); ` +
        `an i8 index's candidates are re-ranked by the stored full-precision vectors, and an index saved with another kind is rebuilt`,
    ),
  vectorCacheMiB: z
    .number()
    .int()
    .min(0)
    .describe(
      `Memory (MiB) for in-memory copies of namespaces' vectors that exact search scans with SIMD (4 bytes per dimension per entry); ` +
        `0 leaves exact search to sqlite-vec (default ${DEFAULT_VECTOR_CACHE_MIB})`,
    ),
};
