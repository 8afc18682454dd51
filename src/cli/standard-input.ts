/** How an argument names standard input, as Unix tools do: `recallgraph ingest -`, `recallgraph query -`. */
export const STANDARD_INPUT = "-";

/** All of standard input as UTF-8 text (read to its end). */
export async function readStandardInput(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString("utf8");
}
