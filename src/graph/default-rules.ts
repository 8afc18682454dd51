import type { EmbedderProfile } from "../text/embedders/profiles.js";
import { NO_YIELD } from "../nodes/lexical.js";
import type { RetrievalConfigInput } from "./configuration.js";
import { NO_CONTEXT_VOTES } from "./presets.js";

/**
 * A rule of the default that a run's settings can turn off. A rule stays in the default only where no
 * development set loses by it beyond chance, so the evaluation's peers run asks every question again
 * with each rule off ("recallgraph full without context votes") and tests the difference question by
 * question, on every set, with each embedder (docs/results/development-sets.md).
 */
export interface DefaultRule {
  /** What the rule is, as a row names it after "without". */
  name: string;
  /** The settings that turn it off for runs with this embedder; undefined where its profile leaves the rule out. */
  off(profile: EmbedderProfile): RetrievalConfigInput | undefined;
}

/**
 * The default's rules that a setting turns off. Planning and reflection are presets of their own
 * (`no-plan`, `no-reflect`); the rules an embedder's profile fixes for long texts (its sentence vectors,
 * lists voting by score) have no run setting and were measured where they were made (docs/experiments.md).
 */
export const DEFAULT_RULES = [
  { name: "context votes", off: () => ({ contextVotes: NO_CONTEXT_VOTES }) },
  { name: "the symbolic vote", off: () => ({ viewWeights: { symbolic: 0 } }) },
  {
    name: "the dense weight without names",
    off: (profile) => (profile.denseWeightWithoutNames === undefined ? undefined : { viewWeights: { semantic: profile.denseWeight } }),
  },
  { name: "time answers", off: () => ({ timeAnswerVote: 0 }) },
  { name: "the lexical yield", off: (profile) => (profile.lexicalYield === undefined ? undefined : { lexicalYield: NO_YIELD }) },
  // Without a model the rules make the sub-queries, so one sub-query is the question alone.
  { name: "clause sub-queries", off: (profile) => (profile.clauseQueries ? { maxSubQueries: 1 } : undefined) },
] as const satisfies readonly DefaultRule[];

/** `settings` with a rule's off-settings laid over them, per-view weights merged view by view. */
export function withRuleOff(settings: RetrievalConfigInput, off: RetrievalConfigInput): RetrievalConfigInput {
  const viewWeights = settings.viewWeights || off.viewWeights ? { ...settings.viewWeights, ...off.viewWeights } : undefined;
  return { ...settings, ...off, ...(viewWeights ? { viewWeights } : {}) };
}
