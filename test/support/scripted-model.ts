import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";

export type StepName = "plan" | "reflect" | "rerank";
/** What the model says at a step: text, an Error to throw, or a promise (to be slow). */
export type StepReply = string | Error | ((call: number) => string | Error);

/**
 * A fake chat model from @langchain/core/testing that answers by step, told apart by the system
 * prompt. It records how often each step was asked.
 */
export function scriptedModel(replies: Partial<Record<StepName, StepReply>>, maxCalls = 50) {
  const calls: Record<StepName, number> = { plan: 0, reflect: 0, rerank: 0 };
  const model = fakeModel();
  const answer = (messages: BaseMessage[]) => {
    const system = String(messages[0]?.content ?? "");
    const step: StepName = system.startsWith("You plan") ? "plan" : system.startsWith("You check") ? "reflect" : "rerank";
    calls[step] += 1;
    const reply = replies[step];
    if (reply === undefined) return new Error(`no scripted reply for ${step}`);
    const value = typeof reply === "function" ? reply(calls[step]) : reply;
    return value instanceof Error ? value : new AIMessage({ content: value, usage_metadata: { input_tokens: 100, output_tokens: 20, total_tokens: 120 } });
  };
  for (let i = 0; i < maxCalls; i += 1) model.respond(answer);
  return { model, calls };
}

export const json = (value: unknown) => JSON.stringify(value);
