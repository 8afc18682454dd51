import type { Embeddings } from "@langchain/core/embeddings";
import type { EmbeddingSpec } from "../stores/port.js";

/** A LangChain Embeddings together with what it is: the store records `spec` and refuses another. */
export interface Embedder {
  readonly embeddings: Embeddings;
  readonly spec: EmbeddingSpec;
  /**
   * False when the model cannot tell texts in some script apart (USE-lite maps every CJK text to
   * one vector): dense scores for such text are not to be trusted.
   */
  readonly trustworthyFor: (text: string) => boolean;
}
