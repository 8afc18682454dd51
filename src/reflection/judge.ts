import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { Coverage } from "../domain/coverage.js";
import type { Plan } from "../domain/plan.js";
import type { Degradation, LlmCallRecord } from "../domain/run-account.js";
import type { ModelCallLimits } from "../llm/structured.js";
import type { MemoryEntry } from "../memory/entry.js";
import { withoutGapQueries } from "./coverage.js";
import { askModelForCoverage, coverageFromModel } from "./model-judge.js";
import { judgeWithRules } from "./rule-judge.js";

/** What a judge looks at: the question, its plan, the current top results, and the gap queries earlier rounds asked. */
export interface JudgeRequest {
  question: string;
  plan: Plan;
  top: readonly MemoryEntry[];
  asked: ReadonlySet<string>;
}

export interface JudgingOptions extends ModelCallLimits {
  /** Off: coverage is recorded by the rules and the run ends. */
  reflection: boolean;
  /** False at the round cap: coverage is recorded and nothing more is asked. */
  roundsLeft: boolean;
  maxGapQueries: number;
  /** With a model it judges, and the rules stand in when it fails; without one the rules judge. */
  model?: BaseChatModel | undefined;
}

/** A judgement and what it cost. */
export interface Judgement {
  coverage: Coverage;
  llmCalls: LlmCallRecord[];
  degraded: Degradation[];
}

/**
 * Judges one round the one way the options say. The model is asked only when another round could
 * follow: with reflection off or at the cap its answer could change nothing, so the rules, which cost
 * nothing, record the coverage.
 */
export async function judgeCoverage(request: JudgeRequest, options: JudgingOptions): Promise<Judgement> {
  const limits = { asked: request.asked, maxGapQueries: options.maxGapQueries };
  const byRules = () => judgeWithRules(request.plan, request.top, limits.maxGapQueries, limits.asked);
  if (!options.reflection) return costless({ ...withoutGapQueries(byRules()), complete: true, judge: "off" });
  if (!options.roundsLeft) return costless(withoutGapQueries(byRules()));
  if (!options.model) return costless(byRules());
  const reply = await askModelForCoverage(options.model, request, options);
  if (reply.ok) return { coverage: coverageFromModel(reply.value, limits), llmCalls: [reply.record], degraded: [] };
  const degraded = { step: "reflect", error: `model failed, rules used: ${reply.record.error ?? "unknown"}` };
  return { coverage: byRules(), llmCalls: [reply.record], degraded: [degraded] };
}

function costless(coverage: Coverage): Judgement {
  return { coverage, llmCalls: [], degraded: [] };
}
