/**
 * Structured, quiet-by-default logging: one JSON object per line on stderr.
 * The level comes from RECALLGRAPH_LOG_LEVEL (silent | error | warn | info | debug); default "warn".
 */
const LEVELS = { silent: 0, error: 1, warn: 2, info: 3, debug: 4 } as const;
export type LogLevel = keyof typeof LEVELS;

function threshold(): number {
  const configured = process.env.RECALLGRAPH_LOG_LEVEL as LogLevel | undefined;
  return configured && configured in LEVELS ? LEVELS[configured] : LEVELS.warn;
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
