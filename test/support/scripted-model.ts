import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { EXTRACT_MEMORIES_SYSTEM } from "../../src/llm/prompts/extract-memories.js";
import { PLAN_SYSTEM } from "../../src/llm/prompts/plan.js";
import { REFLECT_SYSTEM } from "../../src/llm/prompts/reflect.js";
import { RERANK_SYSTEM } from "../../src/llm/prompts/rerank.js";

/** The steps of a retrieval run that ask the model. */
export type RetrievalStepName = "plan" | "reflect" | "rerank";
/** Every step the scripted model tells apart: the retrieval steps and memory extraction (ingest). */
export type StepName = RetrievalStepName | "extract";
/** What the model says at a step: text, an Error to throw, or a promise (to be slow). */
export type StepReply = string | Error | ((call: number) => string | Error);
/**
 * How often each step was asked. `extract` is counted only once asked, so a retrieval test can still
 * compare the whole record with `{ plan, reflect, rerank }`.
 */
export type StepCalls = Record<RetrievalStepName, number> & { extract?: number };

/**
 * The system prompt each step starts with, taken from the prompt modules themselves: a reworded
 * prompt is still recognised. Starts with, not equals: the structured call appends the JSON Schema.
 */
const STEP_PROMPTS: readonly (readonly [StepName, string])[] = [
  ["plan", PLAN_SYSTEM],
  ["reflect", REFLECT_SYSTEM],
  ["rerank", RERANK_SYSTEM],
  ["extract", EXTRACT_MEMORIES_SYSTEM],
];

/** The system prompt of a call: the first message, as the structured call sends it. */
function systemText(messages: readonly BaseMessage[]): string {
  return String(messages[0]?.content ?? "");
}

/** The step a system prompt is for; undefined for a prompt no step uses. */
function stepOf(system: string): StepName | undefined {
  return STEP_PROMPTS.find(([, prompt]) => system.startsWith(prompt))?.[0];
}

/**
 * A fake chat model from @langchain/core/testing that answers by step, told apart by the system
 * prompt. It records how often each step was asked.
 */
export function scriptedModel(replies: Partial<Record<StepName, StepReply>>, maxCalls = 50) {
  const calls: StepCalls = { plan: 0, reflect: 0, rerank: 0 };
  const model = fakeModel();
  const answer = (messages: BaseMessage[]) => {
    const system = systemText(messages);
    const step = stepOf(system);
    // Fail loudly rather than guess a step: an unknown prompt means a step this script does not know yet.
    if (step === undefined) return new Error(`scripted model: no step has the system prompt ${JSON.stringify(system.slice(0, 60))}...`);
    const count = (calls[step] ?? 0) + 1;
    calls[step] = count;
    return replyAt(step, replies[step], count);
  };
  for (let i = 0; i < maxCalls; i += 1) model.respond(answer);
  return { model, calls };
}

/** The scripted reply to the `call`-th ask of `step`, as the message (or Error) the fake model returns. */
function replyAt(step: StepName, reply: StepReply | undefined, call: number): AIMessage | Error {
  if (reply === undefined) return new Error(`no scripted reply for ${step}`);
  const value = typeof reply === "function" ? reply(call) : reply;
  return value instanceof Error ? value : new AIMessage({ content: value, usage_metadata: { input_tokens: 100, output_tokens: 20, total_tokens: 120 } });
}

export const json = (value: unknown) => JSON.stringify(value);
