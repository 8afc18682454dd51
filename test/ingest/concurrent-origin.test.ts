/**
 * Two ingests of one source at once, in the order that lost data: ingest A has written its version
 * and is about to retire what the source held before, when ingest B writes its own version whole. A's
 * retire then deleted B's new lines. With the origin's lease, B waits for A, runs after it, and its
 * version is what stays; each connection opens the same sqlite file, as two processes would.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { StoreError } from "../../src/core/errors.js";
import { ingestFile } from "../../src/ingest/ingest-file.js";
import type { MemoryStore } from "../../src/stores/port.js";
import { openSqliteStore } from "../../src/stores/sqlite/store.js";
import { testEmbedder } from "./helpers.js";

const folder = mkdtempSync(path.join(tmpdir(), "recallgraph-origin-"));
after(() => rmSync(folder, { recursive: true, force: true }));

const version = (v: string, count: number) => ({
  ids: Array.from({ length: count }, (_, i) => `${i < count / 2 ? "shared" : v}-${i}`).sort(),
  text: Array.from({ length: count }, (_, i) => JSON.stringify({ id: `${i < count / 2 ? "shared" : v}-${i}`, text: `Line ${i} of version ${v}.` })).join("\n"),
});

/** `store` whose `originEntryIds` (how a retire finds what its origin holds) first waits for `gate`, announcing it has reached it. */
function pausedBeforeRetire(store: MemoryStore, gate: Promise<void>, reached: () => void): MemoryStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      if (property !== "originEntryIds") return Reflect.get(target, property, receiver) as unknown;
      return async (...args: Parameters<MemoryStore["originEntryIds"]>) => {
        reached();
        await gate;
        return target.originEntryIds(...args);
      };
    },
  });
}

async function idsOf(store: MemoryStore, namespace: string): Promise<string[]> {
  const page = await store.list(namespace, { limit: 1000 });
  return page.entries.map((entry) => entry.id).sort();
}

describe("two ingests of one origin into one sqlite file", () => {
  it("runs the second after the first, so the version ingested last stays whole", async () => {
    const file = path.join(folder, "memory.db");
    const first = await openSqliteStore({ path: file, embedding: testEmbedder.spec });
    const second = await openSqliteStore({ path: file, embedding: testEmbedder.spec });
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let reachedRetire!: () => void;
    const atRetire = new Promise<void>((resolve) => (reachedRetire = resolve));
    const a = version("a", 40);
    const b = version("b", 40);
    const options = (store: MemoryStore) => ({ store, embedder: testEmbedder, namespace: "depot", origin: "parcels", format: "jsonl" as const });

    const ingestA = ingestFile({ text: a.text }, options(pausedBeforeRetire(first, gate, reachedRetire)));
    await atRetire;
    let bDone = false;
    const ingestB = ingestFile({ text: b.text }, options(second)).finally(() => (bDone = true));
    await delay(300);
    assert.equal(bDone, false, "B waits while A holds the origin");
    open();
    const [summaryA, summaryB] = await Promise.all([ingestA, ingestB]);
    assert.equal(summaryA.entries, 40);
    assert.equal(summaryB.retired, 20, "B retired A's own lines");
    assert.deepEqual(await idsOf(second, "depot"), b.ids);
    await first.close();
    await second.close();
  });

  it("takes over a lease its holder stopped renewing, and gives a released one to the next at once", async () => {
    const file = path.join(folder, "leases.db");
    const store = await openSqliteStore({ path: file, embedding: testEmbedder.spec });
    const release = await store.leaseOrigin("parcels");
    await release();
    const again = await store.leaseOrigin("parcels");
    await again();
    // A holder that crashed: its row stays, last renewed long ago.
    const other = await openSqliteStore({ path: file, embedding: testEmbedder.spec });
    const { default: Database } = await import("better-sqlite3");
    const raw = new Database(file);
    raw.prepare("INSERT OR REPLACE INTO origin_leases (origin, holder, renewed_ms) VALUES (?, ?, ?)").run("parcels", "crashed", Date.now() - 60_000);
    raw.close();
    const taken = await other.leaseOrigin("parcels");
    await taken();
    await store.close();
    await other.close();
  });
});

describe("an origin lease taken over while held", () => {
  it("fails the release with a StoreError, so the ingest that held it does not report success", async () => {
    const file = path.join(folder, "lost.db");
    const store = await openSqliteStore({ path: file, embedding: testEmbedder.spec });
    const release = await store.leaseOrigin("parcels");
    // Another process took it over, as after LEASE_TAKEOVER_MS without a renewal.
    const { default: Database } = await import("better-sqlite3");
    const raw = new Database(file);
    raw.prepare("UPDATE origin_leases SET holder = ?, renewed_ms = ? WHERE origin = ?").run("other", Date.now(), "parcels");
    raw.close();
    await assert.rejects(release(), (error: unknown) => error instanceof StoreError && /took it over/.test(error.message));
    const rows = new Database(file).prepare("SELECT holder FROM origin_leases").all();
    assert.deepEqual(rows, [{ holder: "other" }], "the other holder's lease is left alone");
    await store.close();
  });
});
