/**
 * Origin leases kept in the store file, so that ingests in other processes wait too (see
 * ../origin-lease.ts for why). A lease is a row naming its holder and when it last renewed it; the
 * holder renews it while it works, and a lease not renewed for LEASE_MS is taken over, so a crashed
 * ingest holds up the next one for at most that long.
 */
import { randomUUID } from "node:crypto";
import { setTimeout as delay } from "node:timers/promises";
import { InProcessLeases, type ReleaseLease } from "../origin-lease.js";
import type { SqliteDatabase } from "./schema.js";

const LEASE_MS = 30_000;
const RENEW_MS = 5_000;
/** How often a waiting ingest looks again (with up to as much again at random, so waiters do not beat in step). */
const POLL_MS = 100;

export const ORIGIN_LEASES_SQL = `
  CREATE TABLE IF NOT EXISTS origin_leases (
    origin TEXT PRIMARY KEY,
    holder TEXT NOT NULL,
    renewed_ms INTEGER NOT NULL
  ) WITHOUT ROWID;
`;

export class OriginLeases {
  /** This process's own ingests queue here first, so only one of them at a time polls the file. */
  private readonly local = new InProcessLeases();

  constructor(private readonly db: SqliteDatabase) {}

  async acquire(origin: string): Promise<ReleaseLease> {
    const releaseLocal = await this.local.acquire(origin);
    const holder = randomUUID();
    try {
      while (!this.tryTake(origin, holder)) await delay(POLL_MS * (1 + Math.random()));
    } catch (error) {
      await releaseLocal();
      throw error;
    }
    const renew = this.db.prepare("UPDATE origin_leases SET renewed_ms = ? WHERE origin = ? AND holder = ?");
    const timer = setInterval(() => {
      try {
        renew.run(Date.now(), origin, holder);
      } catch {
        // busy or closed: the next tick tries again, and a lease lapses only after LEASE_MS
      }
    }, RENEW_MS);
    timer.unref();
    return async () => {
      clearInterval(timer);
      try {
        this.db.prepare("DELETE FROM origin_leases WHERE origin = ? AND holder = ?").run(origin, holder);
      } finally {
        await releaseLocal();
      }
    };
  }

  /** Takes the lease when it is free or has lapsed; false when another holder keeps it (or the file is busy). */
  private tryTake(origin: string, holder: string): boolean {
    try {
      return this.db
        .transaction(() => {
          const now = Date.now();
          const current = this.db.prepare<[string], { renewed_ms: number }>("SELECT renewed_ms FROM origin_leases WHERE origin = ?").get(origin);
          if (current !== undefined && current.renewed_ms > now - LEASE_MS) return false;
          this.db.prepare("INSERT OR REPLACE INTO origin_leases (origin, holder, renewed_ms) VALUES (?, ?, ?)").run(origin, holder, now);
          return true;
        })
        .immediate();
    } catch (error) {
      if (error instanceof Error && "code" in error && error.code === "SQLITE_BUSY") return false;
      throw error;
    }
  }
}
