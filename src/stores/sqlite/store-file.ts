/**
 * A sqlite store's file on disk: whether it is there, whether this process could write it, the folders
 * beside it, and undoing an opening that created it. Apart from the database's modules, so that deciding
 * how to open a store (and the command line's help) loads none of them.
 */
import { accessSync, constants, existsSync } from "node:fs";
import { rm, rmdir } from "node:fs/promises";
import { dirname } from "node:path";

/** Whether a store at `path` is yet to be created: a file that is not there (never `:memory:`). */
export function storeFileMissing(path: string): boolean {
  return path !== ":memory:" && !existsSync(path);
}

/** True when this process may write both the file and its folder (SQLite creates `-wal` and `-shm` in the folder). */
export function canWriteStoreFile(path: string): boolean {
  return isWritable(path) && isWritable(dirname(path));
}

function isWritable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** The folder beside a store file where its namespaces' HNSW indexes are saved (hnsw-index.ts). */
export function indexFolder(storeFile: string): string {
  return `${storeFile}.vectors`;
}

/** The folder beside a store file where its namespaces' BM25 terms are saved (saved-terms.ts). */
export function termsFolder(storeFile: string): string {
  return `${storeFile}.terms`;
}

/**
 * For a store file that does not exist yet, a function that removes what opening and using it creates
 * (the file, its WAL and shared-memory files, the folders of what it saved, and the folder if it was
 * made for it); for any other, undefined.
 */
export function storeFileRemover(path: string): (() => Promise<void>) | undefined {
  if (!storeFileMissing(path)) return undefined;
  const folder = dirname(path);
  const folderExisted = existsSync(folder);
  return async () => {
    await Promise.all(["", "-wal", "-shm"].map((suffix) => rm(`${path}${suffix}`, { force: true })));
    await Promise.all([indexFolder(path), termsFolder(path)].map((saved) => rm(saved, { recursive: true, force: true })));
    // Only when empty: anything else in it is not this run's to remove.
    if (!folderExisted) await rmdir(folder).catch(() => undefined);
  };
}
