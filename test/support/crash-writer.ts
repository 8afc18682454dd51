/**
 * A writer to be killed: opens the sqlite store at argv[2] and, forever, writes batches of BATCH
 * memories through the public write path (writeMemories: one upsert, one transaction), each batch
 * replacing the one before it by id with new text, printing "committed N" after each commit (N counting
 * from the number argv[3] gives). The
 * crash-safety test kills it with SIGKILL at random moments and checks what the file holds.
 */
import { createEmbedder } from "../../src/text/embedders/create-embedder.js";
import { writeMemories } from "../../src/ingest/write-memories.js";
import { openSqliteStore } from "../../src/stores/sqlite/store.js";

export const BATCH = 400;
export const CRASH_NAMESPACE = "crash";
/** Ids of batch `n`: every batch writes the same ids (the replacing half) and its own (the adding half). */
export const batchIds = (n: number): string[] =>
  Array.from({ length: BATCH }, (_, i) => (i < BATCH / 2 ? `shared-${i}` : `batch-${n}-${i}`));
/** The text every entry of batch `n` carries, so a reader can tell which batch wrote a shared id. */
export const batchText = (n: number, i: number): string => `batch ${n} item ${i} wrote this: quorum${n} lantern`;

async function main(path: string, first: number): Promise<void> {
  const embedder = createEmbedder({ provider: "hash", dimension: 64 });
  const store = await openSqliteStore({ path, embedding: embedder.spec });
  for (let n = first; ; n += 1) {
    const inputs = batchIds(n).map((id, i) => ({ id, text: batchText(n, i), persons: [`Person${n}`] }));
    await writeMemories(store, embedder, CRASH_NAMESPACE, inputs);
    process.stdout.write(`committed ${n}\n`);
  }
}

// argv: the store file, and the number of the first batch (each run numbers its own, after the last run's).
const path = process.argv[2];
if (path) await main(path, Number(process.argv[3] ?? 0));
