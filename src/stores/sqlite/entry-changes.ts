/**
 * The change log of each namespace's entries (schema.ts, `vector_generations` / `vector_changes`, kept
 * by triggers on `entries`), as the in-memory structures beside the store read it to stay consistent
 * with the file: the dense vectors' copies and indexes (vector-search.ts) and the lexical terms
 * (lexical-index.ts). Read-only.
 */
import { RecentMap } from "../../core/recent-map.js";
import type { SqliteDatabase } from "./schema.js";

/** Namespaces whose entry count is kept, each for the generation it was counted at. */
const COUNTS_KEPT = 1_000;

export class EntryChanges {
  private readonly statements: ReturnType<typeof prepare>;
  /** Each namespace's entry count, with the generation it was counted at. */
  private readonly counts = new RecentMap<string, { generation: number; count: number }>(COUNTS_KEPT);

  constructor(private readonly db: SqliteDatabase) {
    this.statements = prepare(db);
  }

  /** The namespace's generation: bumped by every change of its entries, 0 before the first. */
  generation(namespace: string): number {
    return this.statements.generation.get(namespace) ?? 0;
  }

  /**
   * How many entries the namespace holds, counted again only when its generation moved: a count walks
   * the namespace's index (~3 ms at 100k entries, ~20 ms at 1M), and every filtered dense search asks it.
   */
  entryCount(namespace: string): number {
    return this.db.transaction(() => {
      const generation = this.generation(namespace);
      const known = this.counts.get(namespace);
      if (known?.generation === generation) return known.count;
      const count = this.statements.count.get(namespace) ?? 0;
      this.counts.set(namespace, { generation, count });
      return count;
    })();
  }

  /**
   * Rowids of the namespace whose entry changed after `generation` (inserted, rewritten or deleted),
   * each once; undefined when the log no longer reaches back that far (see VECTOR_CHANGE_WINDOW).
   */
  changedSince(namespace: string, generation: number, current: number): number[] | undefined {
    if (current === generation) return [];
    const oldest = this.statements.oldestLogged.get(namespace);
    // The log holds generations oldest..current without gaps (the trigger writes each one): it covers
    // everything after `generation` when the first change after it, generation + 1, is still there.
    if (oldest === undefined || oldest === null || oldest > generation + 1) return undefined;
    return this.statements.changedSince.all(namespace, generation);
  }
}

function prepare(db: SqliteDatabase) {
  return {
    generation: db.prepare<[string], number>("SELECT generation FROM vector_generations WHERE namespace = ?").pluck(),
    count: db.prepare<[string], number>("SELECT count(*) FROM entries WHERE namespace = ?").pluck(),
    oldestLogged: db.prepare<[string], number | null>("SELECT min(generation) FROM vector_changes WHERE namespace = ?").pluck(),
    changedSince: db.prepare<[string, number], number>("SELECT DISTINCT entry_rowid FROM vector_changes WHERE namespace = ? AND generation > ?").pluck(),
  };
}
