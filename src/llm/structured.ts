import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage } from "@langchain/core/messages";
import { z } from "zod";
import type { LlmCallRecord } from "../domain/run-account.js";
import { abortAfter, untilAborted } from "../core/time-limit.js";
import { describeError } from "../core/log.js";

export interface StructuredCallOptions {
  /** Name of the step, for the run account. */
  step: string;
  /** Extra attempts after the first failure (unparseable output, thrown error, timeout). */
  retries?: number;
  /** Per-attempt timeout; a slower model counts as failed. */
  timeoutMs?: number;
  /** The run's cancellation or deadline: once aborted, the pending attempt fails and no other is made. */
  signal?: AbortSignal | undefined;
}

/** The limits every model step runs under: a per-attempt timeout, retries and the run's cancellation. */
export interface ModelCallLimits {
  timeoutMs: number;
  /** Extra attempts after a failed one; unset, each step keeps its own default (see the steps). */
  retries?: number | undefined;
  signal?: AbortSignal | undefined;
}

export type StructuredResult<T> = { ok: true; value: T; record: LlmCallRecord } | { ok: false; record: LlmCallRecord };

/**
 * One structured LLM call: the schema is given to the model as JSON Schema in the system prompt and
 * the reply is parsed as JSON and validated with zod. Plain JSON in text (not tool calling) so any chat
 * model works, including small local servers and the fake models of tests.
 * Never throws: a failure after the retries comes back as `{ok: false}` and the caller runs its rules.
 */
export async function callStructured<S extends z.ZodType>(
  model: BaseChatModel,
  schema: S,
  prompt: { system: string; user: string },
  options: StructuredCallOptions,
): Promise<StructuredResult<z.output<S>>> {
  const record: LlmCallRecord = { step: options.step, calls: 0, inputTokens: 0, outputTokens: 0, ok: false };
  const messages: BaseMessage[] = [
    new SystemMessage(
      `${prompt.system}\n\nAnswer with one JSON object only, no prose, matching this JSON Schema:\n` +
        JSON.stringify(z.toJSONSchema(schema, { io: "input", unrepresentable: "any" })),
    ),
    new HumanMessage(prompt.user),
  ];
  const attempts = 1 + Math.max(0, options.retries ?? 1);
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    if (options.signal?.aborted) {
      record.error = `${options.step}: not asked: ${abortReason(options.signal)}`;
      break;
    }
    record.calls += 1;
    try {
      const reply = await withTimeout((signal) => model.invoke(messages, { signal }), options.timeoutMs ?? 30_000, options.step, options.signal);
      addUsage(record, reply);
      const parsed = schema.safeParse(extractJson(messageText(reply)));
      if (parsed.success) {
        record.ok = true;
        delete record.error;
        return { ok: true, value: parsed.data, record };
      }
      record.error = `unparseable output: ${parsed.error.issues[0]?.message ?? "invalid"}`;
    } catch (error) {
      record.error = describeError(error);
    }
  }
  return { ok: false, record };
}

/** The text content of a chat reply, whatever shape its content has. */
export function messageText(message: BaseMessage): string {
  const content = message.content;
  if (typeof content === "string") return content;
  return content
    .map((part) => (typeof part === "string" ? part : "text" in part && typeof part.text === "string" ? part.text : ""))
    .join("");
}

/** The first JSON object in a reply, tolerating code fences and prose around it; undefined when none parses. */
export function extractJson(text: string): unknown {
  const unfenced = text.replace(/```(?:json)?/gi, "");
  const start = unfenced.indexOf("{");
  if (start < 0) return undefined;
  let depth = 0;
  let inString = false;
  for (let i = start; i < unfenced.length; i += 1) {
    const char = unfenced[i];
    if (inString) {
      if (char === "\\") i += 1;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === "{") depth += 1;
    else if (char === "}") {
      depth -= 1;
      if (depth === 0) {
        try {
          return JSON.parse(unfenced.slice(start, i + 1));
        } catch {
          return undefined;
        }
      }
    }
  }
  return undefined;
}

function addUsage(record: LlmCallRecord, reply: BaseMessage): void {
  if (!AIMessage.isInstance(reply) || !reply.usage_metadata) return;
  record.inputTokens += reply.usage_metadata.input_tokens ?? 0;
  record.outputTokens += reply.usage_metadata.output_tokens ?? 0;
}

/**
 * The model's reply, or a rejection at the timeout or when the run's signal aborts. The model is
 * handed the combined signal (a client that honours it drops the request); one that ignores it (a
 * fake, a client without cancellation) is left behind rather than waited for.
 */
async function withTimeout<T>(ask: (signal: AbortSignal) => Promise<T>, ms: number, step: string, outer: AbortSignal | undefined): Promise<T> {
  const { signal, disarm } = abortAfter(ms, () => new Error(`${step}: model did not answer within ${ms} ms`), outer);
  try {
    return await untilAborted(ask(signal), signal);
  } catch (error) {
    // Cancelled by the run (its deadline, its caller): say so in the step's words.
    if (outer?.aborted) throw new Error(`${step}: ${abortReason(outer)}`);
    throw error;
  } finally {
    disarm();
  }
}

/** Why a signal aborted, in words: the deadline's message, or the run's cancellation. */
function abortReason(signal: AbortSignal | undefined): string {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason.message : "cancelled";
}
