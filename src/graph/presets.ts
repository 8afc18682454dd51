import type { PresetName, RetrievalConfigInput } from "./configuration.js";

/**
 * Named retrieval recipes: each is data (a partial configuration), never a code branch.
 * A run picks one with `configurable.preset`; explicit configurable fields still override it.
 */
export const RETRIEVAL_PRESETS = {
  /** Plan, three views fused by RRF, reflection, re-check. The default. */
  full: {},
  /** Dense similarity alone: the plain vector-store baseline. */
  dense: { views: ["semantic"], planning: false, reflection: false },
  /** BM25 alone over the question. */
  lexical: { views: ["lexical"], planning: false, reflection: false },
  /** Metadata and time filters alone (needs the planner to extract conditions). */
  symbolic: { views: ["symbolic"], reflection: false },
  /** First-seen union instead of RRF: every view's hits in the order they were found. */
  union: { fusion: "union" },
  "no-plan": { planning: false },
  "no-reflect": { reflection: false },
  /**
   * For documents: dense with an absolute threshold plus lexical with a relative one,
   * RRF, record re-check, LLM rerank when a model is configured; no planning or reflection.
   */
  "knowledge-base": {
    views: ["semantic", "lexical"],
    planning: false,
    reflection: false,
    rerank: true,
    denseMinScore: 0.3,
    lexicalMinRelative: 0.2,
    // Plain RRF, k = 60, both views equal: no weighting tuned on conversations.
    rrfK: 60,
    viewWeights: { semantic: 1, lexical: 1, symbolic: 1 },
    timeWindowWeight: 1,
  },
} as const satisfies Record<PresetName, Omit<RetrievalConfigInput, "preset">>;
