import { z } from "zod";

/** The three ways of recalling: dense vectors, BM25 over our tokens, exact metadata and time filters. */
export const VIEW_NAMES = ["semantic", "lexical", "symbolic"] as const;
export const ViewNameSchema = z.enum(VIEW_NAMES);
export type ViewName = z.infer<typeof ViewNameSchema>;
