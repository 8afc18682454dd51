/**
 * A byte stream read whole, up to a limit: what a request body or standard input may hold before it is
 * parsed. Past the limit the stream is destroyed and nothing read is kept, so a sender without end
 * costs at most `limitBytes` of memory.
 */
import type { Readable } from "node:stream";

/** The stream's bytes, or undefined once more than `limitBytes` have arrived (the stream is then destroyed). */
export async function readAtMost(stream: Readable, limitBytes: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer | string>) {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
    size += bytes.length;
    if (size > limitBytes) {
      stream.destroy();
      return undefined;
    }
    chunks.push(bytes);
  }
  return Buffer.concat(chunks);
}
