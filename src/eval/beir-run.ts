import { basename, resolve } from "node:path";
import { z } from "zod";
import { parseOrThrow, ValidationError } from "../core/errors.js";
import { RetrievalConfigSchema } from "../graph/configuration.js";
import { PRESET_NAMES, type PresetName } from "../graph/preset-names.js";
import { writeMemories } from "../ingest/write-memories.js";
import type { MemoryInput } from "../memory/entry.js";
import type { MemoryStore } from "../stores/port.js";
import { EmbedderConfigSchema } from "../text/embedders/create-embedder.js";
import { BEIR_FILES, readBeirFolder, type BeirData, type BeirDocument } from "./beir-data.js";
import { readSquadFile } from "./squad-data.js";
import {
  outcomeFields,
  runBenchmark,
  type EvalCase,
  type EvalContext,
  type EvalEmbedder,
  type EvalProgress,
  type EvalTimings,
  type RankingOf,
  type RetrieverRun,
} from "./harness.js";
import { DEFAULT_EVAL_STORE, EvalStoreSchema, type EvalStoreKind } from "./eval-store.js";
import type { CorpusEntry } from "./peers.js";
import { firstMentions } from "./metrics.js";

/** BEIR's reported cut-offs: nDCG@10 (the headline), recall@10 and @100, MRR@10. */
export const BEIR_KS = [10, 100] as const;
/** Every preset, the knowledge-base one included: documents are what it was made for. */
export const BEIR_MODES = PRESET_NAMES;

/** The one namespace the corpus is written to. */
const NAMESPACE = "beir";

export const BeirEvalOptionsSchema = z.strictObject({
  folder: z.string().min(1, "folder is required").describe("a BEIR-format folder: corpus.jsonl, queries.jsonl, qrels/SPLIT.tsv"),
  split: z.string().min(1).default("test").describe("which qrels/SPLIT.tsv judges the queries"),
  mode: z.enum(BEIR_MODES).default("full").describe("the preset scored (the headline)"),
  peers: z.boolean().default(false).describe("also run every other preset, the default with each of its rules off, LangGraph's InMemoryStore and a BM25 library on the same entries and vectors"),
  limit: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe("ask at most this many queries, in queries.jsonl order; the whole corpus is still written (a smaller corpus is an easier task)"),
  embedder: EmbedderConfigSchema.default({ provider: "use-lite" }).describe("the embedder when none is handed over in the context; default USE-lite (offline)"),
  store: EvalStoreSchema.default(DEFAULT_EVAL_STORE),
  embeddingCache: z.string().min(1).optional().describe("a file keeping the vectors between runs (read first, written after)"),
});
export type BeirEvalOptions = z.input<typeof BeirEvalOptionsSchema>;

export const SquadEvalOptionsSchema = BeirEvalOptionsSchema.omit({ folder: true, split: true }).extend({
  file: z.string().min(1, "file is required").describe("a JSON file in SQuAD's layout: data[].paragraphs[].qas[]"),
  limit: z.number().int().min(1).optional().describe("ask at most this many questions, in file order; every paragraph is still written"),
});
export type SquadEvalOptions = z.input<typeof SquadEvalOptionsSchema>;

export interface BeirRun {
  /** Where the documents were read: a BEIR folder, or a file in SQuAD's layout (paragraphs as documents). */
  format: "beir" | "squad";
  /** The folder's name, e.g. "scifact"; the file's, e.g. "cmrc2018_trial.json". */
  dataset: string;
  /** BEIR only: the qrels split judged (a SQuAD file is its own split). */
  split?: string;
  mode: PresetName;
  ks: number[];
  embedder: string;
  /** The kind of fresh store the recallgraph modes searched. */
  store: EvalStoreKind;
  /** Queries scored. */
  queries: number;
  corpus: {
    documents: number;
    /** Memories written: one per document, more for a document split because it is longer than a memory may be. */
    entries: number;
    splitDocuments: number;
    emptyDocuments: number;
  };
  judgements: {
    /** Queries judged in the split without any relevant document: unscorable, left out. */
    queriesWithoutRelevant: number;
    /** Relevant judgements naming a document the corpus lacks: counted, never findable. */
    relevantMissing: number;
    /** Questions without text: nothing to ask, left out. */
    emptyQueries: number;
  };
  /** The requested mode first, then (with peers) the other presets and the peers. */
  retrievers: RetrieverRun[];
  timings: EvalTimings;
}

/** The corpus as written: one memory per document (or per part), and which document each stands for. */
interface CorpusMemories {
  inputs: MemoryInput[];
  /** Where each input's document was read, for errors. */
  wheres: string[];
  documentOf: Map<string, string>;
  splitDocuments: number;
}

/**
 * Evaluates retrieval on a BEIR-format folder as BEIR scores it: every document is one memory (title
 * and text) written through the product's JSON Lines ingest path (keywords and names filled in by its
 * rules) into one namespace of a fresh store (`store`); every query with a relevant judgement in the
 * split is asked through the product's retrieve path, 100 results deep; nDCG@10, recall@10 and @100
 * and MRR@10 follow BEIR's definitions (see metrics.ts). Each distinct text is embedded once and shared
 * by every retriever; reported latencies exclude time inside the embedding model.
 */
export async function runBeirEval(options: BeirEvalOptions, context: EvalContext = {}): Promise<BeirRun> {
  const started = performance.now();
  const settings = parseOrThrow(BeirEvalOptionsSchema, options, "options");
  if (context.retrieval) parseOrThrow(RetrievalConfigSchema, context.retrieval, "retrieval");
  const data = await readBeirFolder(settings.folder, settings.split);
  const source: DocumentSource = { format: "beir", dataset: basename(resolve(settings.folder)), split: settings.split };
  const noQuery = () => new ValidationError("split", `no query of ${BEIR_FILES.qrels}/${settings.split}.tsv has a relevant document`);
  return runDocumentEval(data, source, settings, context, { started, noQuery });
}

/**
 * Evaluates retrieval on a reading-comprehension file in SQuAD's layout (CMRC 2018, SQuAD, ...) as on
 * a BEIR folder: its paragraphs are the documents, its questions the queries, and each question's own
 * paragraph its one relevant document (squad-data.ts); everything after reading is the BEIR path's.
 */
export async function runSquadEval(options: SquadEvalOptions, context: EvalContext = {}): Promise<BeirRun> {
  const started = performance.now();
  const settings = parseOrThrow(SquadEvalOptionsSchema, options, "options");
  if (context.retrieval) parseOrThrow(RetrievalConfigSchema, context.retrieval, "retrieval");
  const data = await readSquadFile(settings.file);
  const noQuery = () => new ValidationError("file", "no question to ask");
  return runDocumentEval(data, { format: "squad", dataset: basename(settings.file) }, settings, context, { started, noQuery });
}

/** What a document benchmark's report names: the layout it was read from, the dataset, and (BEIR) the split judged. */
interface DocumentSource {
  format: BeirRun["format"];
  dataset: string;
  split?: string;
}

type DocumentRunSettings = Pick<z.output<typeof BeirEvalOptionsSchema>, "mode" | "peers" | "limit" | "embedder" | "store" | "embeddingCache">;

/**
 * Documents, queries and judgements in BEIR's shape, however they were read, through the shared run:
 * the corpus written, the queries asked, BEIR's measures. `started` is when reading began (it counts in the total).
 */
async function runDocumentEval(
  data: BeirData,
  source: DocumentSource,
  settings: DocumentRunSettings,
  context: EvalContext,
  run: { started: number; noQuery: () => Error },
): Promise<BeirRun> {
  // Whole seconds: the stored timestamps and the queries' reference time print alike.
  const now = Math.floor(Date.now() / 1000) * 1000;
  const cases = queryCases(data, settings.limit, new Date(now));
  if (cases.length === 0) throw run.noQuery();
  const memories = corpusMemories(data.documents);
  const outcome = await runBenchmark(
    {
      embedCorpus: (embeddings, progress) =>
        embeddings.warm(
          memories.inputs.map((input) => input.text),
          (done, total) => progress({ phase: "embed entries", done, total }),
        ),
      rounds: [{ write: (store, embedder, _prepared, progress) => ingestCorpus(embedder, store, memories, now, progress), cases }],
      ks: BEIR_KS,
      peerModes: BEIR_MODES,
      judgedIdsOf: (result) => [memories.documentOf.get(result.id) ?? result.id],
      rankingOf: beirRanking,
    },
    settings,
    context,
    run.started,
  );
  return {
    ...source,
    mode: settings.mode,
    ks: [...BEIR_KS],
    ...outcomeFields(outcome),
    queries: cases.length,
    corpus: { documents: data.documents.length, entries: memories.inputs.length, splitDocuments: memories.splitDocuments, emptyDocuments: data.emptyDocuments },
    judgements: { queriesWithoutRelevant: data.queriesWithoutRelevant, relevantMissing: data.relevantMissing, emptyQueries: data.emptyQueries },
  };
}

/**
 * The scored queries, up to `limit`, each with its split's judgements. A document has no date, so
 * every query is asked at one reference time, the instant the documents are stamped with: a relative
 * expression in a query ("recent") then means the same thing on every run.
 */
function queryCases(data: BeirData, limit: number | undefined, now: Date): EvalCase[] {
  return data.queries.slice(0, limit ?? data.queries.length).map((query) => ({
    id: query.id,
    namespace: NAMESPACE,
    question: query.text,
    now: now.toISOString(),
    judgements: data.qrels.get(query.id) ?? new Map<string, number>(),
  }));
}

/** One memory per document (id = the document's id); a split document's parts are `ID#1`, `ID#2`, ... */
function corpusMemories(documents: readonly BeirDocument[]): CorpusMemories {
  const ids = new Set(documents.map((document) => document.id));
  const memories: CorpusMemories = { inputs: [], wheres: [], documentOf: new Map(), splitDocuments: 0 };
  for (const document of documents) {
    if (document.texts.length > 1) memories.splitDocuments += 1;
    document.texts.forEach((text, part) => {
      const id = document.texts.length === 1 ? document.id : `${document.id}#${part + 1}`;
      if (document.texts.length > 1 && ids.has(id)) {
        throw new ValidationError(document.where, `the document is split into parts, and part id "${id}" is another document's id`);
      }
      // Text only, as a line of `recallgraph ingest corpus.jsonl`: the write fills keywords, persons and entities.
      memories.inputs.push({ id, text });
      memories.wheres.push(document.where);
      memories.documentOf.set(id, document.id);
    });
  }
  return memories;
}

/** Writes the corpus in one all-or-nothing call, vectors already cached; returns it as the peers index it. */
async function ingestCorpus(
  embedder: EvalEmbedder,
  store: MemoryStore,
  memories: CorpusMemories,
  now: number,
  progress: (progress: EvalProgress) => void,
): Promise<Map<string, CorpusEntry[]>> {
  const written = await writeMemories(store, embedder, NAMESPACE, memories.inputs, {
    now,
    itemField: (index, field) => [memories.wheres[index] ?? `document ${index + 1}`, field].filter(Boolean).join(": "),
    onProgress: (done, total) => progress({ phase: "ingest", done, total }),
  });
  const entries = written.map((entry) => ({ id: entry.id, text: entry.text, judgedIds: [memories.documentOf.get(entry.id) ?? entry.id] }));
  return new Map([[NAMESPACE, entries]]);
}

/**
 * The document ranking BEIR scores: a document once, where its best part ranks (BEIR's results hold
 * each document once), and never the query itself: BEIR drops a result whose id is the query's
 * (`ignore_identical_ids`, on by default), which matters where queries are corpus documents (ArguAna, Quora).
 */
export const beirRanking: RankingOf = (ranked, question) => firstMentions(ranked, [question.id]);
