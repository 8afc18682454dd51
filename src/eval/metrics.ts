/**
 * Retrieval metrics over graded judgements, for every benchmark the evaluation reads.
 *
 * A retriever's answer is a ranked list of returned entries, each naming the judged ids it stands for
 * (LoCoMo: the turns an entry was built from, one or several; BEIR: the entry's document). A
 * judgement gives an id a grade; grade > 0 is relevant, and the grade is the gain. The definitions
 * are trec_eval's (which BEIR runs through pytrec_eval), over the ranking exactly as the retriever
 * returned it: rank i (1-based) is the i-th entry.
 *
 * - recall@k: relevant ids found in the top k entries / relevant ids judged (LoCoMo's recall, BEIR's
 *   `recall.k`). An entry holding several relevant ids finds them all at once.
 * - nDCG@k (`ndcg_cut.k`): DCG@k = sum over ranks i <= k of gain_i / log2(i + 1), with linear gains
 *   (the grade, not 2^grade - 1); IDCG@k the same over the judged grades sorted best first.
 * - reciprocal rank@k (BEIR's MRR@k): 1 / rank of the first entry holding a relevant id within the top k.
 *
 * A relevant id found a second time gains nothing more: trec_eval refuses a run naming a document
 * twice, so no definition covers it, and counting it again would reward repeating one document.
 * Ties in a retriever's scores are resolved by the order it returned: that order is what its user
 * reads. (trec_eval would re-sort tied scores by document id, which no user of the retriever sees.)
 */

/** A retriever's answer: for each returned entry, best first, the judged ids it stands for. */
export type RankedIds = ReadonlyArray<readonly string[]>;

/** A question's judgements: id to grade. Grade > 0 is relevant; 0 or less is judged not relevant. */
export type Judgements = ReadonlyMap<string, number>;

export interface RankingScore {
  /** Share of the relevant ids in the top k, per k. */
  recall: Record<number, number>;
  /** 1 when at least one relevant id is in the top k, else 0, per k. */
  hit: Record<number, number>;
  /** Normalised discounted cumulative gain at k, per k. */
  ndcg: Record<number, number>;
  /** 1 / rank of the first entry within the top k holding a relevant id; 0 when none does; per k. */
  reciprocalRank: Record<number, number>;
}

/**
 * A ranking with each judged id kept only where it first appears, and the `excluded` ids nowhere; an
 * entry left with no id is dropped. How a benchmark whose answers may name one judged item twice (a
 * document or message stored in parts) scores it: once, where its best part ranks.
 */
export function firstMentions(ranked: RankedIds, excluded: readonly string[] = []): string[][] {
  const seen = new Set<string>(excluded);
  const kept: string[][] = [];
  for (const ids of ranked) {
    const fresh = ids.filter((id) => !seen.has(id));
    fresh.forEach((id) => seen.add(id));
    if (fresh.length > 0) kept.push(fresh);
  }
  return kept;
}

/** Every evidence id relevant with grade 1: LoCoMo's evidence turns (duplicates count once). */
export function binaryJudgements(relevant: readonly string[]): Judgements {
  return new Map(relevant.map((id) => [id, 1]));
}

/** Scores one ranked answer against one question's judgements; a question with nothing relevant cannot be scored. */
export function scoreRanking(ranked: RankedIds, judgements: Judgements, ks: readonly number[]): RankingScore {
  const grades = relevantGrades(judgements);
  if (grades.size === 0) throw new RangeError("a question without a relevant judgement cannot be scored");
  const gains = firstGains(ranked, grades);
  const ideal = [...grades.values()].sort((a, b) => b - a);
  const firstRelevant = gains.findIndex((gain) => gain.found > 0);
  const score: RankingScore = { recall: {}, hit: {}, ndcg: {}, reciprocalRank: {} };
  for (const k of ks) {
    const found = gains.slice(0, k).reduce((sum, gain) => sum + gain.found, 0);
    score.recall[k] = found / grades.size;
    score.hit[k] = found > 0 ? 1 : 0;
    score.ndcg[k] = discountedGain(gains.slice(0, k).map((gain) => gain.gain)) / discountedGain(ideal.slice(0, k));
    score.reciprocalRank[k] = firstRelevant >= 0 && firstRelevant < k ? 1 / (firstRelevant + 1) : 0;
  }
  return score;
}

function relevantGrades(judgements: Judgements): Map<string, number> {
  return new Map([...judgements].filter(([, grade]) => grade > 0));
}

/** Per returned entry: how many relevant ids it finds first, and the sum of their grades. */
function firstGains(ranked: RankedIds, grades: ReadonlyMap<string, number>): { found: number; gain: number }[] {
  const credited = new Set<string>();
  return ranked.map((ids) => {
    let found = 0;
    let gain = 0;
    for (const id of ids) {
      const grade = grades.get(id);
      if (grade === undefined || credited.has(id)) continue;
      credited.add(id);
      found += 1;
      gain += grade;
    }
    return { found, gain };
  });
}

/** Sum of gain / log2(rank + 1) over ranks 1, 2, ... */
function discountedGain(gains: readonly number[]): number {
  return gains.reduce((sum, gain, i) => sum + gain / Math.log2(i + 2), 0);
}

/** Where the evidence stating the current value ranks against the evidence stating an older one (1-based; null: not returned). */
export interface NewestFirst {
  newestRank: number | null;
  olderRank: number | null;
}

/** The first ranks of `newest` ids and of the other relevant ids of a question in a ranking. */
export function newestFirst(ranked: RankedIds, question: { judgements: Judgements; newest?: readonly string[] }): NewestFirst {
  const newest = new Set(question.newest ?? []);
  const older = new Set([...relevantGrades(question.judgements).keys()].filter((id) => !newest.has(id)));
  const rankOf = (wanted: ReadonlySet<string>) => {
    const index = ranked.findIndex((ids) => ids.some((id) => wanted.has(id)));
    return index < 0 ? null : index + 1;
  };
  return { newestRank: rankOf(newest), olderRank: rankOf(older) };
}

/** A scored question, with what it cost. */
export interface QuestionResult extends RankingScore {
  /** Names the question within its run: LoCoMo `conv-26:12` (sample, qa index), a BEIR query id. */
  questionId: string;
  /** LoCoMo's category (1-5); absent where the benchmark has none. */
  category?: number;
  latencyMs: number;
  llmCalls: number;
  /** For a question whose evidence was updated: where the newest evidence ranks against the older. */
  newestFirst?: NewestFirst;
  /** The answer's highest dense similarity, where its retriever reports one (RetrieverAnswer). */
  bestSimilarity?: number;
}

/** Means over a set of questions. */
export interface Summary {
  n: number;
  recall: Record<number, number>;
  hit: Record<number, number>;
  ndcg: Record<number, number>;
  /** Mean reciprocal rank at k. */
  mrr: Record<number, number>;
}

/** Mean recall, hit rate, nDCG and reciprocal rank of `results` (all zero when there are none). */
export function summarize(results: readonly RankingScore[], ks: readonly number[]): Summary {
  const summary: Summary = { n: results.length, recall: {}, hit: {}, ndcg: {}, mrr: {} };
  const meanOf = (pick: (result: RankingScore) => number | undefined) => mean(results.map((result) => pick(result) ?? 0));
  for (const k of ks) {
    summary.recall[k] = meanOf((result) => result.recall[k]);
    summary.hit[k] = meanOf((result) => result.hit[k]);
    summary.ndcg[k] = meanOf((result) => result.ndcg[k]);
    summary.mrr[k] = meanOf((result) => result.reciprocalRank[k]);
  }
  return summary;
}

/** The p-th percentile (0-100) by linear interpolation between closest ranks; 0 for no values. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const position = (Math.min(100, Math.max(0, p)) / 100) * (sorted.length - 1);
  const below = Math.floor(position);
  const above = Math.ceil(position);
  const low = sorted[below] ?? 0;
  const high = sorted[above] ?? low;
  return low + (high - low) * (position - below);
}

/** p50 and p95 of latencies in ms, rounded to hundredths: how every report and benchmark states latency. */
export function latencySummary(values: readonly number[]): { p50: number; p95: number } {
  return { p50: roundTo(percentile(values, 50), 2), p95: roundTo(percentile(values, 95), 2) };
}

/** `value` rounded to `digits` decimals. */
export function roundTo(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

/**
 * How well one value tells two groups apart: the chance that a value drawn from `higher` exceeds one
 * drawn from `lower`, ties counting half (the area under the ROC curve of a threshold on it). 0.5 is
 * chance, 1 a threshold that separates them exactly; undefined when either group is empty.
 */
export function separation(higher: readonly number[], lower: readonly number[]): number | undefined {
  if (higher.length === 0 || lower.length === 0) return undefined;
  let above = 0;
  for (const high of higher) for (const low of lower) above += high > low ? 1 : high === low ? 0.5 : 0;
  return above / (higher.length * lower.length);
}

export function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length;
}

/**
 * How one retriever compares with another on the same questions by one measure: the mean difference
 * (first minus second), how many questions each did better on, and the two-sided sign-test p-value
 * of those wins and losses (ties left out). A mean difference of a few thousandths can come from a
 * handful of questions; the counts and p say whether "ahead" is more than that.
 */
export interface PairedComparison {
  difference: number;
  wins: number;
  losses: number;
  pValue: number;
}

/** Reads one measure of a scored question, e.g. recall@10 or nDCG@10. */
export type Measure = (score: RankingScore) => number | undefined;

/** What a paired comparison reads of a question: its id and its scores. */
export type ScoredQuestion = Pick<QuestionResult, "questionId"> & RankingScore;

/** Compares `first` with `second` question by question (paired by question id) on `measure`. */
export function comparePaired(first: readonly ScoredQuestion[], second: readonly ScoredQuestion[], measure: Measure): PairedComparison {
  const secondByQuestion = new Map(second.map((result) => [result.questionId, result]));
  let wins = 0;
  let losses = 0;
  let sum = 0;
  let paired = 0;
  for (const result of first) {
    const other = secondByQuestion.get(result.questionId);
    if (!other) continue;
    const difference = (measure(result) ?? 0) - (measure(other) ?? 0);
    sum += difference;
    paired += 1;
    if (difference > 0) wins += 1;
    else if (difference < 0) losses += 1;
  }
  return { difference: paired === 0 ? 0 : sum / paired, wins, losses, pValue: signTestPValue(wins, losses) };
}

/**
 * Two-sided exact sign test: the probability, under "either retriever equally likely to win a question
 * they disagree on", of a split at least as uneven as `wins` to `losses`. Summed in log space, so a few
 * thousand disagreements do not underflow.
 */
export function signTestPValue(wins: number, losses: number): number {
  const n = wins + losses;
  if (n === 0) return 1;
  const fewer = Math.min(wins, losses);
  let logChoose = 0; // log C(n, 0)
  let tail = 0;
  for (let i = 0; i <= fewer; i++) {
    tail += Math.exp(logChoose - n * Math.LN2);
    logChoose += Math.log(n - i) - Math.log(i + 1);
  }
  return Math.min(1, 2 * tail);
}
