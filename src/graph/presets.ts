import type { RetrievalConfigInput } from "./configuration.js";
import type { PresetName } from "./preset-names.js";

/** No hit lends its neighbours a vote. */
export const NO_CONTEXT_VOTES = { ranking: 0, speakerReading: 0, wordsReading: 0 };

/** A view's or the merge's own order, as measured alone: no vote lent by neighbours, none for stating a time. */
const AS_FOUND = { contextVotes: NO_CONTEXT_VOTES, timeAnswerVote: 0 } as const;

/**
 * Named retrieval recipes: each is data (a partial configuration), never a code branch.
 * A run picks one with `configurable.preset`; explicit configurable fields still override it.
 */
export const RETRIEVAL_PRESETS = {
  /** Plan, three views fused by RRF, reflection, re-check. The default. */
  full: {},
  /** Dense similarity alone: the plain vector-store baseline. */
  dense: { views: ["semantic"], planning: false, reflection: false, ...AS_FOUND },
  /** BM25 alone over the question. */
  lexical: { views: ["lexical"], planning: false, reflection: false, ...AS_FOUND },
  /** Metadata and time filters alone (needs the planner to extract conditions). */
  symbolic: { views: ["symbolic"], reflection: false, ...AS_FOUND },
  /** First-seen union instead of RRF: every view's hits in the order they were found. */
  union: { fusion: "union", ...AS_FOUND },
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
    // Plain RRF, k = 60, as the published chain: BM25 votes 1 and the dense view what its embedder's
    // profile says (1 for an OpenAI-compatible model, as published; 0.7 measured for MiniLM in process;
    // 0.3 for the weak offline one).
    rrfK: 60,
    viewWeights: { lexical: 1, symbolic: 1 },
    // Documents share rare terms with their questions, so BM25 is sure where a weak embedder's first
    // neighbour is not: such an embedder's dense list earns its vote only where its first score stands
    // clear of the rest, by the ramp its profile gives (USE-lite: 5 to 7 standard deviations; none for
    // a retrieval-trained model, whose first neighbour is evidence on its own).
    denseSeparation: "embedder",
    timeWindowWeight: 1,
    // Documents are not conversations: chunks written together are not an exchange, and a paragraph
    // that states a time is not set apart by it (most do; on CMRC the vote only cost a question).
    contextVotes: NO_CONTEXT_VOTES,
    timeAnswerVote: 0,
  },
} as const satisfies Record<PresetName, Omit<RetrievalConfigInput, "preset">>;
