/**
 * The sqlite store kind: a file (or memory) in this process, the default.
 *
 * Environment variables (RECALLGRAPH_STORE=sqlite, or unset):
 * - `RECALLGRAPH_DB`     sqlite file path, or `:memory:` (default `./.recallgraph/memory.db`)
 * - `RECALLGRAPH_VECTOR_INDEX` `exact` (default) or `hnsw`, dense search of large namespaces (`vectorIndex`)
 * - `RECALLGRAPH_HNSW_MIN_ENTRIES` with `hnsw`: the smallest namespace given an index (`hnswMinEntries`,
 *                        default 50000; smaller ones are searched exactly)
 * - `RECALLGRAPH_HNSW_SCALAR_KIND` with `hnsw`: `f32` (default), `f16` or `i8`, how the index holds vectors (`hnswScalarKind`)
 */
import { z } from "zod";
import { readChoice, readPositiveInteger, readVariable, type Environment } from "../../core/env.js";
import { parseOrThrow } from "../../core/errors.js";
import { defineStoreKind, ReadOnlyField } from "../store-kind.js";
import { LexicalIndexFields } from "./lexical-index-fields.js";
import { canWriteStoreFile, storeFileMissing, storeFileRemover } from "./store-file.js";
import { HNSW_SCALAR_KINDS, type HnswScalarKind } from "./hnsw-index.js";
import { VECTOR_INDEX_KINDS, VectorSearchFields, type VectorIndexKind } from "./vector-search-fields.js";

export const DEFAULT_SQLITE_PATH = "./.recallgraph/memory.db";

export const SqliteStoreConfigSchema = z.strictObject({
  kind: z.literal("sqlite").describe("An embedded sqlite file (or :memory:): nothing to run"),
  // Not SqliteStoreOptionsSchema's path: that one words a missing path differently ("path is required").
  path: z.string().min(1, "path must not be empty").describe("The store file, created if missing, or :memory:"),
  readOnly: ReadOnlyField,
  // The adapter's own fields, optional here: unset ones stay unset, and the adapter applies its defaults.
  vectorIndex: VectorSearchFields.vectorIndex.optional(),
  hnswMinEntries: VectorSearchFields.hnswMinEntries.optional(),
  hnsw: VectorSearchFields.hnsw.optional(),
  hnswScalarKind: VectorSearchFields.hnswScalarKind.optional(),
  vectorCacheMiB: VectorSearchFields.vectorCacheMiB.optional(),
  lexicalCacheEntries: LexicalIndexFields.lexicalCacheEntries.optional(),
  bm25B: LexicalIndexFields.bm25B.optional(),
});

/** The sqlite store's vector index settings the environment sets (absent ones left to the adapter's defaults). */
function vectorIndexFromEnv(env: Environment): { vectorIndex?: VectorIndexKind; hnswMinEntries?: number; hnswScalarKind?: HnswScalarKind } {
  const vectorIndex = readChoice(env, "RECALLGRAPH_VECTOR_INDEX", VECTOR_INDEX_KINDS);
  const hnswMinEntries = readPositiveInteger(env, "RECALLGRAPH_HNSW_MIN_ENTRIES");
  const hnswScalarKind = readChoice(env, "RECALLGRAPH_HNSW_SCALAR_KIND", HNSW_SCALAR_KINDS);
  return {
    ...(vectorIndex !== undefined ? { vectorIndex } : {}),
    ...(hnswMinEntries !== undefined ? { hnswMinEntries } : {}),
    ...(hnswScalarKind !== undefined ? { hnswScalarKind } : {}),
  };
}

export const sqliteStoreKind = defineStoreKind({
  kind: "sqlite",
  config: SqliteStoreConfigSchema,
  fromEnv: (env, shared) => {
    const path = readVariable(env, "RECALLGRAPH_DB") ?? DEFAULT_SQLITE_PATH;
    return parseOrThrow(SqliteStoreConfigSchema, { kind: "sqlite", path, ...shared, ...vectorIndexFromEnv(env) }, "RECALLGRAPH_DB");
  },
  open: async ({ kind: _kind, readOnly, ...options }, embedding) => {
    const { openSqliteStore } = await import("./store.js");
    return openSqliteStore({ ...options, embedding, readOnly: readOnly === true });
  },
  where: (config) => config.path,
  missing: (config) => storeFileMissing(config.path),
  // A file this process cannot write (the file or its folder), which a writable opening would fail on, is read read-only.
  forReading: (config) =>
    config.readOnly || config.path === ":memory:" || storeFileMissing(config.path) || canWriteStoreFile(config.path) ? config : { ...config, readOnly: true },
  newStoreRemover: (config) => storeFileRemover(config.path),
  temporary: z.strictObject({
    kind: z.literal("sqlite").describe("an in-memory sqlite store, gone with the run"),
    bm25B: LexicalIndexFields.bm25B.optional(),
  }),
  temporaryLabel: "sqlite (in memory)",
  // The configured store's b: an evaluation beside it ranks as it does.
  temporaryBeside: ({ bm25B }) => ({ kind: "sqlite" as const, ...(bm25B !== undefined ? { bm25B } : {}) }),
  openTemporary: async ({ bm25B }, embedding) => {
    const { openSqliteStore } = await import("./store.js");
    const store = await openSqliteStore({ path: ":memory:", embedding, ...(bm25B !== undefined ? { bm25B } : {}) });
    return { store, discard: () => store.close() };
  },
});
