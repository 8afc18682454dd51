/**
 * SharedLeases, the lease protocol every store shares, over a LeaseBook kept in memory: when it
 * renews, what a lost lease does, how a waiter polls. The stores' own books have their own tests
 * (test/ingest/concurrent-origin.test.ts for sqlite, qdrant-lease.test.ts for Qdrant).
 */
import assert from "node:assert/strict";
import { describe, it, type TestContext } from "node:test";
import { StoreError } from "../../src/core/errors.js";
import { LEASE_RENEW_MS, SharedLeases, type LeaseBook } from "../../src/stores/origin-lease.js";

/** One lease per key; `takeOver` hands a key's lease to someone else, as a process that found it lapsed would. */
class MemoryBook implements LeaseBook {
  readonly holders = new Map<string, string>();
  readonly calls: string[] = [];
  busyTakes = 0;
  failRenewals = 0;

  async tryTake(key: string, holder: string): Promise<boolean> {
    this.calls.push("take");
    if (this.busyTakes > 0) {
      this.busyTakes -= 1;
      return false;
    }
    const current = this.holders.get(key);
    if (current !== undefined && current !== holder) return false;
    this.holders.set(key, holder);
    return true;
  }
  async renew(key: string, holder: string): Promise<boolean> {
    this.calls.push("renew");
    if (this.failRenewals > 0) {
      this.failRenewals -= 1;
      throw new Error("unreachable");
    }
    return this.holders.get(key) === holder;
  }
  async release(key: string, holder: string): Promise<void> {
    this.calls.push("release");
    if (this.holders.get(key) === holder) this.holders.delete(key);
  }
  takeOver(key: string): void {
    this.holders.set(key, "someone else");
  }
}

/** Lets the renewal's promise chain run after a mocked timer fired. */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

function quietLogs(t: TestContext): string[] {
  const lines: string[] = [];
  t.mock.method(process.stderr, "write", (chunk: string) => (lines.push(String(chunk)), true));
  return lines;
}

describe("SharedLeases", () => {
  it("renews every LEASE_RENEW_MS while held, and not after the release", async (t) => {
    t.mock.timers.enable({ apis: ["setTimeout"] });
    const book = new MemoryBook();
    const release = await new SharedLeases(book, "test").acquire("parcels");
    t.mock.timers.tick(LEASE_RENEW_MS - 1);
    await settle();
    assert.deepEqual(book.calls, ["take"]);
    t.mock.timers.tick(1);
    await settle();
    t.mock.timers.tick(LEASE_RENEW_MS);
    await settle();
    assert.deepEqual(book.calls, ["take", "renew", "renew"]);
    await release();
    assert.deepEqual(book.calls, ["take", "renew", "renew", "renew", "release"], "a last renewal checks the lease is still ours, then it is freed");
    t.mock.timers.tick(LEASE_RENEW_MS * 3);
    await settle();
    assert.equal(book.calls.length, 5);
    assert.equal(book.holders.size, 0);
  });

  it("tries a failed renewal again at the next tick", async (t) => {
    t.mock.timers.enable({ apis: ["setTimeout"] });
    const logs = quietLogs(t);
    const book = new MemoryBook();
    const release = await new SharedLeases(book, "test").acquire("parcels");
    book.failRenewals = 1;
    t.mock.timers.tick(LEASE_RENEW_MS);
    await settle();
    t.mock.timers.tick(LEASE_RENEW_MS);
    await settle();
    assert.deepEqual(book.calls, ["take", "renew", "renew"]);
    await release();
    assert.ok(logs.some((line) => line.includes("origin_lease_renew_failed")));
  });

  it("logs a lease found taken over, stops renewing it, and fails the release", async (t) => {
    t.mock.timers.enable({ apis: ["setTimeout"] });
    const logs = quietLogs(t);
    const book = new MemoryBook();
    const release = await new SharedLeases(book, "test").acquire("parcels");
    book.takeOver("parcels");
    t.mock.timers.tick(LEASE_RENEW_MS * 3);
    await settle();
    assert.deepEqual(book.calls, ["take", "renew"]);
    assert.ok(logs.some((line) => line.includes("origin_lease_lost")));
    await assert.rejects(release(), StoreError);
    assert.equal(book.holders.get("parcels"), "someone else", "the new holder's lease is left alone");
  });

  it("polls while another holds the lease, and queues this process's own holders without polling", async () => {
    const book = new MemoryBook();
    const leases = new SharedLeases(book, "test");
    book.busyTakes = 3;
    const release = await leases.acquire("parcels");
    assert.deepEqual(book.calls, ["take", "take", "take", "take"]);
    let second = false;
    const next = leases.acquire("parcels").then((r) => ((second = true), r));
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(second, false);
    assert.equal(book.calls.filter((call) => call === "take").length, 4, "a holder of this process waits in the queue, not on the book");
    await release();
    await (await next)();
  });
});
