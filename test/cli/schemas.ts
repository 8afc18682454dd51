/** The `--json` contracts of the commands, as the issue states them: tests parse every output with these. */
import { z } from "zod";

const SearchPreparationSchema = z.object({ termsHeld: z.boolean(), vectorIndex: z.enum(["current", "loaded", "built", "not-indexed"]) });

export const IngestJsonSchema = z.object({
  namespaces: z.record(z.string(), z.number().int().min(0)),
  entries: z.number().int().min(0),
  seconds: z.number().min(0),
  /** What was made ready for search before the command exited, per namespace written. */
  search: z.object({ namespaces: z.record(z.string(), SearchPreparationSchema), seconds: z.number().min(0) }),
});

export const StatsJsonSchema = z.object({
  namespaces: z.record(z.string(), z.object({ entries: z.number().int().min(0) })),
  embedder: z.string().min(1),
  dimension: z.number().int().min(1),
  fileBytes: z.number().int().min(0).nullable(),
});

export const DeleteJsonSchema = z.object({
  namespace: z.string(),
  deleted: z.number().int().min(0),
  missing: z.array(z.string()),
});

const ProvenanceSchema = z.object({
  views: z.array(z.enum(["semantic", "lexical", "symbolic"])).min(1),
  subQueries: z.array(z.string()),
  ranks: z.array(z.object({ view: z.string(), query: z.string(), round: z.number(), rank: z.number().int().min(1), score: z.number() })).min(1),
  fusedScore: z.number(),
});

export const QueryResultJsonSchema = z.object({
  id: z.string().min(1),
  namespace: z.string().min(1),
  text: z.string().min(1),
  timestamp: z.iso.datetime(),
  score: z.number(),
  source: z.object({ turnIds: z.array(z.string()) }),
  provenance: ProvenanceSchema,
});

export const QueryJsonSchema = z.object({
  results: z.array(QueryResultJsonSchema),
  plan: z.object({ subQueries: z.array(z.string()).min(1), planner: z.string() }).nullable(),
  coverage: z.object({ complete: z.boolean(), percent: z.number() }).nullable(),
  rounds: z.number().int().min(0),
  degraded: z.array(z.object({ step: z.string(), error: z.string() })),
  account: z.object({ llmCalls: z.number(), nodeMs: z.record(z.string(), z.number()), rounds: z.number() }),
});
