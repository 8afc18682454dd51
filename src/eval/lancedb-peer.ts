import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Embeddings } from "@langchain/core/embeddings";
import type { Connection, Table } from "@lancedb/lancedb";
import { z } from "zod";
import type { CorpusEntry, EvalRetriever } from "./peers.js";

/**
 * LanceDB's hybrid search as a peer: each namespace a table of the same texts and vectors recallgraph
 * stored, with LanceDB's full-text index (English stemming and stop words) and exact cosine search,
 * fused by its own RRF reranker (k = 60). What a user gets by putting the memories in an embedded
 * vector database that does hybrid search itself.
 *
 * @lancedb/lancedb is a development dependency with a native binary: an installed package, or a
 * platform without that binary, runs its evaluations without this peer and says why.
 */

type LancedbModule = typeof import("@lancedb/lancedb");

const RRF_K = 60;

/** The package, or why it cannot be loaded here. */
export async function loadLancedb(): Promise<{ lancedb: LancedbModule } | { missing: string }> {
  try {
    return { lancedb: await import("@lancedb/lancedb") };
  } catch (error) {
    return { missing: `@lancedb/lancedb cannot be loaded here (${error instanceof Error ? error.message.split("\n")[0] : String(error)})` };
  }
}

const RowSchema = z.object({ judgedIds: z.string().describe("the entry's judged ids, JSON-encoded (a list column would need a schema of its own)") });

/** A LanceDB table per namespace in a temporary folder, removed by `close`. */
export function lancedbPeer(lancedb: LancedbModule, embeddings: Embeddings): EvalRetriever {
  const folder = mkdtempSync(join(tmpdir(), "recallgraph-eval-lancedb-"));
  const tables = new Map<string, Table>();
  let connection: Promise<Connection> | undefined;
  const connect = () => (connection ??= lancedb.connect(folder));

  async function write(namespace: string, entries: readonly CorpusEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const vectors = await embeddings.embedDocuments(entries.map((entry) => entry.text));
    const rows = entries.map((entry, i) => ({ id: entry.id, text: entry.text, judgedIds: JSON.stringify(entry.judgedIds), vector: vectors[i] ?? [] }));
    const existing = tables.get(namespace);
    if (existing) {
      await existing.add(rows);
      // Brings the new rows into the full-text index (unindexed rows would be searched flat, slower but the same).
      await existing.optimize();
      return;
    }
    const table = await (await connect()).createTable(`ns${tables.size}`, rows);
    await table.createIndex("text", { config: lancedb.Index.fts({ stem: true, removeStopWords: true, language: "English" }) });
    tables.set(namespace, table);
  }

  return {
    name: "LanceDB hybrid",
    description: `LanceDB hybrid query: full-text (English stemming) + exact cosine over the same vectors, its RRF reranker (k ${RRF_K})`,
    async ask({ namespace, question }, k) {
      const table = tables.get(namespace);
      if (!table) return { ranked: [], llmCalls: 0 };
      const vector = await embeddings.embedQuery(question);
      const reranker = await lancedb.rerankers.RRFReranker.create(RRF_K);
      // No column selection: LanceDB 0.30 warns on every query that selects columns without its scores.
      const rows: unknown[] = await table
        .query()
        .fullTextSearch(question)
        .nearestTo(vector)
        .distanceType("cosine")
        .rerank(reranker)
        .limit(k)
        .toArray();
      return { ranked: rows.map((row) => z.array(z.string()).parse(JSON.parse(RowSchema.parse(row).judgedIds))), llmCalls: 0 };
    },
    async add(corpus) {
      for (const [namespace, entries] of corpus) await write(namespace, entries);
    },
    async close() {
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
