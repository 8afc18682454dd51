import type { LocomoConversation } from "../ingest/locomo.js";

/** LoCoMo's category ids as the data and its official scoring code use them. */
export const CATEGORY_NAMES: Readonly<Record<number, string>> = {
  1: "multi-hop",
  2: "temporal",
  3: "open-domain",
  4: "single-hop",
  5: "adversarial",
};

/** The categories of the headline figure (category 5 asks about things never said and is reported apart). */
export const HEADLINE_CATEGORIES: readonly number[] = [1, 2, 3, 4];

/** A question that can be scored: every evidence id is a well-formed turn id of its conversation. */
export interface EvalQuestion {
  conversationId: string;
  /** Position in the conversation's `qa` list, to name the question without quoting it. */
  index: number;
  question: string;
  category: number;
  /** Evidence turn ids, de-duplicated, in the order given. */
  evidence: string[];
}

/** A question left out of scoring, and why. */
export interface SkippedQuestion {
  conversationId: string;
  index: number;
  category: number;
  reason: string;
}

const TURN_ID = /^D\d+:\d+$/;

/**
 * Splits a conversation's questions into scorable and skipped ones. A question is skipped when its
 * evidence is empty, or any id is not of the form D<n>:<n> ("D:11:26", "D8:6; D9:17") or names no turn
 * of the conversation ("D30:05"): guessing what was meant would score against evidence nobody gave.
 */
export function evaluableQuestions(conversation: LocomoConversation): { questions: EvalQuestion[]; skipped: SkippedQuestion[] } {
  const turnIds = new Set(conversation.dialogue.turns.map((turn) => turn.turnId));
  const questions: EvalQuestion[] = [];
  const skipped: SkippedQuestion[] = [];
  conversation.questions.forEach((qa, index) => {
    const where = { conversationId: conversation.sampleId, index, category: qa.category };
    const reason = evidenceProblem(qa.evidence, turnIds);
    if (reason) skipped.push({ ...where, reason });
    else questions.push({ ...where, question: qa.question, evidence: [...new Set(qa.evidence)] });
  });
  return { questions, skipped };
}

function evidenceProblem(evidence: readonly string[], turnIds: ReadonlySet<string>): string | undefined {
  if (evidence.length === 0) return "no evidence";
  const malformed = evidence.find((id) => !TURN_ID.test(id));
  if (malformed !== undefined) return `malformed evidence id ${JSON.stringify(malformed)}`;
  const missing = evidence.find((id) => !turnIds.has(id));
  if (missing !== undefined) return `evidence id ${missing} is not a turn of the conversation`;
  return undefined;
}
