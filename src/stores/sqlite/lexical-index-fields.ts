/**
 * A sqlite store's lexical search setting as a configuration field, apart from the index itself so that
 * reading a configuration never loads the database's modules.
 */
import { z } from "zod";
import { BM25_B } from "../../text/bm25.js";

/**
 * Entries whose terms all namespaces may hold in memory together. Measured with the benchmark's short
 * memories: peak RSS at 100k entries rose by 160-250 MB with the terms and the parsed-entry cache, so
 * the default is about 1 GB at most for such texts, the vectors' own default budget.
 */
export const DEFAULT_LEXICAL_CACHE_ENTRIES = 500_000;

/** The lexical search settings of a sqlite store, described, without its default (the store's configuration reuses it as optional). */
export const LexicalIndexFields = {
  lexicalCacheEntries: z
    .number()
    .int()
    .min(0)
    .describe(
      `Entries (all namespaces together) whose terms are kept in memory for BM25: the same scores as ranking FTS5's matches, ` +
        `without tokenizing them for every question; a namespace beyond it is ranked from FTS5's matches; 0 ranks every search so (default ${DEFAULT_LEXICAL_CACHE_ENTRIES})`,
    ),
  bm25B: z
    .number()
    .min(0)
    .max(1)
    .describe(`BM25's length normalisation b: 0 ignores an entry's length, 1 divides its term counts by it relative to the namespace's average (default ${BM25_B})`),
};
