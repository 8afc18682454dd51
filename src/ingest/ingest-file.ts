import { readFile, realpath, stat } from "node:fs/promises";
import { resolve } from "node:path";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { z } from "zod";
import { parseOrThrow, ValidationError } from "../core/errors.js";
import { hasExpired, NamespaceSchema, toEpochMs, type MemoryInput } from "../memory/entry.js";
import { writeMemories, type WriteOptions } from "./write-memories.js";
import type { MemoryStore } from "../stores/port.js";
import { MAX_IDS_PER_CALL } from "../stores/validation.js";
import { inputTooLarge, MAX_INGEST_BYTES } from "./input-limits.js";
import type { Embedder } from "../text/embedder.js";
import { parseDialogue, type Dialogue } from "./dialogue.js";
import {
  buildDialogue,
  commitDialogue,
  dialogueBuildSteps,
  prepareDialogue,
  type BuiltDialogue,
  type DialogueBuilderSettings,
  type PreparedDialogue,
} from "./dialogue-ingest.js";
import { ingestDocuments, isDocumentFile } from "./documents.js";
import { isPlainObject, lineField, parseJsonl, withStableIdLines } from "./jsonl.js";
import { parseJson } from "./json-text.js";
import { parseLocomo, type LocomoConversation } from "./locomo.js";
import { parseOrigin, retireFromOrigin, withOrigin } from "./origin.js";


/** Where memories go when no namespace is given (formats other than LoCoMo, which names its own). */
export const DEFAULT_NAMESPACE = "default";

export const INGEST_FORMATS = ["locomo", "jsonl", "docs", "dialogue"] as const;
export type IngestFormat = (typeof INGEST_FORMATS)[number];

/**
 * Progress of a whole ingest, every namespace together, in up to three phases one after another, each
 * counting over the whole job: `build` (dialogues and LoCoMo only), model windows in LLM mode, else
 * dialogues; `embed`, entries embedded; `store`, entries written (0 of all first, then per namespace
 * as each is written: the write of a large call is one slow transaction). `namespace` is the one at work.
 */
export interface IngestProgress {
  phase: "build" | "embed" | "store";
  namespace: string;
  done: number;
  total: number;
}

/** Text to ingest instead of a file (e.g. standard input). */
export const IngestTextSchema = z.strictObject({
  text: z.string({ error: "text must be a string" }).describe("The content, in any format but docs (JSON Lines, dialogue JSON, LoCoMo JSON)"),
  name: z.string().min(1).optional().describe('What messages call the input, e.g. "standard input"; default "the given text"'),
});
export type IngestText = z.input<typeof IngestTextSchema>;

export interface IngestFileOptions {
  /** Detected from the path and content (or from the content of text) when absent (see detectFormat). */
  format?: IngestFormat;
  /** Target namespace. LoCoMo names a namespace per sample; with this set, the file must hold one sample (or select one). */
  namespace?: string;
  /**
   * What the input is called for replacing (see origin.ts): entries carry it, and the next ingest of
   * the same origin into a namespace retires what it wrote there before and no longer holds. Default:
   * the absolute path of the file or folder (symbolic links resolved); text has none unless given, so
   * two pipes never retire each other's memories. Give a name to keep replacing when the input moves.
   */
  origin?: string;
  store: MemoryStore;
  embedder: Embedder;
  /** A chat model switches dialogues (LoCoMo, dialogue JSON) to LLM extraction; without one the rules build entries. */
  model?: BaseChatModel;
  /** Dialogue builder settings, e.g. {contextTurns: 1, contextPlacement: "keywords"}. */
  builder?: DialogueBuilderSettings;
  /** LoCoMo only: ingest just these sample ids. */
  conversations?: readonly string[];
  /** Documents only: target chunk size in characters (default 800). */
  chunkChars?: number;
  /**
   * JSON Lines only: leave out memories whose `expiresAt` has passed, counted in the summary, rather
   * than refusing the input. For moving an export, whose memories may expire between export and ingest.
   */
  skipExpired?: boolean;
  onProgress?: (progress: IngestProgress) => void;
  /** Clock for createdAt/updatedAt (tests pin it). */
  now?: number;
}

/** What an ingest wrote: entries per namespace and in total, how many old ones it retired, and how long it took. */
export interface IngestSummary {
  namespaces: Record<string, number>;
  entries: number;
  /** Entries of this origin that its new version no longer holds, deleted (old chunks of changed documents included). */
  retired: number;
  /** Memories left out because their expiry had passed (only with `skipExpired`). */
  expired: number;
  seconds: number;
}

/** What one format's ingest wrote, retired and left out. */
interface Written {
  namespaces: Record<string, number>;
  retired: number;
  expired?: number;
}

/**
 * The one entry point of the `ingest` command: reads `input` (a path: a file, or a folder for docs; or
 * text, for every format but docs), checks and embeds it whole before writing anything, then writes its
 * memories in one store call per namespace (see writeMemories). Bad input is a ValidationError whose
 * message names the line (JSON Lines), the file and chunk (documents) or the field; nothing is written
 * (and nothing retired) in that case, nor when the embedder fails.
 *
 * A source replaces itself: after the new version is written, the entries its origin (see
 * `options.origin`) wrote to the same namespace before and the new version no longer holds (edited or
 * deleted lines, removed documents, turns) are deleted. Write first, then retire: a crash between the
 * two leaves old entries behind, never loses new ones, and the next ingest of the origin retires them.
 * Only the namespaces this ingest writes are looked at: a LoCoMo sample dropped from the file keeps its namespace.
 */
export async function ingestFile(given: string | IngestText, options: IngestFileOptions): Promise<IngestSummary> {
  const started = performance.now();
  const input = typeof given === "string" ? given : parseOrThrow(IngestTextSchema, given, "input");
  const format = options.format ?? (typeof input === "string" ? await detectFormat(input) : formatOfText(textOf(input), textName(input)));
  const namespace = options.namespace === undefined ? undefined : parseOrThrow(NamespaceSchema, options.namespace, "namespace");
  const origin = options.origin !== undefined ? parseOrigin(options.origin) : typeof input === "string" ? await originOfPath(input) : undefined;
  const context: FormatContext = { options, origin, namespace: namespace ?? DEFAULT_NAMESPACE, now: options.now !== undefined ? { now: options.now } : {} };

  if (options.skipExpired && format !== "jsonl") {
    throw new ValidationError("skipExpired", `applies to JSON Lines, the format whose memories carry an expiresAt (this input is ${format})`);
  }
  // Held from the first read of what the origin wrote to its last delete (see stores/origin-lease.ts).
  const release = origin === undefined ? undefined : await options.store.leaseOrigin(origin);
  let written: Written;
  try {
    written = await ingestFormat(input, format, namespace, context);
  } finally {
    await release?.();
  }
  const entries = Object.values(written.namespaces).reduce((sum, n) => sum + n, 0);
  const seconds = Math.round((performance.now() - started) / 10) / 100;
  return { namespaces: written.namespaces, entries, retired: written.retired, expired: written.expired ?? 0, seconds };
}

/** Reads `input` in its format and writes (and retires) what it holds; `namespace` as the caller gave it (LoCoMo defaults to each sample's). */
async function ingestFormat(input: string | IngestText, format: IngestFormat, namespace: string | undefined, context: FormatContext): Promise<Written> {
  const { options } = context;
  if (format === "docs") {
    if (typeof input !== "string") throw new ValidationError("format", `documents are read from files: give a file or folder rather than ${textName(input)}`);
    return ingestDocsPath(input, context);
  }
  const text = typeof input === "string" ? await readText(input) : textOf(input);
  if (typeof input !== "string" && Buffer.byteLength(text) > MAX_INGEST_BYTES) throw inputTooLarge(textName(input), Buffer.byteLength(text));
  if (format === "jsonl") return ingestJsonl(text, context);
  const json = parseJson(text);
  const dialogues =
    format === "locomo"
      ? selectConversations(parseLocomo(json), namespace, options.conversations)
      : [{ namespace: context.namespace, dialogue: parseDialogueFile(json) }];
  return ingestDialogues(dialogues, context);
}

/** What every format's ingest needs: the caller's options, the origin, the namespace (default unless given) and the clock. */
interface FormatContext {
  options: IngestFileOptions;
  origin: string | undefined;
  namespace: string;
  now: { now?: number };
}

async function ingestDocsPath(path: string, { options, origin, namespace, now }: FormatContext): Promise<Written> {
  const result = await ingestDocuments(options.store, options.embedder, namespace, path, {
    ...(options.chunkChars !== undefined ? { chunkChars: options.chunkChars } : {}),
    ...writeReports(namespace, options.onProgress),
    ...(origin !== undefined ? { origin } : {}),
    ...now,
  });
  return { namespaces: { [namespace]: result.entries }, retired: result.retired };
}

async function ingestJsonl(text: string, { options, origin, namespace, now }: FormatContext): Promise<Written> {
  refuseTooManyLines(text);
  const lines = withStableIdLines(namespace, parseJsonl(text));
  // One instant for the check and the write, so a memory kept here is not refused a moment later.
  const checkedAt = options.skipExpired ? (now.now ?? Date.now()) : undefined;
  const memories = checkedAt === undefined ? lines : lines.filter(({ input }) => !expiredBy(input, checkedAt));
  const inputs = memories.map((memory) => withOrigin(memory.input, origin));
  const written = await writeMemories(options.store, options.embedder, namespace, inputs, {
    itemField: lineField(memories),
    ...writeReports(namespace, options.onProgress),
    ...(checkedAt === undefined ? now : { now: checkedAt }),
  });
  const retired = await retireFromOrigin(options.store, namespace, origin, new Set(written.map((entry) => entry.id)));
  return { namespaces: { [namespace]: written.length }, retired, expired: lines.length - memories.length };
}

/** One ingest writes at most MAX_IDS_PER_CALL memories (all or nothing): more lines are refused before any is parsed. */
function refuseTooManyLines(text: string): void {
  let lines = 0;
  for (let start = 0; start < text.length; ) {
    const end = text.indexOf("\n", start);
    const stop = end < 0 ? text.length : end;
    if (text.slice(start, stop).trim() !== "") lines += 1;
    start = stop + 1;
  }
  if (lines > MAX_IDS_PER_CALL) {
    throw new ValidationError("input", `the input holds ${lines} memories; one ingest writes at most ${MAX_IDS_PER_CALL}, all or nothing: split it (split -l ${MAX_IDS_PER_CALL} FILE part-)`);
  }
}

/** Whether a memory has an expiry that has passed at `now` (the write would refuse it). */
function expiredBy(input: MemoryInput, now: number): boolean {
  return input.expiresAt !== undefined && hasExpired(toEpochMs(input.expiresAt), now);
}

/**
 * Every conversation is parsed and validated, then built, then embedded, before the first one is
 * written: a failing model or embedder writes nothing, and each phase knows its whole-job total.
 * The writes are one store call per namespace, so a store failing between two of them leaves the
 * earlier namespaces written (re-running replaces them by id).
 */
async function ingestDialogues(dialogues: readonly { namespace: string; dialogue: Dialogue }[], { options, origin, now }: FormatContext): Promise<Written> {
  const settings = { ...(options.model ? { model: options.model } : {}), ...(options.builder ? { builder: options.builder } : {}) };
  const steps = dialogues.map(({ dialogue }) => dialogueBuildSteps(dialogue, settings));
  const build = phaseCounter("build", steps.reduce((sum, n) => sum + n, 0), options.onProgress);
  const built: BuiltDialogue[] = [];
  for (const [index, { namespace, dialogue }] of dialogues.entries()) {
    const onProgress = (phase: "build" | "write", done: number) => {
      if (phase === "build") build.report(namespace, done);
    };
    built.push(await buildDialogue(namespace, dialogue, { ...settings, onProgress, store: options.store, ...(origin !== undefined ? { origin } : {}) }));
    build.finishPart(steps[index] ?? 0);
  }
  const entries = built.reduce((sum, dialogue) => sum + dialogue.memories.length, 0);
  // The memories of turns a dialogue continues are embedded and written again with its own.
  const embed = phaseCounter("embed", built.reduce((sum, dialogue) => sum + dialogue.memories.length + dialogue.neighbours.length, 0), options.onProgress);
  const prepared: PreparedDialogue[] = [];
  for (const dialogue of built) {
    // A part's own last report (its total) means written; it is reported as embedded below instead.
    const onProgress = (phase: "build" | "write", done: number, total: number) => {
      if (phase === "write" && done < total) embed.report(dialogue.namespace, done);
    };
    prepared.push(await prepareDialogue(options.store, options.embedder, dialogue, { onProgress, ...(origin !== undefined ? { origin } : {}), ...now }));
    embed.finishPart(dialogue.memories.length + dialogue.neighbours.length);
    embed.reportFinished(dialogue.namespace);
  }
  const store = phaseCounter("store", entries, options.onProgress);
  const written: Written = { namespaces: {}, retired: 0 };
  for (const dialogue of prepared) {
    const ns = dialogue.write.namespace;
    // One write per namespace: the count moves as each is stored.
    store.reportFinished(ns);
    const result = await commitDialogue(options.store, dialogue);
    store.finishPart(result.entries);
    store.reportFinished(ns);
    written.namespaces[ns] = (written.namespaces[ns] ?? 0) + result.entries;
    written.retired += result.retired;
  }
  return written;
}

/** writeMemories' progress callbacks as whole-job reports of one namespace: embedded, then storing, then stored. */
function writeReports(namespace: string, onProgress: IngestFileOptions["onProgress"]): Pick<WriteOptions, "onProgress" | "onStore"> {
  return {
    onProgress: (done, total) => onProgress?.({ phase: done < total ? "embed" : "store", namespace, done, total }),
    onStore: (total) => onProgress?.({ phase: "store", namespace, done: 0, total }),
  };
}

/**
 * One phase of the whole job's progress, over parts (namespaces) done one after another: a part's own
 * count is shifted by the parts finished before it. A phase with nothing to count reports nothing.
 */
function phaseCounter(phase: IngestProgress["phase"], total: number, onProgress: IngestFileOptions["onProgress"]) {
  let finished = 0;
  const send = (namespace: string, done: number) => {
    if (total > 0) onProgress?.({ phase, namespace, done: Math.min(total, done), total });
  };
  return {
    report: (namespace: string, done: number) => send(namespace, finished + done),
    finishPart: (count: number) => {
      finished += count;
    },
    /** Reports the parts finished so far as all that is done. */
    reportFinished: (namespace: string) => send(namespace, finished),
  };
}

/**
 * The format of `path`: a folder or .md/.markdown/.txt is docs; .jsonl/.ndjson is jsonl; any other
 * file is told by its content (see formatOfText).
 */
export async function detectFormat(path: string): Promise<IngestFormat> {
  const info = await stat(path).catch(() => undefined);
  if (!info) throw new ValidationError("path", `no such file or folder: ${path}`);
  if (info.isDirectory()) return "docs";
  if (isDocumentFile(path)) return "docs";
  const lower = path.toLowerCase();
  if (lower.endsWith(".jsonl") || lower.endsWith(".ndjson")) return "jsonl";
  return formatOfText(await readText(path), path);
}

/**
 * The format of JSON text (`name` is what the error calls it): LoCoMo when it is a list of samples with
 * `sample_id` and `conversation`, a dialogue when it is `{turns: [...]}` or a list of turns, JSON Lines
 * when it is one object per line. Anything else asks for --format.
 */
export function formatOfText(text: string, name: string): IngestFormat {
  const first = text.trimStart()[0];
  if (first === "[" || first === "{") {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      // Several JSON objects, one per line, do not parse as one document: that is JSON Lines.
      if (first === "{") return "jsonl";
      return "locomo"; // a malformed list: let the LoCoMo parser report where
    }
    const head: unknown = Array.isArray(json) ? json[0] : json;
    if (Array.isArray(json) && isPlainObject(head) && "sample_id" in head && "conversation" in head) return "locomo";
    if ((isPlainObject(json) && "turns" in json) || (Array.isArray(json) && isPlainObject(head) && "turnId" in head)) return "dialogue";
    if (isPlainObject(json) && "text" in json) return "jsonl";
  }
  throw new ValidationError("format", `cannot tell the format of ${name}; pass one of: ${INGEST_FORMATS.join(", ")}`);
}

function selectConversations(
  conversations: LocomoConversation[],
  namespace: string | undefined,
  wanted: readonly string[] | undefined,
): { namespace: string; dialogue: Dialogue }[] {
  let selected = conversations;
  if (wanted && wanted.length > 0) {
    const known = new Set(conversations.map((conversation) => conversation.sampleId));
    const missing = wanted.filter((id) => !known.has(id));
    if (missing.length > 0) throw new ValidationError("conversations", `not in the file: ${missing.join(", ")} (it has ${[...known].join(", ")})`);
    selected = conversations.filter((conversation) => wanted.includes(conversation.sampleId));
  }
  if (namespace !== undefined && selected.length > 1) {
    throw new ValidationError("namespace", `the file holds ${selected.length} conversations, each written to its own namespace (its sample_id); select one to use --namespace`);
  }
  return selected.map((conversation) => ({ namespace: namespace ?? conversation.sampleId, dialogue: conversation.dialogue }));
}

/** A dialogue file: `{participants?, turns: [...]}` or just the list of turns. */
function parseDialogueFile(json: unknown): Dialogue {
  return parseDialogue(Array.isArray(json) ? { turns: json } : json);
}

async function readText(path: string): Promise<string> {
  let text: string;
  try {
    const { size } = await stat(path);
    if (size > MAX_INGEST_BYTES) throw inputTooLarge(path, size);
    text = await readFile(path, "utf8");
  } catch (error) {
    if (error instanceof ValidationError) throw error;
    const code = isPlainObject(error) && typeof error.code === "string" ? error.code : "";
    throw new ValidationError("path", code === "ENOENT" ? `no such file: ${path}` : code === "EISDIR" ? `${path} is a folder (use --format docs)` : `cannot read ${path}`);
  }
  return nonBlank(text, path);
}

/** The text, or a ValidationError when it holds nothing but white space. */
function nonBlank(text: string, name: string): string {
  if (!text.trim()) throw new ValidationError("", `${name} is empty`);
  return text;
}

function textName(input: IngestText): string {
  return input.name ?? "the given text";
}

/** The text of a text input, refused when blank. */
function textOf(input: IngestText): string {
  return nonBlank(input.text, textName(input));
}

/** A path's default origin: absolute, symbolic links resolved, so two spellings of one file are one origin. */
async function originOfPath(path: string): Promise<string> {
  // A path that cannot be resolved fails when read, with the message for it.
  return realpath(path).catch(() => resolve(path));
}

/** Accepts "locomo" | "jsonl" | "docs" | "dialogue" (for CLI flag validation). */
export const IngestFormatSchema = z.enum(INGEST_FORMATS);
