import type { z } from "zod";

/** Stable, machine-readable reasons a call was refused or failed: every RecallGraphError's `code` is one of them. */
export const ERROR_CODES = [
  "invalid_input",
  "embedder_mismatch",
  "store_failure",
  "not_configured",
  "access_denied",
  "read_only",
  "response_too_large",
  "deadline_reached",
  "request_timeout",
  "aborted",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * Marks recallgraph's errors in the runtime's shared symbol registry: an application that ends up
 * with two copies of the package (two versions in node_modules, or a bundle beside an install) gets
 * errors from either, and `instanceof` knows only its own copy's class.
 */
const RECALLGRAPH_ERROR = Symbol.for("recallgraph.error");

/** Base of every error recallgraph throws on purpose: a code, a message that names the problem, and context. */
export class RecallGraphError extends Error {
  readonly [RECALLGRAPH_ERROR] = true;
  readonly code: ErrorCode;
  readonly context: Readonly<Record<string, unknown>>;

  constructor(code: ErrorCode, message: string, context: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    this.context = context;
  }
}

/** Bad input from a caller. `field` is the dotted path of the first offending value (e.g. `entries.3.text`). */
export class ValidationError extends RecallGraphError {
  readonly field: string;

  constructor(field: string, message: string, context: Record<string, unknown> = {}) {
    super("invalid_input", field ? `${field}: ${message}` : message, { field, ...context });
    this.field = field;
  }
}

/** The store was built by another embedder (model or dimension) than the one it is opened with. */
export class EmbedderMismatchError extends RecallGraphError {
  constructor(stored: { model: string; dimension: number }, given: { model: string; dimension: number }) {
    super(
      "embedder_mismatch",
      `store was built with embedder "${stored.model}" (${stored.dimension}-d) but opened with "${given.model}" (${given.dimension}-d); ` +
        "re-ingest into a new store or open it with the same embedder",
      { stored, given },
    );
  }
}

/** A backing store failed (I/O, server error). Carries the operation that failed. */
export class StoreError extends RecallGraphError {
  constructor(operation: string, message: string, options?: { cause?: unknown }) {
    super("store_failure", `${operation}: ${message}`, { operation }, options);
  }
}

/** A caller asked for a namespace it may not read or write. Nothing was read or written. */
export class AccessDeniedError extends RecallGraphError {
  constructor(identity: string, namespace: string, mode: "read" | "write") {
    super("access_denied", `"${identity}" may not ${mode} namespace "${namespace}"`, { identity, namespace, mode });
  }
}

/**
 * A store opened read-only (or one this process cannot write) was asked to do something that writes:
 * a write operation, or creating or migrating the store while opening it. Nothing was written.
 * `operation` names what was refused (`upsert`, `delete`, `open`, `migrate`, ...).
 */
export class ReadOnlyStoreError extends RecallGraphError {
  readonly operation: string;

  constructor(operation: string, message = "the store is open read-only, nothing was written") {
    super("read_only", `${operation}: ${message}`, { operation });
    this.operation = operation;
  }
}

/** Whether `value` is an error recallgraph threw on purpose, from this copy of the package or any other. */
export function isRecallGraphError(value: unknown): value is RecallGraphError {
  return value instanceof Error && (value as Error & { [RECALLGRAPH_ERROR]?: unknown })[RECALLGRAPH_ERROR] === true;
}

/** The message of any thrown value (an Error's own message, without its name; anything else as a string). */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Turns a zod failure into a ValidationError naming the first offending field under `prefix`. */
export function toValidationError(error: z.ZodError, prefix = ""): ValidationError {
  const issue = error.issues[0];
  const path = [prefix, ...(issue?.path ?? []).map(String)].filter((part) => part !== "").join(".");
  return new ValidationError(path, issue?.message ?? "invalid value", { issues: error.issues.length });
}

/** Parses `value` with `schema`, throwing a ValidationError (never a raw ZodError) on failure. */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, field = ""): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw toValidationError(result.error, field);
  return result.data;
}

/** What a value is, for messages: "a number", "an array", "null". */
export function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  const type = typeof value;
  return type === "object" ? "an object" : `a ${type}`;
}

/**
 * A schema's message for a value that is missing or of the wrong type: "<what> is required<detail>"
 * when absent, "<what> must be <expected>, got <kind>" otherwise. Every other issue keeps the message of
 * its own check, which a plain `{ error: "..." }` on the schema would replace.
 */
export function requiredMessage(what: string, expected: string, detail = ""): z.core.$ZodErrorMap {
  return (issue) => {
    if (issue.code !== "invalid_type") return undefined;
    return issue.input === undefined ? `${what} is required${detail}` : `${what} must be ${expected}, got ${kindOf(issue.input)}`;
  };
}

/** A server (a model or embedder endpoint, Qdrant) answered with more than recallgraph reads of one response. Nothing was kept of it. */
export class ResponseTooLargeError extends RecallGraphError {
  constructor(url: string, limitBytes: number) {
    super("response_too_large", `the response of ${url} is larger than ${limitBytes} bytes, the most one response may carry: it was cut off`, { url, limitBytes });
  }
}

/**
 * The caller's abort signal fired before the call finished: nothing more is done for it. `cause` is
 * the signal's reason (an AbortError DOMException unless the caller gave one).
 */
export class AbortedError extends RecallGraphError {
  constructor(operation: string, reason: unknown) {
    super("aborted", `${operation}: cancelled by the caller's signal${reason instanceof Error && reason.message ? ` (${reason.message})` : ""}`, { operation }, { cause: reason });
  }
}

/** A server took longer than the time allowed for one whole request (connecting, its answer's headers and body). */
export class RequestTimeoutError extends RecallGraphError {
  constructor(url: string, timeoutMs: number) {
    super("request_timeout", `the request to ${url} timed out: no complete answer within ${timeoutMs} ms`, { url, timeoutMs });
  }
}
