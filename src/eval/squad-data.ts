import { readFile } from "node:fs/promises";
import { z } from "zod";
import { parseOrThrow, ValidationError } from "../core/errors.js";
import { parseJson } from "../ingest/json-text.js";
import { MAX_ID_CHARS } from "../memory/entry.js";
import { documentTexts, type BeirData, type BeirDocument, type BeirQuery } from "./beir-data.js";

/**
 * Reading a reading-comprehension file in SQuAD's layout (SQuAD 1.1 and 2.0, CMRC 2018, DRCD...) as a
 * retrieval benchmark, into the same BeirData the BEIR path scores:
 *
 *     {"version"?, "data": [{"title", "paragraphs": [{"id"?, "context", "qas": [{"id", "question", ...}]}]}]}
 *
 * Every paragraph is a document (the article's title, then the paragraph, as a BEIR document's title
 * and text), every question a query, and the paragraph it was asked about its one relevant document
 * (grade 1). Answers are not read: retrieval is scored on finding the paragraph. A SQuAD 2.0 question
 * without an answer still has its paragraph, so it is scored alike; an empty question is counted and
 * left out (there is nothing to ask). Errors name the field as a JSON
 * path (`data.3.paragraphs.1.qas.0.id: ...`).
 */

/** Room kept in an id for a part suffix (`#12`), as the BEIR reader keeps. */
const PART_SUFFIX_ROOM = 8;

/** SQuAD writes ids as strings; a number is read as its decimal spelling. */
const SquadIdSchema = z
  .union([z.string(), z.number().transform(String)])
  .pipe(
    z
      .string()
      .trim()
      .min(1, "must not be empty")
      .max(MAX_ID_CHARS - PART_SUFFIX_ROOM, `must be at most ${MAX_ID_CHARS - PART_SUFFIX_ROOM} characters`),
  );

const QuestionSchema = z.looseObject({
  id: SquadIdSchema.describe("the question's id, unique in the file"),
  // Empty questions occur in releases (two in CMRC 2018's trial set): counted and left out, not refused.
  question: z.string().trim().describe("the question as asked"),
});

const ParagraphSchema = z.looseObject({
  // SQuAD's own paragraphs carry no id; CMRC 2018's and DRCD's do (e.g. "TRIAL_800").
  id: SquadIdSchema.optional().describe("the paragraph's id, when the file gives one; else its position names it"),
  context: z.string().describe("the paragraph's text: the document"),
  qas: z.array(QuestionSchema).describe("the questions asked about this paragraph"),
});

const ArticleSchema = z.looseObject({
  title: z
    .string()
    .nullish()
    .transform((title) => title ?? "")
    .describe("the article's title, leading each of its paragraphs as a BEIR title does"),
  paragraphs: z.array(ParagraphSchema).describe("the article's paragraphs"),
});

const SquadFileSchema = z.looseObject({
  version: z.string().optional().describe("the release, e.g. v1.1 or v1.0 (not checked)"),
  data: z.array(ArticleSchema).min(1, "must hold at least one article").describe("the articles"),
});

/** Reads and checks a SQuAD-layout file as documents, queries and judgements. */
export async function readSquadFile(file: string): Promise<BeirData> {
  const parsed = parseOrThrow(SquadFileSchema, parseJson(await readText(file)), "");
  const documents: BeirDocument[] = [];
  const queries: BeirQuery[] = [];
  const qrels = new Map<string, Map<string, number>>();
  const documentAt = new Map<string, string>();
  const questionAt = new Map<string, string>();
  let emptyDocuments = 0;
  let emptyQueries = 0;
  parsed.data.forEach((article, a) => {
    article.paragraphs.forEach((paragraph, p) => {
      const where = `data.${a}.paragraphs.${p}`;
      // A paragraph without an id is named by its place: article and paragraph, counted from 1.
      const id = paragraph.id ?? `${a + 1}.${p + 1}`;
      claimId(documentAt, id, paragraph.id === undefined ? where : `${where}.id`, "paragraph");
      // A paragraph without text is empty even under a title: the title alone is not what was asked about.
      const texts = paragraph.context.trim() ? documentTexts(article.title, paragraph.context) : [];
      if (texts.length > 0) documents.push({ id, texts, where });
      else emptyDocuments += 1;
      paragraph.qas.forEach((qa, q) => {
        claimId(questionAt, qa.id, `${where}.qas.${q}.id`, "question");
        if (!qa.question) {
          emptyQueries += 1;
          return;
        }
        queries.push({ id: qa.id, text: qa.question });
        qrels.set(qa.id, new Map([[id, 1]]));
      });
    });
  });
  if (queries.length === 0) throw new ValidationError("data", "no paragraph has a question");
  // BEIR ignores a result whose id is the query's; a question named like a paragraph would never find it.
  for (const [id, where] of questionAt) {
    if (documentAt.has(id)) throw new ValidationError(where, `question id "${id}" is also a paragraph's id (at ${documentAt.get(id)})`);
  }
  const stored = new Set(documents.map((document) => document.id));
  const relevantMissing = [...qrels.values()].filter((judgements) => [...judgements.keys()].some((id) => !stored.has(id))).length;
  return { documents, emptyDocuments, queries, emptyQueries, queriesWithoutRelevant: 0, qrels, relevantMissing };
}

/** Refuses an id seen before, naming both places: two paragraphs (or questions) under one id could not be told apart. */
function claimId(seen: Map<string, string>, id: string, where: string, what: string): void {
  const first = seen.get(id);
  if (first !== undefined) throw new ValidationError(where, `duplicate ${what} id "${id}" (first at ${first})`);
  seen.set(id, where);
}

async function readText(file: string): Promise<string> {
  try {
    return (await readFile(file, "utf8")).replace(/^\uFEFF/, "");
  } catch {
    throw new ValidationError("file", `cannot read ${file}`);
  }
}
