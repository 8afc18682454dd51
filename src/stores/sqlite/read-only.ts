/**
 * Connecting to a store file without writing to it, and whether this process could write it.
 *
 * What SQLite needs to read a WAL-mode file (every store file is one) without writing, as measured here
 * with better-sqlite3 12.11 (SQLite 3.53) run as an unprivileged user, and as sqlite.org/wal.html
 * ("Read-Only Databases", SQLite >= 3.22) describes:
 * - A `readonly` connection still creates `-wal` and `-shm` beside the file when they are absent, and
 *   leaves them behind when it closes (only a writer's last close removes them).
 * - So in a read-only folder without them it cannot read at all: SQLITE_READONLY_DIRECTORY, with
 *   `readonly` or without, with `locking_mode=EXCLUSIVE` too. SQLite's remedy is the `immutable=1` URI
 *   parameter, which better-sqlite3 cannot pass: it opens without SQLITE_OPEN_URI and turns URIs on
 *   only process-wide (SQLITE_USE_URI=1 in the environment before its addon loads), which a library
 *   must not impose on the process.
 * - A read-only file (chmod 444) in a writable folder can be read, but the `-shm` SQLite creates copies
 *   the file's mode: it stays read-only after the user makes the store writable again, and every write
 *   then fails (SQLITE_READONLY) until someone deletes it.
 * - When `-wal` and `-shm` exist (a writer has the store open, or one crashed), a `readonly` connection
 *   reads through them, in a read-only folder and with a read-only `-shm` too.
 *
 * Hence two ways in. In place when a `-wal` exists or this process could write both the file and its
 * folder: it sees a running writer's commits. With a `-wal` (a writer has it open) the connection is
 * `readonly` and what it reads through is the writer's; without one, it is a writable connection made
 * `query_only`, which writes nothing to the file and, as the last connection to close, removes the
 * `-wal` and `-shm` it created, so a read leaves the folder as it found it. Otherwise (no writer, and a
 * file or folder this process cannot write) from an image: the file is read into memory and opened
 * there (sqlite3_deserialize), so nothing is ever created beside it. The image is a snapshot taken at opening; it costs the file's size in memory (about
 * twice while it opens) and files over 2 GiB cannot be read this way (Node's readFileSync limit).
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import Database from "better-sqlite3";
import { errorMessage, StoreError } from "../../core/errors.js";
import { canWriteStoreFile } from "./store-file.js";

/** How a read-only connection reaches the file: the file itself, or an image of it in memory. */
export type ReadOnlySource = "file" | "image";

/** The file itself when a writer may have it open (a `-wal` exists) or this process could write it and its folder. */
export function readOnlySource(path: string): ReadOnlySource {
  return existsSync(walFile(path)) || canWriteStoreFile(path) ? "file" : "image";
}

/** A read-only connection to an existing file, reached the way `source` says (see the module comment). */
export function connectReadOnly(path: string, source: ReadOnlySource = readOnlySource(path)): Database.Database {
  const inPlace = source === "file";
  try {
    if (!inPlace) return new Database(readImage(path), { readonly: true });
    // No writer has it open, and this process may write the file and its folder: a query-only writable
    // connection reads as a `readonly` one would, and, the last to close, removes the -wal and -shm it
    // made, where a `readonly` one would leave them behind.
    if (!existsSync(walFile(path)) && canWriteStoreFile(path)) {
      const db = new Database(path, { fileMustExist: true });
      db.pragma("query_only = ON");
      return db;
    }
    return new Database(path, { readonly: true, fileMustExist: true });
  } catch (error) {
    if (error instanceof StoreError) throw error;
    const how = inPlace ? "read-only" : "into memory (its folder or the file is not writable, and no writer has it open)";
    throw new StoreError("open", `cannot open sqlite database "${path}" ${how}: ${errorMessage(error)}`, { cause: error });
  }
}

function walFile(path: string): string {
  return `${path}-wal`;
}

/** Offset of the header's write and read format versions: 2 means WAL, 1 the rollback journal. */
const FORMAT_VERSION_OFFSETS = [18, 19] as const;

/**
 * The file's bytes, taken while no writer touched it, with the header marking a rollback-journal
 * database: a deserialized database cannot be in WAL mode (SQLITE_CANTOPEN), and only those two
 * bytes say it is; the pages are the same.
 */
function readImage(path: string): Buffer {
  const before = statSync(path);
  const image = readFileSync(path);
  const after = statSync(path);
  // A writer that opened meanwhile creates a -wal and, on checkpoint, rewrites pages: the copy may mix two states.
  if (before.mtimeMs !== after.mtimeMs || before.size !== after.size || existsSync(walFile(path))) {
    throw new StoreError("open", `"${path}" changed while it was being read; try again`);
  }
  for (const offset of FORMAT_VERSION_OFFSETS) if (image[offset] === 2) image[offset] = 1;
  return image;
}
