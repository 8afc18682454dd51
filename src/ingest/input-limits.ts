import { ValidationError } from "../core/errors.js";
import { MAX_IDS_PER_CALL } from "../stores/validation.js";

/**
 * The most one ingest reads. An ingest is checked and embedded whole before it writes anything (all or
 * nothing), so it holds its input in memory: past this, it is refused before a byte is read (a file) or
 * as soon as this much has arrived (standard input). A module of its own, so the command line can check
 * standard input without loading the ingest.
 */
export const MAX_INGEST_BYTES = 256 * 1024 * 1024;

/** The refusal of an input over MAX_INGEST_BYTES, with how to split it. */
export function inputTooLarge(name: string, bytes: number | undefined): ValidationError {
  const size = bytes === undefined ? `over ${MAX_INGEST_BYTES / (1024 * 1024)} MiB` : `${Math.ceil(bytes / (1024 * 1024))} MiB`;
  return new ValidationError(
    "input",
    `${name} is ${size}; one ingest reads at most ${MAX_INGEST_BYTES / (1024 * 1024)} MiB, all or nothing: split it (JSON Lines: split -l ${MAX_IDS_PER_CALL} FILE part-)`,
  );
}
