/**
 * A question that asks when is answered by a memory that says when: "When did Melanie paint a sunrise?"
 * by the turn that says "I painted that lake sunrise on 8 May 2022", not by the one that only shows the
 * painting. The dialogue builders write a turn's relative time as a date ("yesterday" as "on 7 May
 * 2023": time/rewrite.ts), so a conversation's answers to "when" mostly carry one, and most of its other
 * turns do not.
 */
import { RecentMap } from "../core/recent-map.js";
import { hitKey } from "../domain/hits.js";
import type { MemoryEntry } from "../memory/entry.js";
import { findTimeExpressions, type TimeContext } from "../time/index.js";

/**
 * Asking for a time: "when" before an auxiliary ("When did...", "so when is..."; "When I sign up, ..." is
 * a condition, not a question of time), "what/which year", "on what date", "how long ago", and the
 * Chinese forms (什么时候, 何时, 哪年, 哪一天, 几月, 几号, 几点).
 */
const ASKS_FOR_TIME =
  /\bwhen(?:['’]s|\s+(?:did|do|does|is|was|were|are|am|will|would|has|have|had|can|could|should)\b)|\b(?:what|which)\s+(?:date|year|month|day|time|week|season)\b|\bhow\s+long\s+ago\b|什么时候|何时|哪一?年|哪一?天|哪个?月|几月|几号|几点/iu;

/** True when the question asks for a time. */
export function asksForTime(question: string): boolean {
  return ASKS_FOR_TIME.test(question);
}

/**
 * Whether memories state a time, for the memories read lately: finding out is the time module's whole
 * parse (about 2 ms for a 500-word message), and the same memories answer many questions. Keyed by the
 * memory and its last write, not by its text, so the cache holds no texts (up to 16k characters each).
 */
const STATED = new RecentMap<string, boolean>(4_096);

/** What statesTime reads of a memory: which write of which memory it is, and its text. */
export type DatedCandidate = Pick<MemoryEntry, "namespace" | "id" | "updatedAt" | "text">;

/**
 * True when the memory's text holds a time expression the time module reads ("on 7 May 2023", "last
 * week", 上周五). The reference time places an expression's window, never decides whether there is one,
 * so a memory's answer is kept whatever the question's reference.
 */
export function statesTime(memory: DatedCandidate, context: TimeContext): boolean {
  const key = `${hitKey(memory.namespace, memory.id)}\u0000${memory.updatedAt}\u0000${memory.text.length}`;
  let found = STATED.get(key);
  if (found === undefined) STATED.set(key, (found = findTimeExpressions(memory.text, context).length > 0));
  return found;
}

/** How much the memories that state a time weigh in the answer to a question that asks for one. */
export interface TimeAnswerOptions {
  /** Their list's RRF vote as a share of a full list's (0: the ranking stands). */
  weight: number;
  /** The RRF constant the votes are counted with, so they weigh as the fused ranks do. */
  rrfK: number;
}

/**
 * A ranking reordered for a question that asks when, ranks only: the hits that state a time form a
 * second list in the ranking's own order, and each of them gains that list's RRF vote for its place
 * there, times `weight` and times how rare such hits are: 1 - 2 x their share of the ranking. Stating a
 * time sets a hit apart only where few hits do: most of a conversation's turns say no date, while most
 * of an encyclopedia's paragraphs name a year, and where half the ranking or more states a time the
 * vote is none. Nothing is added or dropped, the dated hits keep their order among themselves, and ties
 * keep the ranking's order.
 */
export function withTimeAnswerVotes(keys: readonly string[], isDated: (key: string) => boolean, options: TimeAnswerOptions): string[] {
  const dated = keys.map(isDated);
  const share = dated.filter(Boolean).length / Math.max(1, keys.length);
  const weight = options.weight * Math.max(0, 1 - 2 * share);
  if (weight <= 0 || keys.length < 2) return [...keys];
  let place = 0;
  const scored = keys.map((key, index) => {
    const vote = 1 / (options.rrfK + index + 1);
    const lent = dated[index] ? weight / (options.rrfK + ++place) : 0;
    return { key, index, score: vote + lent };
  });
  scored.sort((a, b) => b.score - a.score || a.index - b.index);
  return scored.map(({ key }) => key);
}
