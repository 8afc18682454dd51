/** What the speed benchmark measures and saves (bench/results/speed.json), validated when read back. */
import { z } from "zod";

const LatencySchema = z.object({ p50: z.number(), p95: z.number() });
export const RecallgraphSideSchema = z.object({
  side: z.literal("recallgraph"),
  entries: z.number(),
  ingestPerSec: z.number(),
  ingestWithHashEmbeddingPerSec: z.number(),
  retrieveMs: LatencySchema,
  peakRssMb: z.number(),
});
export const InMemorySideSchema = z.object({
  side: z.literal("inmemory"),
  buildPerSec: z.number(),
  searchMs: LatencySchema,
  peakRssMb: z.number(),
});
export const EmbeddingRateSchema = z.object({
  side: z.literal("use-lite"),
  sample: z.number(),
  textsPerSec: z.number(),
  ingestPerSec: z.number(),
});
export const ChildOutputSchema = z.discriminatedUnion("side", [RecallgraphSideSchema, InMemorySideSchema, EmbeddingRateSchema]);

const SizeResultSchema = z.object({
  entries: z.number(),
  ingestPerSec: z.number(),
  ingestWithHashEmbeddingPerSec: z.number(),
  retrieveMs: LatencySchema,
  inMemoryStoreMs: LatencySchema,
  ratioP50: z.number(),
  peakRssMb: z.number(),
  inMemoryStorePeakRssMb: z.number(),
});
export const SpeedResultsSchema = z.object({
  sizes: z.record(z.string(), SizeResultSchema),
  embedding: z.object({ model: z.string(), sample: z.number(), textsPerSec: z.number(), ingestPerSec: z.number() }).optional(),
  queries: z.number(),
  machine: z.string(),
  notes: z.array(z.string()),
});
export type SpeedResults = z.infer<typeof SpeedResultsSchema>;

