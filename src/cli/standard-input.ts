import { ValidationError } from "../core/errors.js";
import { readAtMost } from "../core/bounded-read.js";

/** How an argument names standard input, as Unix tools do: `recallgraph ingest -`, `recallgraph query -`. */
export const STANDARD_INPUT = "-";

/** All of standard input as UTF-8 text (read to its end); past `limitBytes`, `refusal()` is thrown and the rest is not read. */
export async function readStandardInput(limitBytes = Number.POSITIVE_INFINITY, refusal: () => Error = () => new ValidationError("standard input", "is too large")): Promise<string> {
  const bytes = await readAtMost(process.stdin, limitBytes);
  if (bytes === undefined) throw refusal();
  return bytes.toString("utf8");
}
