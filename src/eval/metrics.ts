/**
 * Evidence-retrieval metrics as LoCoMo defines recall: the share of a question's evidence turns
 * found among the turns of the top-k entries. One entry may carry several turn ids (an LLM-built
 * memory covering a few turns), so an entry can find more than one evidence turn at once.
 */

/** A retriever's answer: for each returned entry, best first, the turn ids it came from. */
export type RankedTurnIds = ReadonlyArray<readonly string[]>;

export interface RankingScore {
  /** Share of evidence turns in the top k, per k. */
  recall: Record<number, number>;
  /** 1 when at least one evidence turn is in the top k, else 0, per k. */
  hit: Record<number, number>;
  /** 1 / rank of the first entry holding an evidence turn; 0 when none of the returned entries does. */
  reciprocalRank: number;
}

/** Scores one ranked answer against one question's evidence turn ids (duplicates in evidence count once). */
export function scoreRanking(ranked: RankedTurnIds, evidence: readonly string[], ks: readonly number[]): RankingScore {
  const wanted = new Set(evidence);
  if (wanted.size === 0) throw new RangeError("a question without evidence cannot be scored");
  const recall: Record<number, number> = {};
  const hit: Record<number, number> = {};
  for (const k of ks) {
    const found = new Set<string>();
    for (const turnIds of ranked.slice(0, k)) for (const id of turnIds) if (wanted.has(id)) found.add(id);
    recall[k] = found.size / wanted.size;
    hit[k] = found.size > 0 ? 1 : 0;
  }
  const firstRelevant = ranked.findIndex((turnIds) => turnIds.some((id) => wanted.has(id)));
  return { recall, hit, reciprocalRank: firstRelevant < 0 ? 0 : 1 / (firstRelevant + 1) };
}

/** A scored question, with what it cost. */
export interface QuestionResult extends RankingScore {
  conversationId: string;
  index: number;
  category: number;
  latencyMs: number;
  llmCalls: number;
}

/** Means over a set of questions. */
export interface Summary {
  n: number;
  recall: Record<number, number>;
  hit: Record<number, number>;
  mrr: number;
}

/** Mean recall, hit rate and MRR of `results` (all zero when there are none). */
export function summarize(results: readonly RankingScore[], ks: readonly number[]): Summary {
  const n = results.length;
  const mean = (pick: (result: RankingScore) => number) => (n === 0 ? 0 : results.reduce((sum, result) => sum + pick(result), 0) / n);
  const recall: Record<number, number> = {};
  const hit: Record<number, number> = {};
  for (const k of ks) {
    recall[k] = mean((result) => result.recall[k] ?? 0);
    hit[k] = mean((result) => result.hit[k] ?? 0);
  }
  return { n, recall, hit, mrr: mean((result) => result.reciprocalRank) };
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

export function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length;
}

/**
 * How one retriever compares with another on the same questions at one k: the mean difference in
 * recall (first minus second), how many questions each did better on, and the two-sided sign-test
 * p-value of those wins and losses (ties left out). A mean difference of a few thousandths can come
 * from a handful of questions; the counts and p say whether "ahead" is more than that.
 */
export interface PairedComparison {
  difference: number;
  wins: number;
  losses: number;
  pValue: number;
}

/** Compares `first` with `second` question by question (paired by conversation and question index). */
export function comparePaired(first: readonly QuestionResult[], second: readonly QuestionResult[], k: number): PairedComparison {
  const secondByQuestion = new Map(second.map((result) => [questionKey(result), result]));
  let wins = 0;
  let losses = 0;
  let sum = 0;
  let paired = 0;
  for (const result of first) {
    const other = secondByQuestion.get(questionKey(result));
    if (!other) continue;
    const difference = (result.recall[k] ?? 0) - (other.recall[k] ?? 0);
    sum += difference;
    paired += 1;
    if (difference > 0) wins += 1;
    else if (difference < 0) losses += 1;
  }
  return { difference: paired === 0 ? 0 : sum / paired, wins, losses, pValue: signTestPValue(wins, losses) };
}

function questionKey(result: QuestionResult): string {
  return `${result.conversationId}\u0000${result.index}`;
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
