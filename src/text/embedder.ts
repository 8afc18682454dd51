import type { Embeddings } from "@langchain/core/embeddings";
import { z } from "zod";

/** Which embedder built a store's vectors. A store refuses to be opened with another. */
export const EmbeddingSpecSchema = z.strictObject({
  model: z.string().min(1).describe("Which embedder and model made the vectors (a store refuses another)"),
  dimension: z.number().int().min(1).max(65_536).describe("The vectors' length"),
});
export type EmbeddingSpec = z.infer<typeof EmbeddingSpecSchema>;

/** A LangChain Embeddings together with what it is: the store records `spec` and refuses another. */
export interface Embedder {
  readonly embeddings: Embeddings;
  readonly spec: EmbeddingSpec;
  /**
   * False when the model cannot tell texts in some script apart (USE-lite maps every CJK text to
   * one vector): dense scores for such text are not to be trusted.
   */
  readonly trustworthyFor: (text: string) => boolean;
  /**
   * Releases what the embedder holds beyond memory (USE-lite's worker threads). Optional, idempotent,
   * and never needed for a process to exit: idle workers hold nothing open. The embedder may be used
   * again after it (it starts what it needs again). Whoever creates the embedder closes it:
   * `openRecallGraph().close()` and the CLI close one they built from a configuration, never one they were given.
   */
  readonly close?: () => Promise<void>;
}
