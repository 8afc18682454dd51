export { CachedEmbeddings, cachedEmbedder } from "./cached-embeddings.js";
export { CATEGORY_NAMES, evaluableQuestions, HEADLINE_CATEGORIES, type EvalQuestion, type SkippedQuestion } from "./locomo-questions.js";
export { comparePaired, mean, percentile, scoreRanking, signTestPValue, summarize, type PairedComparison, type QuestionResult, type RankedTurnIds, type RankingScore, type Summary } from "./metrics.js";
export { bm25Peer, inMemoryStorePeer, recallgraphRetriever, type CorpusEntry, type EvalAsk, type EvalRetriever, type RetrieverAnswer } from "./peers.js";
export { evalJson, evalText, headlineSummary, table, type EvalJson, type PeerJson } from "./report.js";
export {
  DEFAULT_KS,
  EVAL_MODES,
  EvalOptionsSchema,
  runEval,
  type EvalContext,
  type EvalMode,
  type EvalOptions,
  type EvalProgress,
  type EvalRun,
  type EvalTimings,
  type RetrieverRun,
} from "./run.js";
