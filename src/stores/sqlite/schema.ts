/**
 * The sqlite store's on-disk layout and its bootstrap: opening the database, loading sqlite-vec,
 * creating or migrating the schema, and checking the embedding spec recorded in `meta`.
 *
 * Tables (all rows of an entry share its `entries.rowid`):
 * - `entries`: one narrow row per (namespace, id) with the columns filters and document lookups need
 *   (timestamp, document id and version, expiry); `entry_bodies`: the whole entry as JSON, the record of truth.
 * - `entry_names`: one row per person, entity and location of an entry, lower-cased, for the
 *   symbolic filters (an index, not a JSON scan, so 100k entries stay fast); `namespace_names`: the
 *   distinct names per namespace with their entry counts (the vocabulary), kept by triggers.
 * - `entry_terms` (FTS5, contentless): the project's own tokens of the text and of the tags, and a
 *   term naming the namespace, for BM25.
 * - `entry_vectors` (sqlite-vec vec0): the dense vector, unit-normalised, partitioned by namespace.
 * - `namespace_settings`, `meta`.
 * - `vector_generations`, `vector_changes`: which entries of a namespace changed, in order, kept by
 *   triggers on `entries` (see vectorBookkeepingSql). What the in-memory vector structures
 *   (vector-search.ts) check themselves against.
 *
 * - `entry_supersedes`: one row per id an entry supersedes (namespace, that id, the entry's rowid), so
 *   "which entries supersede X" is an index lookup, not a JSON scan.
 *
 * Versions: 1 is the layout of `schemaV1`; 2 adds `entries.expires_at_ms` and its pruning index; 3 adds
 * `entry_supersedes` (empty in a migrated store: no earlier version wrote supersessions); 4 gives the
 * FTS5 rows of hyphen-joined identifiers their parts' terms (the layout is 3's); 5 indexes the bodies
 * by their source's origin (`entry_bodies_by_origin`; a file without it reads the same). A fresh
 * database is built as version 1 and migrated like an old one, so both paths give the same layout.
 * The vector bookkeeping is no version step: it is purely additive (nothing older reads it), created when
 * absent at every writable opening, and kept by triggers, so an older recallgraph writing the file keeps
 * it too. A store without it (opened read-only before any writable opening of this version) is searched
 * through sqlite-vec alone.
 *
 * A read-only opening (read-only.ts says how SQLite lets a WAL file be read without writing) checks the
 * same meta rows but creates and migrates nothing: an absent store, or one older than the layout this
 * code reads (READ_ONLY_FROM_VERSION), is a ReadOnlyStoreError.
 */
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import * as sqliteVec from "sqlite-vec";
import { z } from "zod";
import { EmbedderMismatchError, errorMessage, ReadOnlyStoreError, RecallGraphError, StoreError, ValidationError } from "../../core/errors.js";
import type { EmbeddingSpec } from "../../text/embedder.js";
import { addIdentifierParts } from "./identifier-parts.js";
import { ORIGIN_LEASES_SQL } from "./origin-leases.js";
import { connectReadOnly } from "./read-only.js";
import { canWriteStoreFile } from "./store-file.js";

export type SqliteDatabase = Database.Database;

/** Version of the layout below. A database written by a newer layout is refused, an older one migrated. */
export const SCHEMA_VERSION = 5;

/**
 * Rows per vec0 chunk. vec0 allocates whole chunks per partition (namespace), and its KNN cost grows
 * with chunk size for large k: 64 keeps a one-entry namespace at 128 KiB of 512-d vectors instead of
 * the default 1024-row chunk's 2 MiB, and measured as fast as 1024 for k = 10 at 100k rows.
 */
export const VECTOR_CHUNK_ROWS = 64;

/**
 * How many changes per namespace `vector_changes` keeps. An in-memory vector structure that fell further
 * behind (a saved index after a crash, another process's big batch) is rebuilt instead of caught up.
 * 100k rows of (namespace, generation, rowid) are a few MB, next to the 200 MB of vectors they describe.
 */
export const VECTOR_CHANGE_WINDOW = 100_000;

/**
 * BM25 column weights of `entry_terms` (text, tags). A tag weighs what a word of the text weighs, as in
 * Qdrant's one sparse field, so both stores rank alike. Counting tags double ranked worse on LoCoMo
 * (recall@5 -0.007 with USE-lite, p = 0.04; recall@10 -0.004 with MiniLM, p = 0.03) and SciFact
 * (nDCG@10 -0.003 with USE-lite, p < 0.001), better on BEAM (recall@5 +0.016 with MiniLM, p = 0.03):
 * docs/experiments.md has every set's figures.
 */
export const BM25_TEXT_WEIGHT = 1.0;
export const BM25_TAGS_WEIGHT = 1.0;

/**
 * The memory map through which sqlite-vec's full scans read the vectors, when it scans them itself (see
 * `mapForVectorScans`); a ceiling, not an allocation.
 */
const MMAP_BYTES = 1 << 30;
const CACHE_KIB = 32 * 1024;
const BUSY_TIMEOUT_MS = 5_000;

/** The version-1 layout, the base every migration starts from. */
function schemaV1(dimension: number): string {
  return `
    -- Narrow on purpose: filters and joins walk this table; the entry itself lives in entry_bodies.
    CREATE TABLE entries (
      rowid INTEGER PRIMARY KEY,
      namespace TEXT NOT NULL,
      id TEXT NOT NULL,
      timestamp_ms INTEGER NOT NULL,
      document_id TEXT,
      document_version INTEGER,
      UNIQUE (namespace, id)
    );
    CREATE INDEX entries_by_time ON entries (namespace, timestamp_ms);
    CREATE INDEX entries_by_document ON entries (namespace, document_id, document_version) WHERE document_id IS NOT NULL;

    -- The whole entry as JSON, read only for the k rows a call returns.
    CREATE TABLE entry_bodies (
      rowid INTEGER PRIMARY KEY,
      entry_json TEXT NOT NULL
    );

    CREATE TABLE entry_names (
      namespace TEXT NOT NULL,
      kind TEXT NOT NULL CHECK (kind IN ('person', 'entity', 'location')),
      name_lower TEXT NOT NULL,
      entry_rowid INTEGER NOT NULL,
      name TEXT NOT NULL,
      PRIMARY KEY (namespace, kind, name_lower, entry_rowid)
    ) WITHOUT ROWID;
    CREATE INDEX entry_names_by_entry ON entry_names (entry_rowid);

    -- The distinct names of each namespace with how many entries carry them, kept by triggers so no
    -- write path can forget it: the vocabulary and the location substring scan read tens of rows, not 100k.
    CREATE TABLE namespace_names (
      namespace TEXT NOT NULL,
      kind TEXT NOT NULL,
      name_lower TEXT NOT NULL,
      name TEXT NOT NULL,
      entry_count INTEGER NOT NULL,
      PRIMARY KEY (namespace, kind, name_lower)
    ) WITHOUT ROWID;
    CREATE TRIGGER entry_names_counted AFTER INSERT ON entry_names BEGIN
      INSERT INTO namespace_names (namespace, kind, name_lower, name, entry_count)
      VALUES (NEW.namespace, NEW.kind, NEW.name_lower, NEW.name, 1)
      ON CONFLICT (namespace, kind, name_lower) DO UPDATE SET entry_count = entry_count + 1;
    END;
    CREATE TRIGGER entry_names_uncounted AFTER DELETE ON entry_names BEGIN
      UPDATE namespace_names SET entry_count = entry_count - 1
       WHERE namespace = OLD.namespace AND kind = OLD.kind AND name_lower = OLD.name_lower;
      DELETE FROM namespace_names
       WHERE namespace = OLD.namespace AND kind = OLD.kind AND name_lower = OLD.name_lower AND entry_count <= 0;
    END;

    -- Contentless: the tokens are derived from entry_bodies, storing them twice buys nothing.
    -- The ascii tokenizer splits only on ASCII characters other than letters, digits and _ . @ -, and
    -- folds only ASCII case: every token of src/text/tokenizer.ts passes through as exactly one term.
    -- namespace_term holds one term naming the namespace (fts-terms.ts: namespaceTerm).
    CREATE VIRTUAL TABLE entry_terms USING fts5 (
      namespace_term, text_terms, tag_terms,
      tokenize = "ascii tokenchars '_.@-'",
      content = '', contentless_delete = 1
    );

    CREATE VIRTUAL TABLE entry_vectors USING vec0 (
      namespace TEXT PARTITION KEY,
      embedding float[${dimension}],
      chunk_size = ${VECTOR_CHUNK_ROWS}
    );

    CREATE TABLE namespace_settings (
      namespace TEXT PRIMARY KEY,
      settings_json TEXT NOT NULL
    );
  `;
}

/**
 * A schema step: SQL that changes the tables, SQL that only adds indexes (a file without them answers
 * the same, more slowly), or a rewrite of rows the tables already hold.
 */
type MigrationStep = { tables: string } | { indexes: string } | { rows: (db: SqliteDatabase) => void };

/**
 * The origin of an entry's body (`source.origin`), as the origin index and its lookup spell it. A body
 * that is not JSON has none: an index expression that failed on it would fail its write and the step.
 */
export const ORIGIN_OF_BODY = "(CASE WHEN json_valid(entry_json) THEN json_extract(entry_json, '$.source.origin') END)";

/**
 * Each step takes the layout from the version before to its key, run inside the opening transaction.
 * v2: the expiry column (NULL for every existing entry: version 1 had no expiry) and a partial index
 * holding only expiring entries, which pruning and the expired-entry lookups of the reads walk.
 * v3: the supersession table, looked up by (namespace, superseded id) and cleared by the entry's rowid.
 * v4: no new table: the FTS5 rows of entries holding a hyphen-joined identifier gain its parts' terms
 * (identifier-parts.ts), so FTS5 ranks as the in-memory terms do.
 * v5: an index of the entries by the source an ingest read them from, so re-ingesting a source finds
 * what it wrote without reading the namespace (read from the body: no column to keep in step).
 */
const MIGRATIONS: Readonly<Record<number, MigrationStep>> = {
  2: {
    tables: `
    ALTER TABLE entries ADD COLUMN expires_at_ms INTEGER;
    CREATE INDEX entries_expiring ON entries (namespace, expires_at_ms) WHERE expires_at_ms IS NOT NULL;
  `,
  },
  // The superseded id is kept as written, not as a rowid: it may name a memory not stored (yet).
  3: {
    tables: `
    CREATE TABLE entry_supersedes (
      namespace TEXT NOT NULL,
      superseded_id TEXT NOT NULL,
      entry_rowid INTEGER NOT NULL,
      PRIMARY KEY (namespace, superseded_id, entry_rowid)
    ) WITHOUT ROWID;
    CREATE INDEX entry_supersedes_by_entry ON entry_supersedes (entry_rowid);
  `,
  },
  4: { rows: addIdentifierParts },
  5: {
    indexes: `
    CREATE INDEX IF NOT EXISTS entry_bodies_by_origin ON entry_bodies (${ORIGIN_OF_BODY}) WHERE ${ORIGIN_OF_BODY} IS NOT NULL;
  `,
  },
};

/**
 * The oldest version a read-only opening reads as it is: the last one whose step changed the tables.
 * A later step that only rewrote rows (4: FTS5 terms) or added indexes (5: by origin) leaves an older
 * file readable, answering as its version did (a version-3 file's FTS5 rows find an identifier whole,
 * not by its parts; a version-4 file finds a source's entries by reading every body).
 */
export const READ_ONLY_FROM_VERSION = Math.max(
  1,
  ...Object.entries(MIGRATIONS)
    .filter(([, step]) => "tables" in step)
    .map(([version]) => Number(version)),
);

/**
 * The change log of each namespace's entries, written by triggers in the transaction that writes the
 * rows, so no write path (nor an older recallgraph) can skip it: every insert, update or delete of an
 * `entries` row bumps the namespace's generation and logs the rowid under the new generation, and
 * entries older than the window are pruned as new ones arrive. The generation never goes back, not even
 * when a namespace is cleared: a structure built at generation g matches the store exactly when the
 * store's generation is still g, and can be brought up to date by re-reading the rowids logged after g.
 */
function vectorBookkeepingSql(): string {
  const logged = (row: "NEW" | "OLD", event: "INSERT" | "UPDATE" | "DELETE"): string => `
    CREATE TRIGGER IF NOT EXISTS entries_logged_${event.toLowerCase()} AFTER ${event} ON entries BEGIN
      INSERT INTO vector_generations (namespace, generation) VALUES (${row}.namespace, 1)
        ON CONFLICT (namespace) DO UPDATE SET generation = generation + 1;
      INSERT INTO vector_changes (namespace, generation, entry_rowid)
        SELECT ${row}.namespace, generation, ${row}.rowid FROM vector_generations WHERE namespace = ${row}.namespace;
      DELETE FROM vector_changes WHERE namespace = ${row}.namespace
        AND generation <= (SELECT generation FROM vector_generations WHERE namespace = ${row}.namespace) - ${VECTOR_CHANGE_WINDOW};
    END;`;
  return `
    CREATE TABLE IF NOT EXISTS vector_generations (
      namespace TEXT PRIMARY KEY,
      generation INTEGER NOT NULL
    ) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS vector_changes (
      namespace TEXT NOT NULL,
      generation INTEGER NOT NULL,
      entry_rowid INTEGER NOT NULL,
      PRIMARY KEY (namespace, generation)
    ) WITHOUT ROWID;
    ${logged("NEW", "INSERT")}
    ${logged("NEW", "UPDATE")}
    ${logged("OLD", "DELETE")}
  `;
}

/** True when the file has the vector bookkeeping (always, once opened writable by this version). */
export function hasVectorBookkeeping(db: SqliteDatabase): boolean {
  return db.prepare("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN ('vector_generations', 'vector_changes')").pluck().get() === 2;
}

/** A random id naming this store file, written once: index files beside it record it, so a replaced file never matches them. */
function ensureStoreId(db: SqliteDatabase): void {
  db.prepare("INSERT OR IGNORE INTO meta (key, value) VALUES ('store_id', ?)").run(randomUUID());
}

/** The store file's id (see ensureStoreId); undefined in a file no writable opening of this version has touched. */
export function storeId(db: SqliteDatabase): string | undefined {
  const value: unknown = db.prepare("SELECT value FROM meta WHERE key = 'store_id'").pluck().get();
  return typeof value === "string" ? value : undefined;
}

function migrate(db: SqliteDatabase, from: number): void {
  for (let version = from + 1; version <= SCHEMA_VERSION; version += 1) {
    const step = MIGRATIONS[version];
    if (step === undefined) throw new StoreError("open", `no migration from schema version ${version - 1} to ${version}`);
    if ("tables" in step) db.exec(step.tables);
    else if ("indexes" in step) db.exec(step.indexes);
    else step.rows(db);
  }
  if (from < SCHEMA_VERSION) db.prepare("UPDATE meta SET value = ? WHERE key = 'schema_version'").run(String(SCHEMA_VERSION));
}

/**
 * Creates the version-1 layout and its meta rows (recording version 1) in an empty database with
 * sqlite-vec loaded: the start of every fresh store, and how the tests make a file of recallgraph before expiry.
 */
export function createSchemaV1(db: SqliteDatabase, embedding: EmbeddingSpec): void {
  db.exec("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
  db.exec(schemaV1(embedding.dimension));
  const write = db.prepare("INSERT INTO meta (key, value) VALUES (?, ?)");
  write.run("schema_version", "1");
  write.run("embedding_model", embedding.model);
  write.run("embedding_dimension", String(embedding.dimension));
}

const MetaSchema = z.object({
  schema_version: z.coerce.number().int().min(1),
  embedding_model: z.string().min(1),
  embedding_dimension: z.coerce.number().int().min(1),
});
type Meta = z.infer<typeof MetaSchema>;

export interface OpenedDatabase {
  db: SqliteDatabase;
  /** Empty for `:memory:`. */
  file: string;
}

/**
 * Reads the file through a memory map: for a store whose dense searches are sqlite-vec's full scans
 * (no usearch), which then read every vector from the map instead of copying each page into SQLite's
 * cache. Not otherwise: every page read through the map stays in the process's resident memory (a
 * whole 100k-entry file, 280 MB, once its vectors and texts have been read into memory), while the few
 * rows a search loads cost the same either way (measured at 100k entries: the same CPU time per question).
 * A namespace beyond the vector cache's budget is then scanned by sqlite-vec through SQLite's page cache.
 */
export function mapForVectorScans(db: SqliteDatabase, file: string): void {
  if (file) db.pragma(`mmap_size = ${MMAP_BYTES}`);
}

export interface OpenDatabaseOptions {
  /** Connect without writing anything: no schema creation or migration, no journal-mode switch (see read-only.ts). */
  readOnly?: boolean;
}

/**
 * Opens the database at `path`, loads sqlite-vec, applies pragmas and checks the recorded embedding
 * spec. Writable (the default): creates the file and schema when absent and migrates an older one.
 * Read-only: the file must hold a store of the current schema version, and nothing is written.
 */
export function openDatabase(path: string, embedding: EmbeddingSpec, options: OpenDatabaseOptions = {}): OpenedDatabase {
  const inMemory = path === ":memory:";
  const readOnly = options.readOnly === true;
  const db = readOnly ? connectExisting(path) : connectWritable(path, inMemory);
  try {
    sqliteVec.load(db);
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    if (!inMemory && !readOnly) {
      const mode = db.pragma("journal_mode = WAL", { simple: true });
      if (String(mode).toLowerCase() !== "wal") throw new StoreError("open", `"${path}": could not switch to WAL mode (got ${String(mode)})`);
      // WAL + NORMAL: every commit is atomic and a crash never corrupts; a power cut may lose the last commits.
      db.pragma("synchronous = NORMAL");
      // A forgotten memory is erased, not only unlinked: freed space is overwritten with zeros (per connection).
      db.pragma("secure_delete = ON");
    }
    db.pragma(`cache_size = -${CACHE_KIB}`);
    if (readOnly) checkSchema(db, embedding);
    else ensureSchema(db, embedding);
    return { db, file: inMemory ? "" : path };
  } catch (error) {
    db.close();
    throw openFailure(path, error, readOnly);
  }
}

function connectWritable(path: string, inMemory: boolean): SqliteDatabase {
  // Checked first: SQLite would open such a file anyway, fail only at the first write, and leave a -shm
  // with the file's read-only mode behind, which keeps refusing writes once the file is writable again.
  if (!inMemory && existsSync(path) && !canWriteStoreFile(path)) throw cannotWrite(path);
  try {
    // A store path like ./.recallgraph/memory.db should work on a fresh checkout.
    if (!inMemory) mkdirSync(dirname(path), { recursive: true });
    return new Database(path);
  } catch (error) {
    throw new StoreError("open", `cannot open sqlite database "${path}": ${errorMessage(error)}`, { cause: error });
  }
}

function connectExisting(path: string): SqliteDatabase {
  if (path === ":memory:") throw new ValidationError("path", "a read-only store needs a file: :memory: starts empty and could never be written");
  if (!existsSync(path)) throw new ReadOnlyStoreError("open", `no sqlite store at "${path}", and a read-only store is never created`);
  return connectReadOnly(path);
}

/**
 * Our own errors pass as they are. A writable opening that SQLite refuses to write says so, and how
 * to read the store anyway.
 */
function openFailure(path: string, error: unknown, readOnly: boolean): RecallGraphError {
  if (error instanceof RecallGraphError) return error;
  // What the permission check cannot see, such as a read-only mount.
  if (!readOnly && error instanceof Database.SqliteError && error.code.startsWith("SQLITE_READONLY")) return cannotWrite(path);
  return new StoreError("open", `"${path}": ${errorMessage(error)}`, { cause: error });
}

function cannotWrite(path: string): ReadOnlyStoreError {
  return new ReadOnlyStoreError("open", `"${path}" cannot be written by this process (the file or its folder is read-only); open it read-only to read it`);
}

function ensureSchema(db: SqliteDatabase, embedding: EmbeddingSpec): void {
  // IMMEDIATE: two processes opening a fresh file at once must not both create the schema.
  db.transaction(() => {
    const meta = readMeta(db);
    if (meta === undefined) {
      refuseForeignTables(db);
      createSchemaV1(db, embedding);
      migrate(db, 1);
    } else {
      checkMeta(meta, embedding);
      // In this same transaction: a failed step leaves the file at its old version, whole.
      migrate(db, meta.schema_version);
    }
    db.exec(vectorBookkeepingSql());
    db.exec(ORIGIN_LEASES_SQL);
    ensureStoreId(db);
    ensureSecureDelete(db);
  }).immediate();
}

/**
 * FTS5 removes a deleted row's terms from its index only with its `secure-delete` option (a setting the
 * table keeps); otherwise a forgotten memory's words stay in the index segments until a merge.
 */
function ensureSecureDelete(db: SqliteDatabase): void {
  const current: unknown = db.prepare("SELECT v FROM entry_terms_config WHERE k = 'secure-delete'").pluck().get();
  if (current !== 1) db.exec("INSERT INTO entry_terms (entry_terms, rank) VALUES ('secure-delete', 1)");
}

/** The read-only counterpart of ensureSchema: what it would create or migrate is refused instead. */
function checkSchema(db: SqliteDatabase, embedding: EmbeddingSpec): void {
  const meta = readMeta(db);
  if (meta === undefined) {
    refuseForeignTables(db);
    throw new ReadOnlyStoreError("open", "the file holds no recallgraph store yet, and a read-only store is never created");
  }
  checkMeta(meta, embedding);
  if (meta.schema_version < READ_ONLY_FROM_VERSION) {
    throw new ReadOnlyStoreError(
      "migrate",
      `the store has schema version ${meta.schema_version} and this recallgraph reads version ${READ_ONLY_FROM_VERSION} or later without migrating: ` +
        "open it once writable (without readOnly, --read-only or RECALLGRAPH_READ_ONLY) to migrate it, then read-only again",
    );
  }
}

/** The recorded meta rows, or undefined when the file has no meta table (a fresh or a foreign database). */
function readMeta(db: SqliteDatabase): Meta | undefined {
  const hasMeta = db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'meta'").get() !== undefined;
  if (!hasMeta) return undefined;
  const rows = db.prepare("SELECT key, value FROM meta").all() as { key: string; value: string }[];
  const meta = MetaSchema.safeParse(Object.fromEntries(rows.map((row) => [row.key, row.value])));
  if (!meta.success) throw new StoreError("open", "the meta table is incomplete or corrupt (schema version or embedding spec missing)");
  return meta.data;
}

function refuseForeignTables(db: SqliteDatabase): void {
  const userTables = db.prepare("SELECT count(*) AS n FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").get() as { n: number };
  if (userTables.n > 0) throw new StoreError("open", "the database has tables but no recallgraph meta table: it is not a recallgraph store");
}

/** A store this code can read, built by this embedder. */
function checkMeta(meta: Meta, embedding: EmbeddingSpec): void {
  if (meta.schema_version > SCHEMA_VERSION) {
    throw new StoreError("open", `the store has schema version ${meta.schema_version}, this recallgraph reads up to ${SCHEMA_VERSION}: upgrade recallgraph`);
  }
  const stored = { model: meta.embedding_model, dimension: meta.embedding_dimension };
  if (stored.model !== embedding.model || stored.dimension !== embedding.dimension) throw new EmbedderMismatchError(stored, embedding);
}
