import type { RunnableConfig } from "@langchain/core/runnables";
import { Overwrite } from "@langchain/langgraph";
import { parseOrThrow } from "../core/errors.js";
import { callStructured } from "../llm/structured.js";
import { PlanOutputSchema, type PlanOutput } from "../llm/schemas.js";
import { PLAN_SYSTEM, planUserPrompt } from "../llm/prompts/plan.js";
import { namesMentioned, planWithRules, sameQuery } from "../planning/rule-planner.js";
import type { Vocabulary } from "../stores/port.js";
import { findTimeWindow } from "../time/window.js";
import { resolveConfiguration, type RetrievalConfig } from "../graph/configuration.js";
import type { GraphDependencies } from "../graph/dependencies.js";
import { widestSettings } from "../graph/run-settings.js";
import { RetrievalInputSchema, type RetrievalStateValue } from "../graph/state.js";
import type { Degradation } from "../domain/run-account.js";
import type { Plan } from "../domain/plan.js";
import { timed } from "../graph/timing.js";
import type { LlmCallRecord } from "../domain/run-account.js";

/**
 * First node: validates the input, starts the run's accumulators afresh (a reused thread keeps
 * nothing from its previous run), settles the run's settings and plans the question, with the model
 * when there is one and by rules otherwise or when the model fails.
 */
export function planNode(dependencies: () => Promise<GraphDependencies>) {
  return async (state: RetrievalStateValue, config?: RunnableConfig) =>
    timed("plan", async () => {
      const input = parseOrThrow(RetrievalInputSchema, { question: state.question, namespaces: state.namespaces, now: state.now }, "input");
      const settingsConfig = resolveConfiguration(config);
      const { store, model } = await dependencies();
      const namespaces = [...new Set(input.namespaces)];
      const now = input.now ? new Date(input.now) : new Date();
      const degraded: Degradation[] = [];
      const llmCalls: LlmCallRecord[] = [];

      const stored = await Promise.all(namespaces.map((ns) => store.getSettings(ns)));
      // Only a planner reads the known names; unplanned presets skip the lookup (on Qdrant, three facet requests).
      const vocabulary = settingsConfig.planning
        ? mergeVocabularies(await Promise.all(namespaces.map((ns) => store.vocabulary(ns))))
        : { persons: [], entities: [], locations: [] };
      const ruleContext = { vocabulary, now, timeZone: settingsConfig.timeZone, maxSubQueries: settingsConfig.maxSubQueries };

      let plan: Plan;
      if (!settingsConfig.planning) {
        plan = unplanned(input.question);
      } else if (model) {
        const reply = await callStructured(
          model,
          PlanOutputSchema,
          { system: PLAN_SYSTEM, user: planUserPrompt(input.question, [...vocabulary.persons, ...vocabulary.entities]) },
          { step: "plan", retries: 1, timeoutMs: settingsConfig.llmTimeoutMs, signal: config?.signal },
        );
        llmCalls.push(reply.record);
        if (reply.ok) {
          plan = planFromModel(input.question, reply.value, ruleContext, settingsConfig);
        } else {
          degraded.push({ step: "plan", error: `model failed, rules used: ${reply.record.error ?? "unknown"}` });
          plan = planWithRules(input.question, ruleContext);
        }
      } else {
        plan = planWithRules(input.question, ruleContext);
      }

      return {
        question: input.question,
        namespaces,
        now: now.toISOString(),
        queryPlan: plan,
        settings: widestSettings(settingsConfig, stored),
        round: 0,
        coverage: undefined,
        fused: [],
        results: [],
        viewHits: new Overwrite([]),
        entries: new Overwrite({}),
        degraded: new Overwrite(degraded),
        llmCalls: new Overwrite(llmCalls),
        nodeMs: new Overwrite({}),
      };
    });
}

/** Planning switched off: the question is the only query and no conditions are extracted. */
function unplanned(question: string): Plan {
  return { requiredInfo: [], subQueries: [question], keywords: [], persons: [], entities: [], locations: [], planner: "none" };
}

/** The model's plan, made safe: the question stays first, caps hold, names map to known ones, our parser resolves the time. */
function planFromModel(
  question: string,
  output: PlanOutput,
  context: { vocabulary: Vocabulary; now: Date; timeZone: string },
  config: RetrievalConfig,
): Plan {
  const subQueries = [question];
  for (const query of output.subQueries) {
    if (subQueries.length < config.maxSubQueries && !subQueries.some((kept) => sameQuery(kept, query))) subQueries.push(query);
  }
  const known = (names: string[], vocabulary: string[]) => {
    const matched = namesMentioned(names.join(" ; "), vocabulary);
    return matched.length ? matched : names;
  };
  const window = findTimeWindow(output.timeExpression ?? question, { now: context.now, timeZone: context.timeZone });
  const plan: Plan = {
    requiredInfo: output.requiredInfo,
    subQueries,
    keywords: output.keywords,
    persons: known(output.persons, context.vocabulary.persons),
    entities: known(output.entities, context.vocabulary.entities),
    locations: known(output.locations, context.vocabulary.locations),
    planner: "llm",
  };
  if (window) {
    plan.timeExpression = window.expression;
    plan.timeWindow = { startMs: window.startMs, endMs: window.endMs };
  }
  return plan;
}

function mergeVocabularies(vocabularies: readonly Vocabulary[]): Vocabulary {
  const merge = (pick: (v: Vocabulary) => string[]) => [...new Set(vocabularies.flatMap(pick))];
  return { persons: merge((v) => v.persons), entities: merge((v) => v.entities), locations: merge((v) => v.locations) };
}
