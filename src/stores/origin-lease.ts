/**
 * One ingest of a source at a time. An ingest that replaces a source (its `origin`) reads what the
 * origin wrote before, writes the new version and retires the rest; two of them at once would each
 * retire the other's new entries. So an ingest holds its origin's lease from its first read to its
 * last delete, and a second one waits for it: the one that runs last is what stays.
 */

/** Gives the lease back. */
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
