/**
 * `recallgraph/eval`: the evaluations the `recallgraph eval` command runs (LoCoMo with its peers, BEIR
 * and SQuAD, BEAM, RealMem), their reports as JSON and text, and the ranking metrics they score with.
 */
export { DEFAULT_KS, EVAL_MODES, EvalOptionsSchema, runEval, type EvalMode, type EvalOptions, type EvalRun } from "./eval/run.js";
export { evalJson, evalText, type EvalJson } from "./eval/report.js";
export { BeirEvalOptionsSchema, runBeirEval, runSquadEval, SquadEvalOptionsSchema, type BeirEvalOptions, type BeirRun, type SquadEvalOptions } from "./eval/beir-run.js";
export { beirJson, beirText, type BeirJson } from "./eval/beir-report.js";
export { BeamEvalOptionsSchema, runBeamEval, type BeamEvalOptions, type BeamRun } from "./eval/beam-run.js";
export { beamJson, beamText, type BeamJson } from "./eval/beam-report.js";
export { RealmemEvalOptionsSchema, runRealmemEval, type RealmemEvalOptions, type RealmemRun } from "./eval/realmem-run.js";
export { realmemJson, realmemText, type RealmemJson } from "./eval/realmem-report.js";
export type { EvalContext, EvalProgress } from "./eval/harness.js";
export {
  compareQuestionScores,
  questionScoreLines,
  QuestionScoreSchema,
  readQuestionScores,
  type MeasureComparison,
  type QuestionScore,
  type ScoresComparison,
} from "./eval/question-scores.js";
export {
  binaryJudgements,
  scoreRanking,
  summarize,
  type Judgements,
  type RankedIds,
  type RankingScore,
  type Summary,
} from "./eval/metrics.js";
