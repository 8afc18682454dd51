/**
 * One ingest of a source at a time. An ingest that replaces a source (its `origin`) reads what the
 * origin wrote before, writes the new version and retires the rest; two of them at once would each
 * retire the other's new entries. So an ingest holds its origin's lease from its first read to its
 * last delete, and a second one waits for it: the one that runs last is what stays.
 *
 * A store shared by processes keeps the lease where they all see it (sqlite: a row in its file;
 * Qdrant: a point in the collection), behind a LeaseBook; SharedLeases runs the same protocol over
 * either: take it (polling while another holds it), renew it every LEASE_RENEW_MS, give it back. A
 * lease not renewed for LEASE_TAKEOVER_MS is taken over, so a crashed ingest holds up the next one
 * for at most that long.
 */
import { randomUUID } from "node:crypto";
import { setTimeout as delay } from "node:timers/promises";
import { StoreError } from "../core/errors.js";
import { describeError, log } from "../core/log.js";

/** A lease its holder has not renewed for this long is free for another to take. */
export const LEASE_TAKEOVER_MS = 30_000;
/** How often a holder renews its lease: several renewals fit in LEASE_TAKEOVER_MS, so one late or failed renewal loses nothing. */
export const LEASE_RENEW_MS = 5_000;
/** A waiting ingest looks again after this, doubling up to LEASE_POLL_MAX_MS (each with up to as much again at random, so waiters do not beat in step). */
const LEASE_POLL_MS = 100;
const LEASE_POLL_MAX_MS = 1_600;

/** Gives the lease back. Throws a StoreError when another holder took the lease over meanwhile. */
export type ReleaseLease = () => Promise<void>;

/** Leases of this process, one queue per key: each holder waits for the one before it. */
export class InProcessLeases {
  private readonly tails = new Map<string, Promise<void>>();

  async acquire(key: string): Promise<ReleaseLease> {
    const before = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const tail = before.then(() => held);
    this.tails.set(key, tail);
    await before;
    return async () => {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    };
  }
}

/**
 * Where a store keeps its leases, each one atomic on its own. `holder` is a random id of one
 * acquisition; a holder's lease stays its own until it lapses and another takes it, so once it is
 * found not to be the holder's it never is again.
 */
export interface LeaseBook {
  /** Takes the lease for `holder` when it is free or has lapsed; false while another holds it. */
  tryTake(key: string, holder: string): Promise<boolean>;
  /** Extends `holder`'s lease by LEASE_TAKEOVER_MS from now; false when it is no longer the holder's. */
  renew(key: string, holder: string): Promise<boolean>;
  /** Frees the lease if `holder` still holds it (nothing otherwise). */
  release(key: string, holder: string): Promise<void>;
}

/**
 * Leases kept in a LeaseBook that other processes share. This process's own ingests queue in
 * InProcessLeases first, so only one of them at a time polls the book, and it is handed the lease the
 * moment the one before it is done.
 */
export class SharedLeases {
  private readonly local = new InProcessLeases();

  constructor(
    private readonly book: LeaseBook,
    /** Names the store in logs. */
    private readonly store: string,
  ) {}

  async acquire(key: string): Promise<ReleaseLease> {
    const releaseLocal = await this.local.acquire(key);
    const holder = randomUUID();
    try {
      await this.take(key, holder);
    } catch (error) {
      await releaseLocal();
      throw error;
    }
    const renewal = this.keepRenewed(key, holder);
    return async () => {
      renewal.stop();
      try {
        // One last renewal tells whether the lease stayed ours to the end (see LeaseBook).
        const held = await this.book.renew(key, holder);
        await this.book.release(key, holder);
        if (!held) throw lostLease(key);
      } finally {
        await releaseLocal();
      }
    };
  }

  private async take(key: string, holder: string): Promise<void> {
    for (let wait = LEASE_POLL_MS; !(await this.book.tryTake(key, holder)); wait = Math.min(LEASE_POLL_MAX_MS, wait * 2)) {
      await delay(wait * (1 + Math.random()));
    }
  }

  /**
   * Renews every LEASE_RENEW_MS until stopped. A renewal that fails (server unreachable, file busy)
   * is tried again at the next tick: the lease lapses only after LEASE_TAKEOVER_MS. One that finds the
   * lease taken is logged; the release then fails the ingest.
   */
  private keepRenewed(key: string, holder: string): { stop: () => void } {
    let stopped = false;
    let timer: NodeJS.Timeout | undefined;
    const tick = async (): Promise<void> => {
      try {
        if (!(await this.book.renew(key, holder))) {
          if (!stopped) log.error("origin_lease_lost", { store: this.store, origin: key });
          return;
        }
      } catch (error) {
        if (!stopped) log.warn("origin_lease_renew_failed", { store: this.store, origin: key, error: describeError(error) });
      }
      schedule();
    };
    const schedule = (): void => {
      if (stopped) return;
      timer = setTimeout(() => void tick(), LEASE_RENEW_MS);
      timer.unref();
    };
    schedule();
    return {
      stop: () => {
        stopped = true;
        clearTimeout(timer);
      },
    };
  }
}

function lostLease(key: string): StoreError {
  return new StoreError(
    "leaseOrigin",
    `the lease of source "${key}" lapsed (not renewed for ${LEASE_TAKEOVER_MS / 1000} s) and another ingest took it over: ` +
      "both may have written and retired entries of this source at once; ingest it again",
  );
}
