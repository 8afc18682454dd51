import { open, readFile, stat, writeFile } from "node:fs/promises";
import { Option, type Command } from "commander";
import { z } from "zod";
import { ValidationError } from "../../core/errors.js";
import type { EvalStoreChoice } from "../../eval/eval-store.js";
import type { EvalContext, EvalProgress, RetrieverRun } from "../../eval/harness.js";
import type { PresetName } from "../../graph/preset-names.js";
import type { EmbedderConfig } from "../../text/embedders/create-embedder.js";
import { readGlobalOptions, environmentWith } from "../global-options.js";
import { commaList, parseOptionValues, positiveIntegerText } from "../option-values.js";
import { printJson, printLines } from "../terminal-output.js";

// Listed here so `--help` does not load the evaluation code; the check below keeps it complete.
const MODES = ["full", "dense", "lexical", "symbolic", "union", "no-plan", "no-reflect", "knowledge-base"] as const satisfies readonly PresetName[];
type NothingMissing<Missing extends never> = Missing;
export type EveryModeListed = NothingMissing<Exclude<PresetName, (typeof MODES)[number]>>;

const FORMATS = ["locomo", "beir", "squad", "beam", "realmem"] as const;
type EvalFormat = (typeof FORMATS)[number];

const EvalCommandOptionsSchema = z.object({
  format: z
    .enum(FORMATS)
    .optional()
    .describe("locomo (a .json list), squad (a .json object in SQuAD's layout), realmem (a persona file or a folder of them), beam (a folder of chat.json conversations) or beir (a folder); detected from the path when absent"),
  split: z.string().trim().min(1, "must not be empty").optional().describe("BEIR only: which qrels/SPLIT.tsv (default test)"),
  mode: z.enum(MODES).default("full"),
  peers: z.boolean().default(false),
  supersessionBaseline: z.boolean().default(false).describe("LoCoMo, BEAM and RealMem only"),
  turnsPerSave: positiveIntegerText(1_000_000).optional().describe("LoCoMo, BEAM and RealMem only"),
  limit: positiveIntegerText(1_000_000).optional(),
  conversations: commaList.optional().describe("LoCoMo, BEAM and RealMem (persona names) only"),
  k: commaList
    .pipe(z.array(z.string().regex(/^\d+$/, "must be comma-separated positive integers, e.g. 5,10,25").transform(Number).pipe(z.number().int().min(1).max(1000))))
    .optional()
    .describe("LoCoMo, BEAM and RealMem only: BEIR's cut-offs are its own (10 and 100)"),
  embeddingCache: z.string().trim().min(1, "must not be empty").optional(),
  questionScores: z.string().trim().min(1, "must not be empty").optional().describe("where to write each scored question's measures of --mode (JSON Lines)"),
  llm: z.boolean().default(true),
});
type EvalCommandOptions = z.output<typeof EvalCommandOptionsSchema>;

export function register(program: Command): void {
  program
    .command("eval")
    .description("measure retrieval on a LoCoMo-format, SQuAD-layout or RealMem file, or a BEIR-format, BEAM or RealMem folder (fresh temporary store; your --db or QDRANT_COLLECTION is not touched)")
    .argument(
      "<path>",
      "a file in LoCoMo's format (e.g. locomo10.json), SQuAD's (e.g. cmrc2018_trial.json) or RealMem's (e.g. Kenta_Tanaka_dialogues_256k.json), or a folder in BEIR's (corpus.jsonl, queries.jsonl, qrels/), BEAM's (conversation folders with chat.json) or RealMem's (persona files)",
    )
    .addOption(
      new Option(
        "--format <format>",
        "locomo, squad, realmem, beam or beir (default: for a folder, beam when it holds chat.json conversations, realmem when it holds *_dialogues_*.json files, else beir; for a file, realmem when its JSON is an object with dialogues and _metadata, squad when another object, locomo when a list)",
      ).choices(FORMATS),
    )
    .option("--split <name>", "BEIR: the qrels split to score, qrels/<name>.tsv (default: test)")
    .addOption(new Option("--mode <mode>", "retrieval mode (preset) to score (default: full)").choices(MODES))
    .option("--peers", "also run LangGraph's InMemoryStore, a BM25 library baseline, every mode and (for --mode full) the default with each of its rules off, on the same entries and vectors, each compared with --mode question by question (sign test)")
    .option("--supersession-baseline", "LoCoMo, BEAM and RealMem: also ask --mode of the same store with its supersessions hidden (as if the builder had linked nothing), compared question by question")
    .option("--turns-per-save <n>", "LoCoMo, BEAM and RealMem: write each conversation n turns at a time through the ingest, as an agent saves while it talks (default: whole)")
    .option("--limit <n>", "ask at most n questions, in file order (quick runs; a BEIR corpus is still written whole)")
    .option("--conversations <ids>", "LoCoMo: comma-separated sample ids (BEAM: conversation folder names; RealMem: person names) to evaluate (default: all)")
    .option("--k <list>", "LoCoMo, BEAM and RealMem: cut-offs for recall@k and hit@k (default: 5,10,25)")
    .option("--embedding-cache <file>", "keep the vectors in this file between runs (read first, written after; one file per embedder)")
    .option("--question-scores <file>", "also write each scored question's measures of --mode to this file, a JSON line each, for `recallgraph eval-compare`")
    .option("--no-llm", "plan and reflect by rules even when an LLM is configured in the environment")
    .addHelpText(
      "after",
      `
LoCoMo: each conversation is written by the rule-based memory builder (its default settings) into its
own namespace of a fresh store; every question is asked with the conversation's last session
as "now", and the returned entries are mapped back to turns through their source turn ids. Recall@k is
LoCoMo's: the share of a question's evidence turns found in the top k. The headline is categories 1-4
(1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop); 5 (adversarial) is reported apart. Questions
whose evidence ids are missing or malformed are counted and skipped.

BEIR: each document (title and text) is one memory, written as \`ingest corpus.jsonl\` would; every
query with a relevant judgement in the split is asked 100 results deep; nDCG@10, recall@10 and @100
and MRR@10 are BEIR's (trec_eval's definitions). A document longer than a memory may be (16,384
characters) is split into parts and ranks where its best part does.

SQuAD (CMRC 2018, SQuAD 1.1/2.0, ...): read as a BEIR corpus and scored the same way: every paragraph
(its article's title, then its text) is a document, every question a query, and the paragraph it was
asked about its one relevant document. Answers are not read.

BEAM (a conversation folder, or a folder of them such as beam/100K): each conversation is written by
the rule-based memory builder, one entry per message, into its own namespace. BEAM gives its probing
questions no place in the conversation, so each is asked after all of it. Recall@k is LoCoMo's at
message level (source_chat_ids), overall and per question kind; abstention questions (no evidence)
are asked too and what came back is counted apart, not scored.

RealMem (a persona file, or a folder of them): each question is asked with only the sessions before
its own as memory. One namespace per persona; sessions are written in file order by the rule-based
builder, one entry per message, and before session k is written every question of session k is asked,
at its date. Recall@k is scored at session level (memory_session_uuids) and at turn level (the source
turns of the memories used), overall and per question kind; questions with no evidence session before
them are counted apart.

The offline embedder (use-lite) embeds about 30 short texts per second on 2 cores, fewer for long
ones: all of locomo10.json takes several minutes, 5,000 abstracts about ten. Each text is embedded
once per run and shared by every retriever; --embedding-cache keeps the vectors for the next run.

--store qdrant (or RECALLGRAPH_STORE=qdrant) writes the corpus to a new collection of the Qdrant server
at QDRANT_URL (QDRANT_API_KEY), named recallgraph_eval_<random>, and drops it when the run ends, also
when it fails; QDRANT_COLLECTION is never opened. The default is a sqlite store in memory.

Examples:
  recallgraph eval locomo10.json --conversations conv-26 --limit 50 --embedder hash
  recallgraph eval locomo10.json --peers
  recallgraph eval locomo10.json --mode lexical --k 1,5,10 --json
  recallgraph eval ../shared/data/scifact --split train --peers --embedding-cache scifact.vectors.json
  recallgraph eval ../shared/data/cmrc2018/cmrc2018_trial.json --limit 200 --json
  recallgraph eval ../shared/data/beam/100K --conversations 1,2 --peers
  recallgraph eval ../shared/data/realmem --embedding-cache realmem.vectors.json
  QDRANT_URL=http://localhost:6333 recallgraph eval ../shared/data/scifact --store qdrant --limit 100`,
    )
    .action(async (path: string, rawOptions: unknown, command: Command) => {
      const globals = readGlobalOptions(command);
      const options = parseOptionValues(EvalCommandOptionsSchema, rawOptions);
      const format = await formatOf(path, options);
      const [{ embedderConfigFromEnv }, { loadChatModelFromEnv }, { stageProgressBar }, { storeLocation }, { evalStoreFor }] = await Promise.all([
        import("../../text/embedders/create-embedder.js"),
        import("../../llm/load-chat-model.js"),
        import("../progress.js"),
        import("../store-location.js"),
        import("../../eval/eval-store.js"),
      ]);
      const env = environmentWith(globals);
      const model = options.llm ? await loadChatModelFromEnv(env) : undefined;
      const progress = stageProgressBar(!globals.json && process.stderr.isTTY === true);
      const context: EvalContext = {
        ...(model ? { model } : {}),
        onProgress: (update: EvalProgress) => progress.update(update.label ? `${update.phase}: ${update.label}` : update.phase, update.done, update.total),
      };
      const shared = {
        mode: options.mode,
        peers: options.peers,
        embedder: embedderConfigFromEnv(env),
        // The configured kind and server (QDRANT_URL, QDRANT_API_KEY), in a store of the run's own.
        store: evalStoreFor(storeLocation(globals).config),
        ...(options.limit !== undefined ? { limit: options.limit } : {}),
        ...(options.embeddingCache !== undefined ? { embeddingCache: options.embeddingCache } : {}),
      };
      const output = await EVALUATORS[format](path, options, shared, context).finally(() => progress.stop());
      if (globals.json) printJson(output.json);
      else printLines([output.text]);
      if (options.questionScores !== undefined) await writeQuestionScores(options.questionScores, output.retrievers);
    });
}

/** What a format's run gives the command: its report as JSON and as text, and every retriever's scored questions. */
interface EvalOutput {
  json: unknown;
  text: string;
  retrievers: RetrieverRun[];
}

/** Writes the scored questions of --mode (question-scores.ts): only the measures, so that two runs' files compare question by question. */
async function writeQuestionScores(file: string, retrievers: readonly RetrieverRun[]): Promise<void> {
  const [{ questionScoreLines }, { primaryRun }] = await Promise.all([import("../../eval/question-scores.js"), import("../../eval/report-tables.js")]);
  await writeFile(file, questionScoreLines(primaryRun({ retrievers }).results));
}

/** What every format takes from the command line. */
interface SharedOptions {
  mode: EvalCommandOptions["mode"];
  peers: boolean;
  limit?: number;
  embeddingCache?: string;
  embedder: EmbedderConfig;
  store: EvalStoreChoice;
}

async function evalBeir(folder: string, options: EvalCommandOptions, shared: SharedOptions, context: EvalContext): Promise<EvalOutput> {
  const [{ runBeirEval }, { beirJson, beirText }] = await Promise.all([import("../../eval/beir-run.js"), import("../../eval/beir-report.js")]);
  const run = await runBeirEval({ folder, ...shared, ...(options.split !== undefined ? { split: options.split } : {}) }, context);
  return { json: beirJson(run), text: beirText(run), retrievers: run.retrievers };
}

async function evalSquad(file: string, _options: EvalCommandOptions, shared: SharedOptions, context: EvalContext): Promise<EvalOutput> {
  const [{ runSquadEval }, { beirJson, beirText }] = await Promise.all([import("../../eval/beir-run.js"), import("../../eval/beir-report.js")]);
  const run = await runSquadEval({ file, ...shared }, context);
  return { json: beirJson(run), text: beirText(run), retrievers: run.retrievers };
}

async function evalBeam(folder: string, options: EvalCommandOptions, shared: SharedOptions, context: EvalContext): Promise<EvalOutput> {
  const [{ runBeamEval }, { beamJson, beamText }] = await Promise.all([import("../../eval/beam-run.js"), import("../../eval/beam-report.js")]);
  const run = await runBeamEval(
    { folder, ...shared, ...(options.conversations ? { conversations: options.conversations } : {}), ...dialogueFields(options) },
    context,
  );
  return { json: beamJson(run), text: beamText(run), retrievers: run.retrievers };
}

async function evalRealmem(target: string, options: EvalCommandOptions, shared: SharedOptions, context: EvalContext): Promise<EvalOutput> {
  const [{ runRealmemEval }, { realmemJson, realmemText }] = await Promise.all([import("../../eval/realmem-run.js"), import("../../eval/realmem-report.js")]);
  const run = await runRealmemEval(
    { path: target, ...shared, ...(options.conversations ? { personas: options.conversations } : {}), ...dialogueFields(options) },
    context,
  );
  return { json: realmemJson(run), text: realmemText(run), retrievers: run.retrievers };
}

async function evalLocomo(file: string, options: EvalCommandOptions, shared: SharedOptions, context: EvalContext): Promise<EvalOutput> {
  const [{ runEval }, { evalJson, evalText }] = await Promise.all([import("../../eval/run.js"), import("../../eval/report.js")]);
  const run = await runEval(
    {
      file,
      ...shared,
      ...(options.conversations ? { conversations: options.conversations } : {}),
      ...dialogueFields(options),
    },
    context,
  );
  return { json: evalJson(run), text: evalText(run), retrievers: run.retrievers };
}

/** What every dialogue benchmark (LoCoMo, BEAM, RealMem) takes alike from the command line. */
function dialogueFields(options: EvalCommandOptions): { ks?: number[]; supersessionBaseline?: true; turnsPerSave?: number } {
  return {
    ...(options.k ? { ks: options.k } : {}),
    ...(options.supersessionBaseline ? { supersessionBaseline: true } : {}),
    ...(options.turnsPerSave !== undefined ? { turnsPerSave: options.turnsPerSave } : {}),
  };
}

type Evaluator = (path: string, options: EvalCommandOptions, shared: SharedOptions, context: EvalContext) => Promise<EvalOutput>;

const EVALUATORS: Record<EvalFormat, Evaluator> = { locomo: evalLocomo, beir: evalBeir, squad: evalSquad, beam: evalBeam, realmem: evalRealmem };

/**
 * The format asked for, else the path's (see folderFormat and fileFormat). An option of another format
 * is refused rather than ignored, so a run never measures something other than what was typed.
 */
async function formatOf(path: string, options: EvalCommandOptions): Promise<EvalFormat> {
  const info = await stat(path).catch(() => undefined);
  if (!info) throw new ValidationError("path", `no such file or folder: ${path}`);
  const format = options.format ?? (info.isDirectory() ? await folderFormat(path) : await fileFormat(path));
  const folderFormats: readonly EvalFormat[] = ["beir", "beam"];
  const fileFormats: readonly EvalFormat[] = ["locomo", "squad"];
  if (folderFormats.includes(format) && !info.isDirectory()) throw new ValidationError("--format", `${format} reads a folder; ${path} is a file`);
  if (fileFormats.includes(format) && info.isDirectory()) throw new ValidationError("--format", `${format} reads a .json file; ${path} is a folder (use --format beir, beam or realmem)`);
  const foreign: Record<EvalFormat, [string, unknown][]> = {
    beir: [["--conversations", options.conversations], ["--k", options.k]],
    squad: [["--conversations", options.conversations], ["--k", options.k], ["--split", options.split]],
    locomo: [["--split", options.split]],
    beam: [["--split", options.split]],
    realmem: [["--split", options.split]],
  };
  const given = foreign[format].find(([, value]) => value !== undefined);
  if (given) throw new ValidationError(given[0], `not an option of --format ${format}`);
  return format;
}

/** A folder holding BEAM conversations (chat.json, or folders holding one) is BEAM; one holding RealMem persona files RealMem; any other BEIR. */
async function folderFormat(path: string): Promise<"beam" | "realmem" | "beir"> {
  const [{ isBeamFolder }, { isRealmemFolder }] = await Promise.all([import("../../eval/beam-data.js"), import("../../eval/realmem-data.js")]);
  if (await isBeamFolder(path)) return "beam";
  return (await isRealmemFolder(path)) ? "realmem" : "beir";
}

/**
 * A file's format: LoCoMo's is a JSON list; of objects, RealMem's has `dialogues` and `_metadata`, any
 * other is read as SQuAD's layout (its reader checks the rest). Only an object is parsed whole.
 */
async function fileFormat(path: string): Promise<"squad" | "locomo" | "realmem"> {
  if (!(await opensObject(path))) return "locomo";
  const [{ isRealmemJson }, text] = await Promise.all([import("../../eval/realmem-data.js"), readFile(path, "utf8")]);
  return isRealmemJson(parsedOrUndefined(text.replace(/^\uFEFF/, ""))) ? "realmem" : "squad";
}

/** Whether a file's first characters open a JSON object (an unreadable file does not: its reader says why). */
async function opensObject(path: string): Promise<boolean> {
  const file = await open(path, "r").catch(() => undefined);
  if (!file) return false;
  try {
    const { buffer, bytesRead } = await file.read({ buffer: Buffer.alloc(256), position: 0 });
    return buffer.toString("utf8", 0, bytesRead).replace(/^\uFEFF/, "").trimStart().startsWith("{");
  } finally {
    await file.close();
  }
}

/** The JSON a file holds, undefined when it is not JSON (its reader then says where). */
function parsedOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
