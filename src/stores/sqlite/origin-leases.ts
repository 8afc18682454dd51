/**
 * Origin leases kept in the store file, so that ingests in other processes wait too (see
 * ../origin-lease.ts for why and for the protocol). A lease is a row naming its holder and when it
 * last renewed it; each step is one statement or one immediate transaction, so it is atomic.
 */
import { LEASE_TAKEOVER_MS, type LeaseBook } from "../origin-lease.js";
import type { SqliteDatabase } from "./schema.js";

export const ORIGIN_LEASES_SQL = `
  CREATE TABLE IF NOT EXISTS origin_leases (
    origin TEXT PRIMARY KEY,
    holder TEXT NOT NULL,
    renewed_ms INTEGER NOT NULL
  ) WITHOUT ROWID;
`;

export class SqliteLeaseBook implements LeaseBook {
  constructor(private readonly db: SqliteDatabase) {}

  /** False also when the file is busy: the caller looks again. */
  async tryTake(origin: string, holder: string): Promise<boolean> {
    try {
      return this.db
        .transaction(() => {
          const now = Date.now();
          const current = this.db.prepare<[string], { renewed_ms: number }>("SELECT renewed_ms FROM origin_leases WHERE origin = ?").get(origin);
          if (current !== undefined && current.renewed_ms > now - LEASE_TAKEOVER_MS) return false;
          this.db.prepare("INSERT OR REPLACE INTO origin_leases (origin, holder, renewed_ms) VALUES (?, ?, ?)").run(origin, holder, now);
          return true;
        })
        .immediate();
    } catch (error) {
      if (error instanceof Error && "code" in error && error.code === "SQLITE_BUSY") return false;
      throw error;
    }
  }

  async renew(origin: string, holder: string): Promise<boolean> {
    const renewed = this.db.prepare("UPDATE origin_leases SET renewed_ms = ? WHERE origin = ? AND holder = ?").run(Date.now(), origin, holder);
    return renewed.changes === 1;
  }

  async release(origin: string, holder: string): Promise<void> {
    this.db.prepare("DELETE FROM origin_leases WHERE origin = ? AND holder = ?").run(origin, holder);
  }
}
