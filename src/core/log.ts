/**
 * Structured, quiet-by-default logging: one JSON object per line on stderr.
 * The level comes from RECALLGRAPH_LOG_LEVEL (silent | error | warn | info | debug); default "warn".
 */
import { readProcessVariable } from "./env.js";

const LEVELS = { silent: 0, error: 1, warn: 2, info: 3, debug: 4 } as const;
export type LogLevel = keyof typeof LEVELS;

/** The level when RECALLGRAPH_LOG_LEVEL does not name one: warn, or what the host program chose (setDefaultLogLevel). */
let defaultLevel: LogLevel = "warn";

/** The level used when RECALLGRAPH_LOG_LEVEL is unset; the variable still wins, so a user can always ask for more. */
export function setDefaultLogLevel(level: LogLevel): void {
  defaultLevel = level;
}

// Read at every line, so a change of the variable takes effect at once; a value that names no level is ignored, never thrown: logging must not fail a call.
function threshold(): number {
  const configured = readProcessVariable("RECALLGRAPH_LOG_LEVEL")?.toLowerCase();
  return configured !== undefined && Object.hasOwn(LEVELS, configured) ? LEVELS[configured as LogLevel] : LEVELS[defaultLevel];
}

function emit(level: Exclude<LogLevel, "silent">, event: string, fields: Record<string, unknown>): void {
  if (LEVELS[level] > threshold()) return;
  process.stderr.write(`${JSON.stringify({ level, event, time: new Date().toISOString(), ...fields })}\n`);
}

export const log = {
  error: (event: string, fields: Record<string, unknown> = {}) => emit("error", event, fields),
  warn: (event: string, fields: Record<string, unknown> = {}) => emit("warn", event, fields),
  info: (event: string, fields: Record<string, unknown> = {}) => emit("info", event, fields),
  debug: (event: string, fields: Record<string, unknown> = {}) => emit("debug", event, fields),
};

/** A short description of any thrown value, for logs and degraded-mode records. */
export function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
