/**
 * Each scored question's measures, as `recallgraph eval --question-scores` writes them (one JSON line
 * a question), and the comparison of two such files question by question (`recallgraph eval-compare`):
 * how a user learns whether a setting, an embedder or a store pays on their own data, with the same
 * sign test the peers are compared by.
 */
import { z } from "zod";
import { ValidationError } from "../core/errors.js";
import { jsonLines } from "../ingest/json-text.js";
import { comparePaired, mean, type QuestionResult, type RankingScore, type ScoredQuestion } from "./metrics.js";

/** A measure's value per cut-off, keyed by k as JSON keys are: {"5": 0.5, "10": 1}. */
const PerK = z.record(z.string().regex(/^\d+$/, "cut-offs are whole numbers"), z.number().min(0).max(1));

export const QuestionScoreSchema = z.strictObject({
  id: z.string().min(1, "id must not be empty").describe("The question's id within its benchmark: LoCoMo's conv-26:12, a BEIR query id, ..."),
  category: z.number().int().optional().describe("LoCoMo's category (1-5), where the benchmark has one"),
  recall: PerK.describe("Share of the relevant ids in the top k"),
  hit: PerK.describe("1 when a relevant id is in the top k"),
  ndcg: PerK.describe("nDCG at k"),
  reciprocalRank: PerK.describe("1 / rank of the first relevant entry within the top k, 0 when none"),
});
export type QuestionScore = z.infer<typeof QuestionScoreSchema>;

const FAMILIES = ["recall", "hit", "ndcg", "reciprocalRank"] as const satisfies readonly (keyof RankingScore)[];
type Family = (typeof FAMILIES)[number];
const FAMILY_LABELS: Record<Family, string> = { recall: "recall", hit: "hit", ndcg: "nDCG", reciprocalRank: "RR" };

/** The scored questions of one mode as JSON Lines. */
export function questionScoreLines(results: readonly QuestionResult[]): string {
  return results
    .map(({ questionId, category, recall, hit, ndcg, reciprocalRank }) =>
      JSON.stringify({ id: questionId, ...(category !== undefined ? { category } : {}), recall, hit, ndcg, reciprocalRank } satisfies z.input<typeof QuestionScoreSchema>),
    )
    .join("\n")
    .concat(results.length > 0 ? "\n" : "");
}

/** Reads a file `questionScoreLines` wrote; a bad line is an error naming the file, the line and the field. */
export function readQuestionScores(text: string, file: string): QuestionScore[] {
  const scores: QuestionScore[] = [];
  const seen = new Set<string>();
  for (const { line, json } of jsonLines(text, (line, reason) => new ValidationError(`${file} line ${line}`, reason))) {
    const parsed = QuestionScoreSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new ValidationError([`${file} line ${line}`, ...(issue?.path ?? []).map(String)].join(": "), issue?.message ?? "not a question's scores");
    }
    if (seen.has(parsed.data.id)) throw new ValidationError(`${file} line ${line}: id`, `question "${parsed.data.id}" is scored twice`);
    seen.add(parsed.data.id);
    scores.push(parsed.data);
  }
  if (scores.length === 0) throw new ValidationError(file, "no scored question (write one with recallgraph eval --question-scores)");
  return scores;
}

/** One measure compared: the means over the paired questions, and how many each side wins. */
export interface MeasureComparison {
  /** e.g. "recall@10", "nDCG@10". */
  measure: string;
  first: number;
  second: number;
  /** Mean of first - second over the paired questions. */
  difference: number;
  /** Questions where the first scores higher, and lower. */
  better: number;
  worse: number;
  /** Two-sided exact sign test. */
  pValue: number;
}

export interface ScoresComparison {
  /** Questions in both files (only these are compared). */
  paired: number;
  /** Questions in one file only. */
  onlyFirst: number;
  onlySecond: number;
  measures: MeasureComparison[];
}

/**
 * Compares two files' questions, paired by id, on every measure and cut-off both score for every
 * question; `categories` keeps only the questions of those categories (LoCoMo's headline is 1-4).
 */
export function compareQuestionScores(first: readonly QuestionScore[], second: readonly QuestionScore[], categories?: readonly number[]): ScoresComparison {
  const kept = (scores: readonly QuestionScore[]) => scores.filter((score) => !categories || (score.category !== undefined && categories.includes(score.category)));
  const [a, b] = [kept(first).map(asScored), kept(second).map(asScored)];
  const secondIds = new Set(b.map((score) => score.questionId));
  const pairedA = a.filter((score) => secondIds.has(score.questionId));
  const pairedIds = new Set(pairedA.map((score) => score.questionId));
  if (pairedA.length === 0) throw new ValidationError("questions", "the two files share no scored question (were they written from the same data, and the same --conversations or --limit?)");
  const pairedB = b.filter((score) => pairedIds.has(score.questionId));
  const measures = FAMILIES.flatMap((family) =>
    sharedCutoffs([...pairedA, ...pairedB], family).map((k) => {
      const read = (score: RankingScore) => score[family][k];
      const { difference, wins, losses, pValue } = comparePaired(pairedA, pairedB, read);
      return { measure: `${FAMILY_LABELS[family]}@${k}`, first: mean(pairedA.map((score) => read(score) ?? 0)), second: mean(pairedB.map((score) => read(score) ?? 0)), difference, better: wins, worse: losses, pValue };
    }),
  );
  return { paired: pairedA.length, onlyFirst: a.length - pairedA.length, onlySecond: b.length - pairedB.length, measures };
}

/** A cut-off read as a number finds the key JSON wrote as text, so the scores serve as they are. */
function asScored({ id, recall, hit, ndcg, reciprocalRank }: QuestionScore): ScoredQuestion {
  return { questionId: id, recall, hit, ndcg, reciprocalRank };
}

/** The cut-offs of a measure that every question scores, ascending. */
function sharedCutoffs(scores: readonly ScoredQuestion[], family: Family): number[] {
  const [head, ...rest] = scores;
  if (!head) return [];
  const cutoffs = Object.keys(head[family]).map(Number);
  return cutoffs.filter((k) => rest.every((score) => score[family][k] !== undefined)).sort((x, y) => x - y);
}
