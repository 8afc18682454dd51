import type { Embeddings } from "@langchain/core/embeddings";
import { InMemoryStore, type PutOperation } from "@langchain/langgraph";
import MiniSearch from "minisearch";
import { z } from "zod";
import type { RetrievalResult } from "../domain/results.js";
import { RetrievalConfigSchema, type RetrievalConfigInput } from "../graph/configuration.js";
import type { PresetName } from "../graph/preset-names.js";
import type { RetrievalGraph } from "../graph/graph.js";
import { retrieve } from "../library/retrieve.js";

/** One question as every retriever is asked it. */
export interface EvalAsk {
  namespace: string;
  question: string;
  /** The reference time (ISO 8601) for relative expressions: a conversation's last session, or the run's clock. */
  now: string;
}

/** A retriever's ranked answer as judged ids per returned entry, and the LLM calls it made. */
export interface RetrieverAnswer {
  ranked: string[][];
  llmCalls: number;
  /** The highest dense similarity (cosine with the question's vector) among the returned entries, where the retriever reports one. */
  bestSimilarity?: number;
}

/** Anything the evaluation can ask: recallgraph in one of its modes, or a peer. */
export interface EvalRetriever {
  /** Row label, e.g. "recallgraph full" or "BM25 (minisearch)". */
  name: string;
  /** One line on what it is, printed under the table. */
  description: string;
  ask(ask: EvalAsk, k: number): Promise<RetrieverAnswer>;
  /** A peer keeping its own index adds what a round wrote (recallgraph's modes search the store it was written to). */
  add?(corpus: EvalCorpus): Promise<void>;
  /** Frees what the retriever keeps outside the run's store (a peer's own files), once the run ends. */
  close?(): Promise<void>;
}

/** An entry as the peers index it: the same text recallgraph stored, and the judged ids it stands for. */
export interface CorpusEntry {
  id: string;
  text: string;
  /** What a judgement names when this entry is returned: its source turns (LoCoMo), its document (BEIR). */
  judgedIds: string[];
}

/** Entries by namespace, as a benchmark's rounds write them. */
export type EvalCorpus = ReadonlyMap<string, readonly CorpusEntry[]>;

/** Maps a returned recallgraph result to the judged ids it stands for (the same as its CorpusEntry's). */
export type JudgedIdsOf = (result: RetrievalResult) => string[];

const DEFAULTS = RetrievalConfigSchema.parse({});

/**
 * The view depths a run asking for `k` results needs: each ranked view returns at least k hits, so
 * recall@100 is not capped by a view's default 25. Only the evaluation asks for this; the defaults a
 * user gets are untouched. At the defaults' own depth (k <= 25) nothing changes.
 */
export function viewDepthFor(k: number): Pick<RetrievalConfigInput, "semanticTopK" | "lexicalTopK"> {
  return { semanticTopK: Math.max(DEFAULTS.semanticTopK, k), lexicalTopK: Math.max(DEFAULTS.lexicalTopK, k) };
}

/** recallgraph with one of its presets (full, dense, lexical, ...), rules only unless the graph has a model. */
export function recallgraphRetriever(
  graph: RetrievalGraph,
  mode: PresetName,
  judgedIdsOf: JudgedIdsOf,
  overrides: RetrievalConfigInput = {},
): EvalRetriever {
  return {
    name: `recallgraph ${mode}`,
    description: `recallgraph, preset "${mode}"`,
    async ask({ namespace, question, now }, k) {
      const output = await retrieve(graph, { question, namespace, now }, { configurable: { ...viewDepthFor(k), ...overrides, preset: mode, finalK: k } });
      const similarities = output.results.flatMap((result) => result.provenance.ranks.filter((rank) => rank.view === "semantic").map((rank) => rank.score));
      return { ranked: output.results.map(judgedIdsOf), llmCalls: output.account.llmCalls, ...bestOf(similarities) };
    },
  };
}

const StoredValueSchema = z.object({ judgedIds: z.array(z.string()).describe("the judged ids the entry stands for") });

/**
 * LangGraph's own InMemoryStore with semantic search, the store a LangGraph user reaches for first.
 * Its `embeddings` should serve the vectors recallgraph already computed (see CachedEmbeddings), so
 * both search the same vectors and nothing is embedded twice.
 */
export function inMemoryStorePeer(embeddings: Embeddings, dims: number): EvalRetriever {
  const store = new InMemoryStore({ index: { embeddings, dims, fields: ["text"] } });
  return {
    name: "LangGraph InMemoryStore",
    description: "LangGraph InMemoryStore.search, semantic (cosine over the same vectors recallgraph stored)",
    async ask({ namespace, question }, k) {
      const items = await store.search([storeLabel(namespace)], { query: question, limit: k });
      return { ranked: items.map((item) => StoredValueSchema.parse(item.value).judgedIds), llmCalls: 0, ...bestOf(items.flatMap((item) => item.score ?? [])) };
    },
    async add(corpus) {
      for (const [namespace, entries] of corpus) {
        const operations: PutOperation[] = entries.map((entry) => ({
          namespace: [storeLabel(namespace)],
          key: entry.id,
          value: { text: entry.text, judgedIds: entry.judgedIds },
        }));
        await store.batch(operations);
      }
    },
  };
}

/** `bestSimilarity` for an answer with these similarities; nothing for one without. */
function bestOf(similarities: readonly number[]): Pick<RetrieverAnswer, "bestSimilarity"> {
  return similarities.length > 0 ? { bestSimilarity: Math.max(...similarities) } : {};
}

/** InMemoryStore namespace labels may not contain "." or ":". */
function storeLabel(namespace: string): string {
  return namespace.replace(/[.:]/g, "_");
}

/**
 * A plain BM25 baseline from MiniSearch (a well-kept search library) with its default tokenizer and
 * scoring, over each entry's text: what a user gets by putting the memories in a search library.
 */
export function bm25Peer(): EvalRetriever {
  const indexes = new Map<string, MiniSearch<CorpusEntry>>();
  return {
    name: "BM25 (minisearch)",
    description: "MiniSearch 7 BM25 over the entry texts, library defaults (OR of the question's words)",
    async ask({ namespace, question }, k) {
      const index = indexes.get(namespace);
      if (!index) return { ranked: [], llmCalls: 0 };
      const hits = index.search(question).slice(0, k);
      return { ranked: hits.map((hit) => StoredValueSchema.parse(hit).judgedIds), llmCalls: 0 };
    },
    async add(corpus) {
      for (const [namespace, entries] of corpus) {
        const index = indexes.get(namespace) ?? new MiniSearch<CorpusEntry>({ fields: ["text"], storeFields: ["judgedIds"] });
        index.addAll(entries);
        indexes.set(namespace, index);
      }
    },
  };
}
