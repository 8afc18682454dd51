/** The sqlite MemoryStore adapter (better-sqlite3 + FTS5 + sqlite-vec). Implementation in ./sqlite/. */
export { openSqliteStore, SqliteMemoryStore, SqliteStoreOptionsSchema, type SqliteStoreOptions } from "./sqlite/store.js";
