/**
 * The origin lease of the Qdrant adapter, held on the server: cases run against SpecCheckingQdrantStub
 * (qdrant-lease.test.ts) and, when QDRANT_URL is set, against a live server (qdrant-live.test.ts).
 * A holder that crashed is played by a store whose clock runs LEASE_TAKEOVER_MS behind: the lease it
 * takes has lapsed already for everyone else, as one its holder stopped renewing that long ago.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, it } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { QdrantClient } from "@qdrant/js-client-rest";
import { StoreError } from "../../src/core/errors.js";
import { normalizeEntry } from "../../src/memory/entry.js";
import { LEASE_RENEW_MS, LEASE_TAKEOVER_MS } from "../../src/stores/origin-lease.js";
import { leasePointId, LeasePayloadSchema, type LeasePayload } from "../../src/stores/qdrant-layout.js";
import { QdrantLeaseBook } from "../../src/stores/qdrant-lease.js";
import { QdrantRest } from "../../src/stores/qdrant-rest.js";
import { openQdrantStore, type QdrantMemoryStore } from "../../src/stores/qdrant.js";
import type { EmbeddingSpec } from "../../src/text/embedder.js";

const EMBEDDING: EmbeddingSpec = { model: "test-hash", dimension: 4 };

/** The server and a collection of its own for one case (created on first open). */
export interface LeaseServer {
  url: string;
  apiKey?: string;
  collection: () => string;
}

export function runQdrantLeaseCases(label: string, server: () => LeaseServer): void {
  describe(`origin lease held on the server (${label})`, () => {
    const client = (target: LeaseServer) => new QdrantClient({ url: target.url, ...(target.apiKey ? { apiKey: target.apiKey } : {}), checkCompatibility: false });
    const open = (target: LeaseServer, collection: string, clock?: () => number): Promise<QdrantMemoryStore> =>
      openQdrantStore({ url: target.url, ...(target.apiKey ? { apiKey: target.apiKey } : {}), collection, embedding: EMBEDDING, ...(clock ? { clock } : {}) });
    const leaseOf = async (target: LeaseServer, collection: string, origin: string): Promise<LeasePayload | undefined> => {
      const [point] = await client(target).retrieve(collection, { ids: [leasePointId(origin)], with_payload: true });
      return point ? LeasePayloadSchema.parse(point.payload) : undefined;
    };

    it("makes a second holder wait until the first releases, then hands it over", async () => {
      const target = server();
      const collection = target.collection();
      const [first, second] = [await open(target, collection), await open(target, collection)];
      const release = await first.leaseOrigin("parcels");
      let taken = false;
      const next = second.leaseOrigin("parcels").then((releaseNext) => ((taken = true), releaseNext));
      await delay(500);
      assert.equal(taken, false, "the second holder waits while the first holds the lease");
      await release();
      const started = performance.now();
      const releaseNext = await next;
      assert.ok(performance.now() - started < 5_000, "a released lease is taken at the waiter's next look");
      assert.notEqual((await leaseOf(target, collection, "parcels"))?.holder, "");
      await releaseNext();
      assert.deepEqual(await leaseOf(target, collection, "parcels"), { record: "lease", origin: "parcels", holder: "", heldUntilMs: 0 }, "released: free");
    });

    it("takes over a lease its holder stopped renewing, and the old holder's release then fails", async () => {
      const target = server();
      const collection = target.collection();
      const crashed = await open(target, collection, () => Date.now() - LEASE_TAKEOVER_MS - 1_000);
      const live = await open(target, collection);
      const releaseCrashed = await crashed.leaseOrigin("parcels");
      const started = performance.now();
      const releaseLive = await live.leaseOrigin("parcels");
      assert.ok(performance.now() - started < 2_000, "a lapsed lease is taken at once");
      await assert.rejects(releaseCrashed(), (error: unknown) => error instanceof StoreError && /took it over/.test(error.message));
      const lease = await leaseOf(target, collection, "parcels");
      assert.ok(lease && lease.holder !== "" && lease.heldUntilMs > Date.now(), "the old holder's release leaves the new holder's lease alone");
      await releaseLive();
    });

    it("renews, releases and takes only what the rules allow (one request each, read back)", async (t) => {
      const target = server();
      const collection = target.collection();
      await open(target, collection);
      let now = Date.now();
      const rest = new QdrantRest({ url: target.url, apiKey: target.apiKey, timeoutMs: 30_000 });
      t.after(() => rest.close());
      const book = new QdrantLeaseBook(rest, collection, () => now, (_operation, call) => call());
      const [mine, other] = [randomUUID(), randomUUID()];
      assert.equal(await book.renew("parcels", mine), false, "no lease point: a renewal inserts none");
      assert.equal(await leaseOf(target, collection, "parcels"), undefined);
      assert.equal(await book.tryTake("parcels", mine), true, "no lease point: taken");
      assert.equal(await book.tryTake("parcels", other), false, "held: another cannot take it");
      assert.equal(await book.renew("parcels", other), false, "another cannot renew it");
      await book.release("parcels", other);
      assert.equal((await leaseOf(target, collection, "parcels"))?.holder, mine, "another cannot release it");
      now += LEASE_RENEW_MS;
      assert.equal(await book.renew("parcels", mine), true);
      assert.equal((await leaseOf(target, collection, "parcels"))?.heldUntilMs, now + LEASE_TAKEOVER_MS, "renewed from now");
      now += LEASE_TAKEOVER_MS - 1;
      assert.equal(await book.tryTake("parcels", other), false, "not lapsed a millisecond before");
      now += 2;
      assert.equal(await book.tryTake("parcels", other), true, "lapsed: taken over");
      assert.equal(await book.renew("parcels", mine), false, "the old holder's renewal finds it taken");
      await book.release("parcels", other);
      assert.equal(await book.tryTake("parcels", mine), true, "free: taken");
    });

    it("keeps renewing a held lease", async () => {
      const target = server();
      const collection = target.collection();
      const store = await open(target, collection);
      const release = await store.leaseOrigin("parcels");
      const taken = await leaseOf(target, collection, "parcels");
      await delay(LEASE_RENEW_MS + 1_500);
      const renewed = await leaseOf(target, collection, "parcels");
      assert.equal(renewed?.holder, taken?.holder);
      assert.ok((renewed?.heldUntilMs ?? 0) >= (taken?.heldUntilMs ?? Infinity) + LEASE_RENEW_MS - 500, "held until later, by about one renewal interval");
      await release();
    });

    it("never shows a lease point to memory reads, stats, clearNamespace or deleteExpired", async () => {
      const target = server();
      const collection = target.collection();
      const store = await open(target, collection);
      const entry = normalizeEntry("depot", { id: "one", text: "A parcel for Alice.", expiresAt: Date.now() + 60_000 }, { now: Date.now() });
      await store.upsert("depot", [{ entry, vector: [1, 0, 0, 0] }]);
      const release = await store.leaseOrigin("parcels");
      assert.deepEqual(await store.stats(), { namespaces: { depot: 1 } });
      assert.deepEqual((await store.list("depot", { limit: 10 })).entries.map((e) => e.id), ["one"]);
      assert.equal(await store.deleteExpired(), 0);
      assert.equal(await store.clearNamespace("depot"), 1);
      assert.notEqual((await leaseOf(target, collection, "parcels"))?.holder, "", "the held lease survives clearNamespace and deleteExpired");
      assert.deepEqual(await store.stats(), { namespaces: {} });
      await release();
    });
  });
}
