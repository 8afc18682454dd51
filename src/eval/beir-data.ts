import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { ValidationError } from "../core/errors.js";
import { chunkDocument } from "../ingest/chunker.js";
import { jsonLines } from "../ingest/json-text.js";
import { MAX_ID_CHARS, MAX_TEXT_CHARS } from "../memory/entry.js";

/**
 * Reading a folder in BEIR's layout (the standard format of retrieval benchmarks):
 *
 *     corpus.jsonl     {"_id", "title", "text", ...} one document a line
 *     queries.jsonl    {"_id", "text", ...} one query a line
 *     qrels/SPLIT.tsv  a header line, then query-id <tab> corpus-id <tab> score
 *
 * Everything is checked before anything is written, and a bad line is named by file and line
 * (`corpus.jsonl line 7: _id: ...`). Other fields (BEIR's `metadata`) are ignored. Files are read
 * whole: meant for corpora of thousands to a few hundred thousand documents, not MS MARCO's millions.
 */

export const BEIR_FILES = { corpus: "corpus.jsonl", queries: "queries.jsonl", qrels: "qrels" } as const;

/** A title repeated at the head of every part of a split document is at most this long (longer ones lead the first part only). */
const MAX_REPEATED_TITLE = 1024;
/** Room kept in an id for a part suffix (`#12`). */
const PART_SUFFIX_ROOM = 8;

/** BEIR ids are strings; a number is read as its decimal spelling, which is how the qrels TSV writes it. */
const BeirIdSchema = z
  .union([z.string(), z.number().transform(String)])
  .pipe(
    z
      .string()
      .min(1, "must not be empty")
      .max(MAX_ID_CHARS - PART_SUFFIX_ROOM, `must be at most ${MAX_ID_CHARS - PART_SUFFIX_ROOM} characters`)
      // Memory ids are trimmed; an id with outer spaces would be stored under another name than its qrels use.
      .refine((id) => id.trim() === id, "must not begin or end with whitespace"),
  );

const CorpusLineSchema = z.object({
  _id: BeirIdSchema.describe("the document id the qrels name"),
  title: z
    .string()
    .nullish()
    .transform((title) => title ?? "")
    .describe("the document's title (may be empty, null or absent)"),
  text: z.string().describe("the document's text"),
});

const QueryLineSchema = z.object({
  _id: BeirIdSchema.describe("the query id the qrels name"),
  text: z.string().trim().min(1, "must not be empty").describe("the query as asked"),
});

const GradeSchema = z
  .string()
  .regex(/^-?\d+$/, "must be an integer")
  .transform(Number)
  .describe("relevance grade: > 0 relevant (the gain), 0 or less not relevant");

export interface BeirDocument {
  id: string;
  /** The memory texts: one (title and text, a newline between), or parts when longer than a memory may be (see documentTexts). */
  texts: string[];
  /** Where the document was read, for errors: `corpus.jsonl line 7`, `data.3.paragraphs.1`. */
  where: string;
}

export interface BeirQuery {
  id: string;
  text: string;
}

export interface BeirData {
  documents: BeirDocument[];
  /** Documents with neither title nor text: nothing to store or find. */
  emptyDocuments: number;
  /** Queries with at least one relevant judgement in the split, in queries.jsonl order. */
  queries: BeirQuery[];
  /** Queries without text, left out (BEIR's reader refuses them; SQuAD releases hold a few). */
  emptyQueries: number;
  /** Queries judged in the split with no relevant document (unscorable, left out). */
  queriesWithoutRelevant: number;
  /** Query id to (document id to grade), for the split. */
  qrels: Map<string, Map<string, number>>;
  /** Relevant judgements naming a document the corpus lacks (they still count, as in trec_eval: no retriever can find them). */
  relevantMissing: number;
}

/** Reads and checks a BEIR folder for one split. */
export async function readBeirFolder(folder: string, split: string): Promise<BeirData> {
  await requireFolder(folder);
  const qrelsFile = await qrelsPath(folder, split);
  const [corpus, queries, qrels] = await Promise.all([
    readJsonl(folder, BEIR_FILES.corpus, CorpusLineSchema),
    readJsonl(folder, BEIR_FILES.queries, QueryLineSchema),
    readQrels(folder, qrelsFile),
  ]);
  const documents = uniqueDocuments(corpus);
  const asked = uniqueQueries(queries);
  checkQrelsQueries(qrels, new Set(asked.map((query) => query.id)), qrelsFile);
  const judged = asked.filter((query) => qrels.judgements.has(query.id));
  const scorable = judged.filter((query) => hasRelevant(qrels.judgements.get(query.id)));
  const stored = documents.filter((document) => document.texts.length > 0);
  return {
    documents: stored,
    emptyDocuments: documents.length - stored.length,
    queries: scorable,
    emptyQueries: 0,
    queriesWithoutRelevant: judged.length - scorable.length,
    qrels: qrels.judgements,
    relevantMissing: countRelevantMissing(qrels.judgements, new Set(stored.map((document) => document.id))),
  };
}

async function requireFolder(folder: string): Promise<void> {
  const info = await stat(folder).catch(() => undefined);
  if (!info?.isDirectory()) throw new ValidationError("folder", `${folder} is not a folder (BEIR: corpus.jsonl, queries.jsonl, qrels/SPLIT.tsv)`);
}

async function qrelsPath(folder: string, split: string): Promise<string> {
  if (!/^[\w.-]+$/.test(split) || split.startsWith(".")) throw new ValidationError("split", `"${split}" is not a split name (e.g. test, dev, train)`);
  const file = path.join(BEIR_FILES.qrels, `${split}.tsv`);
  const info = await stat(path.join(folder, file)).catch(() => undefined);
  if (info?.isFile()) return file;
  const splits = (await readdir(path.join(folder, BEIR_FILES.qrels)).catch(() => []))
    .filter((name) => name.endsWith(".tsv"))
    .map((name) => name.slice(0, -".tsv".length))
    .sort();
  const has = splits.length > 0 ? `it has ${splits.join(", ")}` : `it has no ${BEIR_FILES.qrels}/*.tsv`;
  throw new ValidationError("split", `no ${file} in ${folder} (${has})`);
}

interface Line<T> {
  line: number;
  value: T;
}

/** Every non-blank line of `file` parsed with `schema`; a bad line is a ValidationError naming the file and line. */
async function readJsonl<S extends z.ZodType>(folder: string, file: string, schema: S): Promise<Line<z.output<S>>[]> {
  const rows: Line<z.output<S>>[] = [];
  for (const { line, json } of jsonLines(await readText(folder, file), (line, reason) => lineError(file, line, "", reason))) {
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw lineError(file, line, (issue?.path ?? []).map(String).join("."), issue?.message ?? "invalid value");
    }
    rows.push({ line, value: parsed.data });
  }
  if (rows.length === 0) throw new ValidationError(file, "the file has no lines");
  return rows;
}

interface Qrels {
  judgements: Map<string, Map<string, number>>;
  /** Line of each query id's first judgement, for errors. */
  firstLine: Map<string, number>;
}

/** The split's judgements; the first line must be a header (BEIR's `query-id corpus-id score`). */
async function readQrels(folder: string, file: string): Promise<Qrels> {
  const qrels: Qrels = { judgements: new Map(), firstLine: new Map() };
  let header = false;
  (await readText(folder, file)).split(/\r?\n/).forEach((raw, index) => {
    const line = index + 1;
    if (!raw.trim()) return;
    const columns = raw.split("\t").map((column) => column.trim());
    if (columns.length !== 3) throw lineError(file, line, "", `expected 3 tab-separated columns (query-id, corpus-id, score), got ${columns.length}`);
    const [queryId = "", documentId = "", score = ""] = columns;
    if (!header) {
      // BEIR's loader skips the first line whatever it holds; a file without a header would lose a judgement unseen.
      if (GradeSchema.safeParse(score).success) throw lineError(file, line, "", "expected the header line query-id, corpus-id, score first");
      header = true;
      return;
    }
    addJudgement(qrels, { file, line, queryId, documentId, score });
  });
  if (qrels.judgements.size === 0) throw new ValidationError(file, "the file has no judgements");
  return qrels;
}

function addJudgement(qrels: Qrels, row: { file: string; line: number; queryId: string; documentId: string; score: string }): void {
  const { file, line, queryId, documentId } = row;
  if (!queryId) throw lineError(file, line, "query-id", "must not be empty");
  if (!documentId) throw lineError(file, line, "corpus-id", "must not be empty");
  const grade = GradeSchema.safeParse(row.score);
  if (!grade.success) throw lineError(file, line, "score", grade.error.issues[0]?.message ?? "must be an integer");
  const forQuery = qrels.judgements.get(queryId) ?? new Map<string, number>();
  if (forQuery.has(documentId)) throw lineError(file, line, "corpus-id", `${documentId} is judged twice for query ${queryId}`);
  forQuery.set(documentId, grade.data);
  qrels.judgements.set(queryId, forQuery);
  if (!qrels.firstLine.has(queryId)) qrels.firstLine.set(queryId, line);
}

/** A judged query queries.jsonl lacks cannot be asked: refused, as BEIR's loader does. */
function checkQrelsQueries(qrels: Qrels, known: ReadonlySet<string>, file: string): void {
  for (const [queryId, line] of qrels.firstLine) {
    if (!known.has(queryId)) throw lineError(file, line, "query-id", `${queryId} is not in ${BEIR_FILES.queries}`);
  }
}

function uniqueDocuments(rows: readonly Line<z.output<typeof CorpusLineSchema>>[]): BeirDocument[] {
  const lineOfId = new Map<string, number>();
  return rows.map(({ line, value }) => {
    const first = lineOfId.get(value._id);
    if (first !== undefined) throw lineError(BEIR_FILES.corpus, line, "_id", `duplicate id "${value._id}" (first on line ${first})`);
    lineOfId.set(value._id, line);
    return { id: value._id, texts: documentTexts(value.title, value.text), where: `${BEIR_FILES.corpus} line ${line}` };
  });
}

function uniqueQueries(rows: readonly Line<z.output<typeof QueryLineSchema>>[]): BeirQuery[] {
  const lineOfId = new Map<string, number>();
  return rows.map(({ line, value }) => {
    const first = lineOfId.get(value._id);
    if (first !== undefined) throw lineError(BEIR_FILES.queries, line, "_id", `duplicate id "${value._id}" (first on line ${first})`);
    lineOfId.set(value._id, line);
    return { id: value._id, text: value.text };
  });
}

/**
 * A document's memory texts: title and text as one memory, or, when that is longer than a memory may
 * be (MAX_TEXT_CHARS), consecutive parts cut by the product's own chunker at paragraph and sentence
 * ends, each led by the title. Cutting the tail off instead would hide it from every retriever; split,
 * every word stays findable, and the document ranks where its best part does.
 */
export function documentTexts(title: string, text: string): string[] {
  const whole = [title.trim(), text.trim()].filter(Boolean).join("\n");
  if (!whole) return [];
  if (whole.length <= MAX_TEXT_CHARS) return [whole];
  const head = title.trim().length <= MAX_REPEATED_TITLE ? title.trim() : "";
  const body = head ? text.trim() : whole;
  const room = MAX_TEXT_CHARS - (head ? head.length + 1 : 0);
  return chunkDocument(body, { maxChars: room, format: "text" }).map((chunk) => (head ? `${head}\n${chunk.body}` : chunk.body));
}

function hasRelevant(judgements: ReadonlyMap<string, number> | undefined): boolean {
  return [...(judgements?.values() ?? [])].some((grade) => grade > 0);
}

function countRelevantMissing(qrels: ReadonlyMap<string, ReadonlyMap<string, number>>, documentIds: ReadonlySet<string>): number {
  let missing = 0;
  for (const judgements of qrels.values()) for (const [id, grade] of judgements) if (grade > 0 && !documentIds.has(id)) missing += 1;
  return missing;
}

async function readText(folder: string, file: string): Promise<string> {
  try {
    return (await readFile(path.join(folder, file), "utf8")).replace(/^\uFEFF/, "");
  } catch {
    throw new ValidationError(file, `cannot read ${path.join(folder, file)}`);
  }
}

function lineError(file: string, line: number, field: string, message: string): ValidationError {
  return new ValidationError(field ? `${file} line ${line}: ${field}` : `${file} line ${line}`, message, { file, line });
}
