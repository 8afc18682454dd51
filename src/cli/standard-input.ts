/** How an argument names standard input, as Unix tools do: `recallgraph ingest -`, `recallgraph query -`. */
export const STANDARD_INPUT = "-";

/** All of standard input as UTF-8 text (read to its end); past `limitBytes`, `refusal()` is thrown and the rest is not read. */
export async function readStandardInput(limitBytes = Number.POSITIVE_INFINITY, refusal: () => Error = () => new Error("standard input is too large")): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += bytes.length;
    if (size > limitBytes) {
      process.stdin.destroy();
      throw refusal();
    }
    chunks.push(bytes);
  }
  return Buffer.concat(chunks).toString("utf8");
}
