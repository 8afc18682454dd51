import { readFile, stat } from "node:fs/promises";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { z } from "zod";
import { parseOrThrow, ValidationError } from "../core/errors.js";
import { NamespaceSchema } from "../memory/entry.js";
import { writeMemories } from "./write-memories.js";
import type { MemoryStore } from "../stores/port.js";
import type { Embedder } from "../text/embedder.js";
import { parseDialogue, type Dialogue } from "./dialogue.js";
import { commitDialogue, prepareDialogue, type DialogueBuilderSettings, type PreparedDialogue } from "./dialogue-ingest.js";
import { ingestDocuments, isDocumentFile } from "./documents.js";
import { fillMissingFields, isPlainObject, lineField, parseJsonl, withStableIdLines } from "./jsonl.js";
import { parseJson } from "./json-text.js";
import { parseLocomo, type LocomoConversation } from "./locomo.js";


/** Where memories go when no namespace is given (formats other than LoCoMo, which names its own). */
export const DEFAULT_NAMESPACE = "default";

export const INGEST_FORMATS = ["locomo", "jsonl", "docs", "dialogue"] as const;
export type IngestFormat = (typeof INGEST_FORMATS)[number];

export interface IngestProgress {
  phase: "build" | "write";
  namespace: string;
  done: number;
  total: number;
}

export interface IngestFileOptions {
  /** Detected from the path and content when absent (see detectFormat). */
  format?: IngestFormat;
  /** Target namespace. LoCoMo names a namespace per sample; with this set, the file must hold one sample (or select one). */
  namespace?: string;
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
  onProgress?: (progress: IngestProgress) => void;
  /** Clock for createdAt/updatedAt (tests pin it). */
  now?: number;
}

/** What an ingest wrote: entries per namespace, in total, and how long it took. */
export interface IngestSummary {
  namespaces: Record<string, number>;
  entries: number;
  seconds: number;
}

/**
 * The one entry point of the `ingest` command: reads `path` (a file, or a folder for docs), checks and
 * embeds it whole before writing anything, then writes its memories in one store call per namespace
 * (see writeMemories). Bad input is a ValidationError whose message names the line (JSON Lines), the
 * file and chunk (documents) or the field; nothing is written in that case, nor when the embedder fails.
 */
export async function ingestFile(path: string, options: IngestFileOptions): Promise<IngestSummary> {
  const started = performance.now();
  const format = options.format ?? (await detectFormat(path));
  const namespace = options.namespace === undefined ? undefined : parseOrThrow(NamespaceSchema, options.namespace, "namespace");
  const namespaces: Record<string, number> = {};
  const progress = (ns: string) => (phase: "build" | "write", done: number, total: number) =>
    options.onProgress?.({ phase, namespace: ns, done, total });
  const now = options.now !== undefined ? { now: options.now } : {};

  if (format === "docs") {
    const ns = namespace ?? DEFAULT_NAMESPACE;
    const result = await ingestDocuments(options.store, options.embedder, ns, path, {
      ...(options.chunkChars !== undefined ? { chunkChars: options.chunkChars } : {}),
      onProgress: (done, total) => options.onProgress?.({ phase: "write", namespace: ns, done, total }),
      ...now,
    });
    namespaces[ns] = result.entries;
  } else if (format === "jsonl") {
    const ns = namespace ?? DEFAULT_NAMESPACE;
    const memories = withStableIdLines(ns, parseJsonl(await readText(path)));
    const inputs = memories.map((memory) => fillMissingFields(memory.input));
    const written = await writeMemories(options.store, options.embedder, ns, inputs, {
      itemField: lineField(memories),
      onProgress: (done, total) => progress(ns)("write", done, total),
      ...now,
    });
    namespaces[ns] = written.length;
  } else {
    // Every conversation is parsed and validated before the first one is written.
    const json = parseJson(await readText(path));
    const dialogues =
      format === "locomo"
        ? selectConversations(parseLocomo(json), namespace, options.conversations)
        : [{ namespace: namespace ?? DEFAULT_NAMESPACE, dialogue: parseDialogueFile(json) }];
    // Every conversation is built and embedded before the first is written: a failing model or
    // embedder writes nothing. The writes are one store call per namespace, so a store failing
    // between two of them leaves the earlier namespaces written (re-running replaces them by id).
    const prepared: PreparedDialogue[] = [];
    for (const { namespace: ns, dialogue } of dialogues) {
      prepared.push(
        await prepareDialogue(options.store, options.embedder, ns, dialogue, {
          ...(options.model ? { model: options.model } : {}),
          ...(options.builder ? { builder: options.builder } : {}),
          onProgress: progress(ns),
          ...now,
        }),
      );
    }
    for (const dialogue of prepared) {
      const ns = dialogue.write.namespace;
      const result = await commitDialogue(options.store, dialogue, { onProgress: progress(ns) });
      namespaces[ns] = (namespaces[ns] ?? 0) + result.entries;
    }
  }
  const entries = Object.values(namespaces).reduce((sum, n) => sum + n, 0);
  return { namespaces, entries, seconds: Math.round((performance.now() - started) / 10) / 100 };
}

/**
 * The format of `path`: a folder or .md/.markdown/.txt is docs; .jsonl/.ndjson is jsonl; a .json
 * file is LoCoMo when it is a list of samples with `sample_id` and `conversation`, a dialogue when it
 * is `{turns: [...]}` or a list of turns. Anything else asks for --format.
 */
export async function detectFormat(path: string): Promise<IngestFormat> {
  const info = await stat(path).catch(() => undefined);
  if (!info) throw new ValidationError("path", `no such file or folder: ${path}`);
  if (info.isDirectory()) return "docs";
  if (isDocumentFile(path)) return "docs";
  const lower = path.toLowerCase();
  if (lower.endsWith(".jsonl") || lower.endsWith(".ndjson")) return "jsonl";
  const text = await readText(path);
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
  throw new ValidationError("format", `cannot tell the format of ${path}; pass one of: ${INGEST_FORMATS.join(", ")}`);
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
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = isPlainObject(error) && typeof error.code === "string" ? error.code : "";
    throw new ValidationError("path", code === "ENOENT" ? `no such file: ${path}` : code === "EISDIR" ? `${path} is a folder (use --format docs)` : `cannot read ${path}`);
  }
  if (!text.trim()) throw new ValidationError("", `${path} is empty`);
  return text;
}

/** Accepts "locomo" | "jsonl" | "docs" | "dialogue" (for CLI flag validation). */
export const IngestFormatSchema = z.enum(INGEST_FORMATS);
