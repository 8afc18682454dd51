import type { RunnableConfig } from "@langchain/core/runnables";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { AnswerHit } from "../domain/hits.js";
import type { Degradation, LlmCallRecord } from "../domain/run-account.js";
import { callStructured, type ModelCallLimits } from "../llm/structured.js";
import { RerankOutputSchema } from "../llm/output-schemas.js";
import { MEMORY_PREVIEW_CHARS } from "../llm/prompts/preview.js";
import { RERANK_SYSTEM, rerankUserPrompt } from "../llm/prompts/rerank.js";
import { pastDeadline, withDeadlineSignal, type RunDeadline } from "../runtime/deadline.js";

/**
 * The optional LLM rerank of the final answer, beside the planners and judges: a model scores each
 * candidate against the question and the candidates are reordered by those scores. Bounded by the
 * run's deadline; a model that fails, or answers for too few candidates, leaves the fused order.
 */

/** The rerank's order, or the fused order (recorded as degraded) when the deadline has passed or the model fails. */
export async function rerankWithin(
  model: BaseChatModel,
  question: string,
  ranked: AnswerHit[],
  limits: Pick<ModelCallLimits, "timeoutMs" | "retries">,
  deadline: RunDeadline,
  degraded: Degradation[],
  llmCalls: LlmCallRecord[],
  config: RunnableConfig | undefined,
): Promise<AnswerHit[]> {
  if (ranked.length < 2) return ranked;
  if (pastDeadline(deadline)) {
    degraded.push({ step: "rerank", error: `deadline of ${deadline.ms} ms reached: fused order kept` });
    return ranked;
  }
  const reranked = await withDeadlineSignal(
    deadline,
    (signal) => rerank(model, question, ranked, { ...limits, signal }),
    config?.signal,
  );
  llmCalls.push(reranked.record);
  if (reranked.order) return reranked.order;
  degraded.push({ step: "rerank", error: reranked.reason });
  return ranked;
}

/**
 * LLM rerank, guarded against a weak model: the model sees the first 400 characters
 * of each hit; when fewer than half the scores parse the rerank is abandoned; ranks are renumbered.
 */
async function rerank(
  model: BaseChatModel,
  question: string,
  ranked: AnswerHit[],
  limits: ModelCallLimits,
): Promise<{ order?: AnswerHit[]; reason: string; record: LlmCallRecord }> {
  const reply = await callStructured(
    model,
    RerankOutputSchema,
    { system: RERANK_SYSTEM, user: rerankUserPrompt(question, ranked.map(({ entry }) => entry.text.slice(0, MEMORY_PREVIEW_CHARS))) },
    { step: "rerank", retries: limits.retries ?? 0, timeoutMs: limits.timeoutMs, signal: limits.signal },
  );
  if (!reply.ok) return { reason: `model failed: ${reply.record.error ?? "unknown"}`, record: reply.record };
  const scores = new Map<number, number>();
  for (const { index, score } of reply.value.scores) if (index < ranked.length && !scores.has(index)) scores.set(index, score);
  if (scores.size < ranked.length / 2) {
    return { reason: `only ${scores.size} of ${ranked.length} scores parsed; fused order kept`, record: reply.record };
  }
  const order = ranked
    .map((item, index) => ({ ...item, rerankScore: scores.get(index) ?? -1, index }))
    .sort((a, b) => b.rerankScore - a.rerankScore || a.index - b.index)
    .map(({ index: _index, ...item }) => item);
  return { order, reason: "", record: reply.record };
}

