import type { RunnableConfig } from "@langchain/core/runnables";
import { callStructured } from "../llm/structured.js";
import type { LlmCallRecord } from "../domain/run-account.js";
import { ReflectionOutputSchema } from "../llm/schemas.js";
import { MEMORY_PREVIEW_CHARS } from "../llm/prompts/preview.js";
import { REFLECT_SYSTEM, reflectUserPrompt } from "../llm/prompts/reflect.js";
import { judgeWithRules } from "../reflection/rule-judge.js";
import type { MemoryEntry } from "../memory/entry.js";
import { resolveConfiguration } from "../graph/configuration.js";
import type { GraphDependencies } from "../graph/dependencies.js";
import type { RetrievalStateValue } from "../graph/state.js";
import type { Coverage } from "../domain/coverage.js";
import type { Degradation } from "../domain/run-account.js";
import { timed } from "../graph/timing.js";

/**
 * Judges whether the current top results cover what the plan said was needed and, if not, writes
 * gap queries for another round. With reflection off, or at the round cap, it only records coverage
 * by the rules (no model call) and the graph goes on to finalize.
 */
export function reflectNode(dependencies: () => Promise<GraphDependencies>) {
  return async (state: RetrievalStateValue, config?: RunnableConfig) =>
    timed("reflect", async () => {
      const settings = resolveConfiguration(config);
      const plan = state.queryPlan;
      const finalK = state.settings?.finalK ?? settings.finalK;
      const top = state.fused
        .slice(0, finalK)
        .map((hit) => state.entries[hit.key])
        .filter((entry): entry is MemoryEntry => entry !== undefined);
      if (!plan) return { coverage: offCoverage() };
      const atCap = !settings.reflection || state.round >= settings.maxReflectionRounds;
      const { model } = await dependencies();
      // Gap queries of earlier rounds: asked again, they would find the same hits and count them twice.
      const asked = new Set(state.viewHits.filter((list) => list.round > 0).map((list) => list.query));
      if (atCap || !model) {
        const coverage = judgeWithRules(plan, top, settings.maxGapQueries, asked);
        if (!settings.reflection) return { coverage: { ...coverage, complete: true, gapQueries: [], gapConditions: {}, judge: "off" as const } };
        return advance(state.round, atCap ? { ...coverage, gapQueries: [], gapConditions: {} } : coverage, [], []);
      }

      const reply = await callStructured(
        model,
        ReflectionOutputSchema,
        {
          system: REFLECT_SYSTEM,
          user: reflectUserPrompt(
            state.question,
            plan.requiredInfo,
            top.map((entry) => `${entry.timestamp.slice(0, 10)} ${entry.text.slice(0, MEMORY_PREVIEW_CHARS)}`),
          ),
        },
        { step: "reflect", retries: 0, timeoutMs: settings.llmTimeoutMs, signal: config?.signal },
      );
      if (!reply.ok) {
        // Unparseable or failed: treat as incomplete and let the rules write the gap queries; the cap still holds.
        const rules = judgeWithRules(plan, top, settings.maxGapQueries, asked);
        const degraded: Degradation = { step: "reflect", error: `model failed, rules used: ${reply.record.error ?? "unknown"}` };
        return advance(state.round, { ...rules, complete: rules.gapQueries.length === 0 }, [reply.record], [degraded]);
      }
      const gapQueries = reply.value.gapQueries.filter((query) => !asked.has(query)).slice(0, settings.maxGapQueries);
      const coverage: Coverage = {
        complete: reply.value.complete || gapQueries.length === 0,
        percent: reply.value.coveragePercent,
        missing: reply.value.missing,
        gapQueries: reply.value.complete ? [] : gapQueries,
        judge: "llm",
      };
      return advance(state.round, coverage, [reply.record], []);
    });
}

/** Records the judgement; an incomplete one with gap queries opens the next round. */
function advance(round: number, coverage: Coverage, llmCalls: LlmCallRecord[], degraded: Degradation[]) {
  const searchAgain = !coverage.complete && coverage.gapQueries.length > 0;
  return { coverage, round: searchAgain ? round + 1 : round, llmCalls, degraded };
}

function offCoverage(): Coverage {
  return { complete: true, percent: 100, missing: [], gapQueries: [], judge: "off" };
}
