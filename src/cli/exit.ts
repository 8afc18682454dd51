import { CommanderError } from "commander";
import { RecallGraphError, type ErrorCode } from "../core/errors.js";

/** The command's exit status: 0 done, 1 the user asked for something wrong, 2 recallgraph failed. */
export const EXIT_OK = 0;
export const EXIT_USER_ERROR = 1;
export const EXIT_INTERNAL_ERROR = 2;
export type ExitCode = typeof EXIT_OK | typeof EXIT_USER_ERROR | typeof EXIT_INTERNAL_ERROR;

/**
 * Error codes that mean the input or the setup named by the user is wrong, not that recallgraph broke.
 * `read_only`: a write asked of a store opened read-only (or that this process cannot write).
 */
const USER_ERROR_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>(["invalid_input", "embedder_mismatch", "read_only"]);

export function exitCodeOf(error: unknown): ExitCode {
  if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT_OK : EXIT_USER_ERROR;
  if (error instanceof RecallGraphError && USER_ERROR_CODES.has(error.code)) return EXIT_USER_ERROR;
  return EXIT_INTERNAL_ERROR;
}

/**
 * Prints one line on stderr for a failed command (the stack and causes too with `verbose`).
 * Commander has already printed its own usage errors, so those print nothing here.
 */
export function reportError(error: unknown, options: { verbose: boolean }, write: (text: string) => void): void {
  if (error instanceof CommanderError) return;
  const code = exitCodeOf(error);
  const message = oneLine(error instanceof Error ? error.message : String(error));
  if (code === EXIT_USER_ERROR) {
    write(`error: ${message}\n`);
  } else {
    const kind = error instanceof RecallGraphError ? error.code : error instanceof Error ? error.name : "error";
    write(`error: ${message} (${kind}${options.verbose ? "" : "; run with --verbose for the stack trace"})\n`);
  }
  if (options.verbose) {
    for (let current: unknown = error, depth = 0; current !== undefined && depth < 5; depth += 1) {
      write(`${current instanceof Error ? (current.stack ?? current.message) : String(current)}\n`);
      current = current instanceof Error ? current.cause : undefined;
      if (current !== undefined) write("caused by: ");
    }
  }
}

/** Messages that span lines (zod, sqlite) are folded so the error stays one line. */
function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ").trim();
}
