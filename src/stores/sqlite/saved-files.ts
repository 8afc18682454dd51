/**
 * A namespace's in-memory structure saved beside the store file, so that the next opening loads it
 * instead of building it again: the HNSW index (hnsw-index.ts) and the BM25 terms (saved-terms.ts).
 *
 * In a folder of its own per kind, `<key>.<generation>.<extension>` holds the structure and `<key>.json`
 * (the manifest) says which of those files is current and which store state it matches. `<key>` is a
 * hash of the namespace, so any namespace makes a safe file name; the manifest names the namespace
 * itself, so a collision is caught. A save writes the file, flushes it to disk, then replaces the
 * manifest (a rename, atomic): a crash at any point leaves the old manifest naming a whole older file,
 * or the new one naming a whole new file, never one naming a partial file. The manifest holds the
 * file's SHA-256, checked before the file is read.
 *
 * Several processes may save one store's files. Each writes its file under a name of its own, then,
 * holding the store file's write lock (`savedFilesLock`), makes it current unless the current
 * manifest is of a later generation of the same store: a save that was computed before another
 * process erased entries, and finished after that process saved without them, never brings the erased
 * words back.
 */
import { createHash, randomUUID } from "node:crypto";
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { errorMessage, StoreError } from "../../core/errors.js";
import type { SqliteDatabase } from "./schema.js";

/** What every manifest records of its file. */
export interface SavedFile {
  file: string;
  sha256: string;
}

/** What every manifest records of the store state its file matches. */
export interface SavedState {
  storeId: string;
  generation: number;
}

const SavedStateSchema = z.object({ storeId: z.string(), generation: z.number() });

/** Runs a replacement of saved files so that no other process replaces or removes one of the same store meanwhile. */
export type SavedFilesLock = (replace: () => void) => void;

/**
 * The store file's write lock as a SavedFilesLock: every process that saves the store's files takes it
 * (an immediate transaction that writes nothing). Inside a transaction already open on the connection it
 * would be a savepoint, which takes no lock, so it refuses to run there.
 */
export function savedFilesLock(db: SqliteDatabase): SavedFilesLock {
  return (replace) => {
    if (db.inTransaction) throw new StoreError("savedFile", "saved files are replaced outside any transaction, under the store's write lock");
    db.transaction(replace).immediate();
  };
}

/**
 * Saves the namespace's structure as matching `generation`: `contents` are its bytes, or write it to
 * the path given; the file is flushed and, under `lock`, made current by a new manifest (`manifestOf`
 * gives it from the file's name and SHA-256: of the bytes when given, else read back from the file),
 * and the namespace's other files are removed. When the current manifest is of a later generation of
 * the store (another process saved meanwhile), it stays current and this save is dropped: either way,
 * what is saved is at least as current as what was given. One of the same generation is replaced (the
 * same entries, perhaps indexed another way: an index of another scalar kind).
 */
export function saveCurrent(
  folder: string,
  namespace: string,
  generation: number,
  extension: string,
  contents: Buffer | ((path: string) => void),
  manifestOf: (saved: SavedFile) => SavedState,
  lock: SavedFilesLock,
): void {
  mkdirSync(folder, { recursive: true });
  const key = namespaceKey(namespace);
  const file = `${key}.${generation}.${extension}`;
  const temporary = join(folder, `${file}.${uniqueSuffix()}.partial`);
  const manifestTemporary = join(folder, `${key}.json.${uniqueSuffix()}.partial`);
  try {
    if (Buffer.isBuffer(contents)) writeFileSync(temporary, contents);
    else contents(temporary);
    flush(temporary);
    const sha256 = Buffer.isBuffer(contents) ? sha256Of(contents) : fileSha256(temporary);
    const manifest = manifestOf({ file, sha256 });
    writeFileSync(manifestTemporary, JSON.stringify(manifest));
    flush(manifestTemporary);
    lock(() => {
      if (isSupersededBy(parsedJson(join(folder, `${key}.json`), SavedStateSchema), manifest)) return;
      renameSync(temporary, join(folder, file));
      renameSync(manifestTemporary, join(folder, `${key}.json`));
      flush(folder);
      removeOtherFiles(folder, key, file);
    });
  } finally {
    rmSync(temporary, { force: true });
    rmSync(manifestTemporary, { force: true });
  }
}

/** True when `saved` is of the same store as `state` and of a later generation. */
function isSupersededBy(saved: SavedState | undefined, state: SavedState): boolean {
  return saved !== undefined && saved.storeId === state.storeId && saved.generation > state.generation;
}

/** Names a temporary file apart from every other process's and save's. */
function uniqueSuffix(): string {
  return `${process.pid}-${randomUUID().slice(0, 8)}`;
}

/** The namespace's manifest as `schema` reads it; undefined when there is none or it does not parse. */
export function readManifest<S extends z.ZodType>(folder: string, namespace: string, schema: S): z.output<S> | undefined {
  return parsedJson(join(folder, `${namespaceKey(namespace)}.json`), schema);
}

/** The path of a manifest's file when its SHA-256 is still the manifest's; undefined when it is not (or cannot be read). */
export function intactFile(folder: string, saved: SavedFile): string | undefined {
  const path = join(folder, saved.file);
  try {
    return fileSha256(path) === saved.sha256 ? path : undefined;
  } catch {
    return undefined;
  }
}

/** A manifest's file read whole and checked against its SHA-256 in one pass; undefined when it does not match (or cannot be read). */
export function intactBytes(folder: string, saved: SavedFile): Buffer | undefined {
  try {
    const bytes = readFileSync(join(folder, saved.file));
    return sha256Of(bytes) === saved.sha256 ? bytes : undefined;
  } catch {
    return undefined;
  }
}

/** Removes the namespace's files, under `lock` (its manifest first, so no manifest ever names a missing file). */
export function removeSaved(folder: string, namespace: string, lock: SavedFilesLock): void {
  if (!existsSync(folder)) return;
  const key = namespaceKey(namespace);
  lock(() => {
    rmSync(join(folder, `${key}.json`), { force: true });
    removeOtherFiles(folder, key, undefined);
  });
}

/** The namespaces whose manifests in `folder` `schema` reads (each manifest names its namespace). */
export function savedNamespaces<S extends z.ZodType<{ namespace: string }>>(folder: string, schema: S): string[] {
  if (!existsSync(folder)) return [];
  const namespaces: string[] = [];
  for (const name of readdirSync(folder)) {
    // A file that is not a manifest this schema reads is left alone.
    const manifest = name.endsWith(".json") ? parsedJson(join(folder, name), schema) : undefined;
    if (manifest) namespaces.push(manifest.namespace);
  }
  return namespaces;
}

/** A JSON file as `schema` reads it; undefined when it is missing, not JSON, or not of the schema. */
function parsedJson<S extends z.ZodType>(path: string, schema: S): z.output<S> | undefined {
  if (!existsSync(path)) return undefined;
  try {
    const parsed = schema.safeParse(JSON.parse(readFileSync(path, "utf8")));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** A file-name-safe key of a namespace. */
function namespaceKey(namespace: string): string {
  return createHash("sha256").update(namespace).digest("hex").slice(0, 32);
}

/** Bytes hashed per read: the file is never held whole (an index of a million 512-d vectors is 2 GB). */
const HASH_CHUNK_BYTES = 1 << 20;

function sha256Of(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** The SHA-256 of a file, read a chunk at a time. */
function fileSha256(path: string): string {
  const descriptor = openSync(path, "r");
  try {
    const hash = createHash("sha256");
    const chunk = Buffer.allocUnsafe(HASH_CHUNK_BYTES);
    for (let read = readSync(descriptor, chunk); read > 0; read = readSync(descriptor, chunk)) hash.update(chunk.subarray(0, read));
    return hash.digest("hex");
  } finally {
    closeSync(descriptor);
  }
}

/** Flushes a file (or folder) to disk: a rename must never make a file current before its bytes are durable. */
function flush(path: string): void {
  let descriptor: number | undefined;
  try {
    descriptor = openSync(path, "r");
    fsyncSync(descriptor);
  } catch (error) {
    throw new StoreError("savedFile", `cannot flush "${path}" to disk: ${errorMessage(error)}`, { cause: error });
  } finally {
    if (descriptor !== undefined) closeSync(descriptor);
  }
}

/** A partial write this old was left by a crash; a younger one may be another process's save under way. */
const STALE_PARTIAL_MS = 60 * 60 * 1000;

/** Deletes the namespace's files other than `keep`: older generations, and partial writes a crash left. */
function removeOtherFiles(folder: string, key: string, keep: string | undefined): void {
  for (const name of readdirSync(folder)) {
    if (!name.startsWith(`${key}.`) || name === keep || name === `${key}.json`) continue;
    const path = join(folder, name);
    if (name.endsWith(".partial") && !isOlderThan(path, STALE_PARTIAL_MS)) continue;
    rmSync(path, { force: true });
  }
}

function isOlderThan(path: string, ms: number): boolean {
  try {
    return Date.now() - statSync(path).mtimeMs > ms;
  } catch {
    return false;
  }
}
