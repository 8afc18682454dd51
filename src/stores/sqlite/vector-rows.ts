/**
 * Reading a namespace's dense vectors, and what changed in it (entry-changes.ts), for the in-memory vector structures
 * (vector-search.ts). Read-only: every row here is written by the store's own write path and triggers.
 *
 * Whole namespaces are read from vec0's shadow tables (`entry_vectors_chunks`: one row per chunk of
 * 64 slots with its partition key, a validity bitmap and the slots' rowids; `entry_vectors_vector_chunks00`:
 * the chunk's vectors as one float32 blob), not through vec0's own full scan, which looks every row up
 * one at a time (~12 µs each; the shadow tables give 64 vectors per row read). This is sqlite-vec
 * 0.1.9's layout, the version package.json pins; test/stores/vector-index.test.ts checks it against vec0's
 * own answers, so a layout change fails there first.
 *
 * Every vector comes with its vec0 position (chunk, slot), which decides how vec0 orders exact ties
 * (see `vec0TieOrder` in vectors.ts).
 */
import { StoreError } from "../../core/errors.js";
import { EntryChanges } from "./entry-changes.js";
import type { SqliteDatabase } from "./schema.js";
import { vec0TieOrder } from "./vectors.js";

/** One stored vector of a namespace, as vec0 holds it (unit length, float32). */
export interface StoredVector {
  rowid: number;
  /** vec0's tie order of the vector (vectors.ts). */
  order: number;
  vector: Float32Array;
}

/** A page of a namespace's vectors in vec0 order, and where the next page starts. */
export interface VectorPage {
  vectors: StoredVector[];
  /** The last chunk read; pass it back as `afterChunk` for the next page. Undefined when the page is the last. */
  nextAfterChunk: number | undefined;
}

interface ChunkRow {
  chunk_id: number;
  validity: Buffer;
  rowids: Buffer;
  vectors: Buffer;
}
interface PositionRow {
  rowid: number;
  chunk_id: number;
  chunk_offset: number;
  embedding: Buffer;
}

/** The statements of this module, prepared once per store. */
export class VectorRows {
  private readonly statements: ReturnType<typeof prepare>;

  constructor(
    db: SqliteDatabase,
    private readonly dimension: number,
  ) {
    this.statements = prepare(db);
    this.changes = new EntryChanges(db);
  }

  /** The namespace's generation and what changed since one (entry-changes.ts). */
  readonly changes: EntryChanges;

  /** The current vectors of these rowids that are entries of `namespace` (a rowid absent from the answer has none). */
  vectorsOf(namespace: string, rowids: readonly number[]): StoredVector[] {
    if (!rowids.length) return [];
    return this.statements.positions.all(JSON.stringify(rowids), namespace).map((row) => ({
      rowid: row.rowid,
      order: vec0TieOrder(row.chunk_id, row.chunk_offset),
      vector: this.floats(row.embedding, 0, `vector of row ${row.rowid}`),
    }));
  }

  /** Up to `chunks` chunks of the namespace's vectors after chunk `afterChunk` (0 starts at the first). */
  page(namespace: string, afterChunk: number, chunks: number): VectorPage {
    const rows = this.statements.chunks.all(namespace, afterChunk, chunks);
    const vectors: StoredVector[] = [];
    for (const row of rows) this.readChunk(row, vectors);
    const last = rows.at(-1);
    return { vectors, nextAfterChunk: rows.length === chunks && last ? last.chunk_id : undefined };
  }

  private readChunk(row: ChunkRow, into: StoredVector[]): void {
    const slots = row.rowids.byteLength / 8;
    const rowids = new BigInt64Array(row.rowids.buffer.slice(row.rowids.byteOffset, row.rowids.byteOffset + row.rowids.byteLength));
    for (let slot = 0; slot < slots; slot += 1) {
      // The validity bitmap is little-endian by bit: slot i is bit i % 8 of byte i / 8.
      if ((((row.validity[slot >> 3] ?? 0) >> (slot & 7)) & 1) === 0) continue;
      const rowid = Number(rowids[slot]);
      into.push({ rowid, order: vec0TieOrder(row.chunk_id, slot), vector: this.floats(row.vectors, slot, `chunk ${row.chunk_id}`) });
    }
  }

  /** The `slot`-th vector of a float32 blob, copied (the blob's memory belongs to SQLite's row). */
  private floats(blob: Buffer, slot: number, what: string): Float32Array {
    const bytes = this.dimension * 4;
    const start = slot * bytes;
    if (blob.byteLength < start + bytes) throw new StoreError("vectors", `${what} is shorter than ${this.dimension} float32 values`);
    const copy = new Float32Array(this.dimension);
    new Uint8Array(copy.buffer).set(blob.subarray(start, start + bytes));
    return copy;
  }
}

function prepare(db: SqliteDatabase) {
  return {
    // The namespace check re-reads the record of truth: a logged rowid may since belong to another namespace.
    positions: db.prepare<[rowidsJson: string, namespace: string], PositionRow>(
      `SELECT e.rowid AS rowid, r.chunk_id AS chunk_id, r.chunk_offset AS chunk_offset, v.embedding AS embedding
         FROM json_each(?) AS wanted CROSS JOIN entries AS e ON e.rowid = wanted.value
         JOIN entry_vectors_rowids AS r ON r.rowid = e.rowid
         JOIN entry_vectors AS v ON v.rowid = e.rowid
        WHERE e.namespace = ?`,
    ),
    chunks: db.prepare<[namespace: string, afterChunk: number, limit: number], ChunkRow>(
      `SELECT c.chunk_id AS chunk_id, c.validity AS validity, c.rowids AS rowids, v.vectors AS vectors
         FROM entry_vectors_chunks AS c JOIN entry_vectors_vector_chunks00 AS v ON v.rowid = c.chunk_id
        WHERE c.partition00 = ? AND c.chunk_id > ? ORDER BY c.chunk_id LIMIT ?`,
    ),
  };
}
