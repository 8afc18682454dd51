import { readdir, readFile, realpath, stat } from "node:fs/promises";
import path from "node:path";
import { errorMessage, ValidationError } from "../core/errors.js";
import type { MemoryInput } from "../memory/entry.js";
import { writeMemories, type ItemField, type WriteOptions } from "./write-memories.js";
import type { MemoryStore } from "../stores/port.js";
import type { Embedder } from "../text/embedder.js";
import { keywords } from "../text/tokenizer.js";
import { chunkDocument, DEFAULT_CHUNK_CHARS, type DocumentChunk } from "./chunker.js";
import { contentHash, stableId } from "./ids.js";
import { codeFamilies, findNames } from "./names.js";
import { retireFromOrigin, withOrigin } from "./origin.js";
import { derivedList, MAX_DERIVED_KEYWORDS, MAX_DERIVED_NAMES } from "./text-fields.js";

/** File name endings read as documents. */
export const DOCUMENT_EXTENSIONS = [".md", ".markdown", ".txt"] as const;

export interface DocumentIngestOptions {
  /** Target chunk size in characters. Default 800. */
  chunkChars?: number;
  /** Document ids are paths relative to this folder. Default: the folder given, or each file's own folder. */
  baseDir?: string;
  /** Called as the new chunks of all documents are embedded and written, with (chunks done, chunks in total). */
  onProgress?: (done: number, total: number) => void;
  /** Called with the number of new chunks once all are embedded, just before they are written (see WriteOptions). */
  onStore?: (total: number) => void;
  /** Clock for createdAt/updatedAt (tests pin it). */
  now?: number;
  /**
   * The folder or file these documents were read from (see origin.ts). With one, the chunks this
   * origin wrote before that no current document holds (a document removed from the folder) are
   * retired too, and an unchanged document whose chunks another origin (or none) wrote is written
   * again under this one, so it is retired when it later goes.
   */
  origin?: string;
}

/**
 * What happened to each document. `unchanged` ones were left alone (or, with an origin they did not
 * carry yet, written again as they were); `retired` counts removed old chunks.
 */
export interface DocumentIngestResult {
  documents: { documentId: string; version: number; chunks: number; status: "new" | "changed" | "unchanged" }[];
  entries: number;
  retired: number;
}

/** A document found on disk: where it is and the id it is stored under. */
export interface DocumentFile {
  filePath: string;
  documentId: string;
}

/**
 * Ingests Markdown and text documents into `namespace`: each file is cut into chunks (heading path
 * kept), each chunk one entry with source {documentId, version, headingPath}.
 * Change detection is by content: chunk ids derive from (namespace, document id, content hash, chunk
 * number), so an unchanged document (same ids already stored) is skipped, and a changed one gets
 * version + 1 written first and its old chunks deleted after, so no question ever sees two versions
 * side by side for longer than the write, nor a stale chunk after it.
 * All or nothing: every file is read and chunked, and every chunk checked and embedded, before the
 * new chunks of all files are written in one store call; errors name the file (`notes/a.md chunk 3: timestamp`).
 * Old chunks are deleted after that write: should a delete fail, the new versions are in place and
 * the old chunks linger until the next ingest retires them. With an `origin`, so are the chunks of
 * documents that origin no longer holds.
 */
export async function ingestDocuments(
  store: MemoryStore,
  embedder: Embedder,
  namespace: string,
  target: string | readonly string[],
  options: DocumentIngestOptions = {},
): Promise<DocumentIngestResult> {
  const files = await findDocuments(target, options.baseDir);
  const chunkChars = options.chunkChars ?? DEFAULT_CHUNK_CHARS;
  const plans: DocumentPlan[] = [];
  for (const file of files) {
    const [content, info] = await Promise.all([readFile(file.filePath, "utf8"), stat(file.filePath)]);
    plans.push(
      await planDocument(store, namespace, file.documentId, content, {
        chunkChars,
        format: /\.txt$/i.test(file.filePath) ? "text" : "markdown",
        modifiedMs: info.mtimeMs,
        ...(options.now !== undefined ? { now: options.now } : {}),
        ...(options.origin !== undefined ? { origin: options.origin } : {}),
      }),
    );
  }
  const retiredChunks = await writePlans(store, embedder, namespace, plans, options);
  const retiredDocuments = await retireFromOrigin(store, namespace, options.origin, new Set(plans.flatMap((plan) => plan.ids)));
  const entries = plans.reduce((sum, plan) => sum + plan.inputs.length, 0);
  return { documents: plans.map((plan) => plan.document), entries, retired: retiredChunks + retiredDocuments };
}

/** One document's text into the store (see ingestDocuments); exported for callers that hold text, not files. */
export async function ingestDocumentText(
  store: MemoryStore,
  embedder: Embedder,
  namespace: string,
  documentId: string,
  content: string,
  options: DocumentTextOptions = {},
): Promise<{ document: DocumentIngestResult["documents"][number]; retired: number }> {
  const plan = await planDocument(store, namespace, documentId, content, options);
  const retired = await writePlans(store, embedder, namespace, [plan], options);
  return { document: plan.document, retired };
}

interface DocumentTextOptions {
  chunkChars?: number;
  format?: "markdown" | "text";
  modifiedMs?: number;
  now?: number;
}

/** What ingesting one document will do: the chunks to write (none when unchanged) and the old ones to delete. */
interface DocumentPlan {
  document: DocumentIngestResult["documents"][number];
  /** Every chunk id of the document as it is now, written or not. */
  ids: string[];
  inputs: MemoryInput[];
  stale: string[];
}

async function planDocument(
  store: MemoryStore,
  namespace: string,
  documentId: string,
  content: string,
  options: DocumentTextOptions & { origin?: string },
): Promise<DocumentPlan> {
  const chunkChars = options.chunkChars ?? DEFAULT_CHUNK_CHARS;
  const format = options.format ?? "markdown";
  const chunks = chunkDocument(content, { maxChars: chunkChars, format });
  // The chunking settings are part of the hash: re-chunking the same text differently is a new version.
  const hash = contentHash(`${format}\u0000${chunkChars}\u0000${content}`);
  const ids = chunks.map((_, index) => stableId("doc", namespace, documentId, hash, index));

  const existing = await store.documentEntryIds(namespace, documentId);
  const versions = await store.documentVersions(namespace, [documentId]);
  const storedVersion = versions[documentId] ?? 0;
  const timestamp = options.modifiedMs ?? options.now ?? Date.now();
  const memories = (version: number) =>
    chunks.map((chunk, index) => withOrigin(chunkMemory(chunk, ids[index] ?? "", documentId, version, timestamp), options.origin));
  if (sameSet(existing, ids)) {
    const unchanged = { documentId, version: storedVersion, chunks: ids.length, status: "unchanged" as const };
    // Same content, same version; written again only to carry this origin (e.g. chunks from before origins were recorded).
    const owned = options.origin === undefined || (await allFromOrigin(store, namespace, ids, options.origin));
    return { document: unchanged, ids, inputs: owned ? [] : memories(storedVersion), stale: [] };
  }
  const version = storedVersion + 1;
  const fresh = new Set(ids);
  const stale = existing.filter((id) => !fresh.has(id));
  return { document: { documentId, version, chunks: ids.length, status: existing.length > 0 ? "changed" : "new" }, ids, inputs: memories(version), stale };
}

/** True when every one of `ids` is stored (and not expired) with source.origin `origin`. */
async function allFromOrigin(store: MemoryStore, namespace: string, ids: readonly string[], origin: string): Promise<boolean> {
  const stored = await store.get(namespace, ids);
  return stored.length === ids.length && stored.every((entry) => entry.source?.origin === origin);
}

/** Writes every plan's chunks in one all-or-nothing call, then deletes the old chunks; returns how many were deleted. */
async function writePlans(
  store: MemoryStore,
  embedder: Embedder,
  namespace: string,
  plans: readonly DocumentPlan[],
  options: Pick<WriteOptions, "now" | "onProgress" | "onStore">,
): Promise<number> {
  const inputs = plans.flatMap((plan) => plan.inputs);
  if (inputs.length > 0) {
    await writeMemories(store, embedder, namespace, inputs, {
      itemField: chunkField(plans),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      ...(options.onStore ? { onStore: options.onStore } : {}),
      ...(options.now !== undefined ? { now: options.now } : {}),
    });
  }
  let retired = 0;
  for (const plan of plans) if (plan.stale.length > 0) retired += await store.delete(namespace, plan.stale);
  return retired;
}

/** Names item `index` of the combined write by its document: `guide/a.md chunk 3: timestamp`. */
function chunkField(plans: readonly DocumentPlan[]): ItemField {
  const owners = plans.flatMap((plan) => plan.inputs.map((_, chunk) => `${plan.document.documentId} chunk ${chunk + 1}`));
  return (index, field) => {
    const owner = owners[index] ?? `chunk ${index + 1}`;
    return field ? `${owner}: ${field}` : owner;
  };
}

function chunkMemory(chunk: DocumentChunk, id: string, documentId: string, version: number, timestamp: number): MemoryInput {
  const heading = chunk.headingPath.join(" > ");
  const names = findNames(chunk.body);
  const memory: MemoryInput = {
    id,
    // The heading path leads the text so both the dense and the lexical view see the chunk's context.
    text: heading ? `${heading}\n\n${chunk.body}` : chunk.body,
    keywords: derivedList([...chunk.headingPath.flatMap((title) => keywords(title)), ...keywords(chunk.body), ...codeFamilies(names.entities)], MAX_DERIVED_KEYWORDS),
    timestamp,
    persons: derivedList(names.persons, MAX_DERIVED_NAMES),
    entities: derivedList(names.entities, MAX_DERIVED_NAMES),
    source: { documentId, version, headingPath: chunk.headingPath.slice(0, 32) },
  };
  const title = chunk.headingPath[0];
  if (title) memory.topic = title.slice(0, 256);
  return memory;
}

/**
 * The documents under `target`: a folder is searched recursively (hidden folders and node_modules
 * skipped) for .md, .markdown and .txt files; files are taken as given. Sorted by document id.
 */
export async function findDocuments(target: string | readonly string[], baseDir?: string): Promise<DocumentFile[]> {
  const targets = typeof target === "string" ? [target] : [...target];
  if (targets.length === 0) throw new ValidationError("paths", "no document paths given");
  const found = new Map<string, DocumentFile>();
  for (const given of targets) {
    const info = await stat(given).catch(() => undefined);
    if (!info) throw new ValidationError("paths", `no such file or folder: ${given}`);
    if (info.isDirectory()) {
      const root = baseDir ?? given;
      for (const filePath of await walk(given)) addDocument(found, filePath, root);
    } else if (isDocumentFile(given)) {
      addDocument(found, given, baseDir ?? path.dirname(given));
    } else {
      throw new ValidationError("paths", `not a document (expected ${DOCUMENT_EXTENSIONS.join(", ")}): ${given}`);
    }
  }
  if (found.size === 0) throw new ValidationError("paths", `no ${DOCUMENT_EXTENSIONS.join(", ")} files under ${targets.join(", ")}`);
  return [...found.values()].sort((a, b) => a.documentId.localeCompare(b.documentId));
}

function addDocument(found: Map<string, DocumentFile>, filePath: string, root: string): void {
  const documentId = path.relative(root, filePath).split(path.sep).join("/");
  const existing = found.get(documentId);
  if (existing && path.resolve(existing.filePath) !== path.resolve(filePath)) {
    throw new ValidationError("paths", `two files would share document id "${documentId}": ${existing.filePath} and ${filePath}`);
  }
  found.set(documentId, { filePath, documentId });
}

/** True when the file's extension is one of DOCUMENT_EXTENSIONS (any case). */
export function isDocumentFile(filePath: string): boolean {
  const lower = filePath.toLowerCase();
  return DOCUMENT_EXTENSIONS.some((extension) => lower.endsWith(extension));
}

/**
 * The document files under `folder`. Symbolic links are followed, to files and to folders (a document
 * replaced by a link to its new place is still a document, not one removed from the folder); a folder
 * already walked (a link back up the tree) is not walked again. A link to nothing is refused by name.
 */
async function walk(folder: string, walked = new Set<string>()): Promise<string[]> {
  const real = await realpath(folder);
  if (walked.has(real)) return [];
  walked.add(real);
  const files: string[] = [];
  for (const entry of await readdir(folder, { withFileTypes: true })) {
    if (entry.name.startsWith(".") || entry.name === "node_modules") continue;
    const full = path.join(folder, entry.name);
    const kind = entry.isSymbolicLink() ? await linkedKind(full) : entry;
    if (kind.isDirectory()) files.push(...(await walk(full, walked)));
    else if (kind.isFile() && isDocumentFile(entry.name)) files.push(full);
  }
  return files;
}

/** What a symbolic link points at. */
async function linkedKind(link: string): Promise<{ isFile(): boolean; isDirectory(): boolean }> {
  try {
    return await stat(link);
  } catch (error) {
    throw new ValidationError("paths", `${link} is a symbolic link to nothing (${errorMessage(error)})`);
  }
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const set = new Set(a);
  return b.every((item) => set.has(item));
}
