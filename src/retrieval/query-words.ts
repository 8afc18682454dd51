import { englishMonthNumber } from "../time/calendar.js";

/**
 * The question without its time expression when memories would not spell it the same way. A relative
 * one ("last week", 上周) is left to the symbolic view's time window: its words would only match the
 * same words used in another sense ("for a week"). A date or a month stays ("May 2023", "in August":
 * memories are stored with their dates restated in month names and numbers), since a memory that
 * names the date speaks of what happened then.
 */
export function withoutRelativeTime(question: string, expression: string | undefined): string {
  if (expression === undefined) return question;
  const spelledAsStored = /\p{Nd}/u.test(expression) || expression.split(/[^\p{L}]+/u).some((word) => englishMonthNumber(word) !== undefined);
  const at = question.indexOf(expression);
  if (spelledAsStored || at < 0) return question;
  // One space where the expression stood, so the query reads as words in provenance.
  return `${question.slice(0, at).trimEnd()} ${question.slice(at + expression.length).trimStart()}`.trim();
}
