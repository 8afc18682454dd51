/**
 * A sqlite store's lexical search setting as a configuration field, apart from the index itself so that
 * reading a configuration never loads the database's modules.
 */
import { z } from "zod";
import { BM25_B } from "../../text/bm25.js";

/**
 * Entries whose terms all namespaces may hold in memory together. Measured with the speed benchmark's
 * short memories (bench/lexical-memory.ts): 253 bytes per entry at 100k, about 20 per distinct term of a
 * row plus some 40 per row. 1.5M such entries are ~380 MB; a 1M namespace (~250 MB) fits with room for
 * others, and the 1M benchmark process (an i8 index) peaked at 1.4 GB with its terms held, under 3 GB.
 * Entries of ten times as many distinct terms cost about ten times as much each.
 */
export const DEFAULT_LEXICAL_CACHE_ENTRIES = 1_500_000;

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
