/**
 * Origin leases held on the Qdrant server, so that ingests in other processes and on other machines
 * wait too (see origin-lease.ts for why and for the protocol). Each source has one vector-less lease
 * point (qdrant-layout.ts: leasePoint) whose payload names its holder and when the lease lapses.
 *
 * Every change is one upsert of that point with an `update_filter`, which Qdrant checks against the
 * point's current payload and applies in the same step: a shard's update worker applies its
 * operations one at a time, each conditional upsert keeping only the points that are new or match
 * the filter (qdrant/qdrant lib/shard/src/update/points/upsert.rs, retain_conditional_upsert_points).
 * So of two takers of a lapsed lease one writes its holder id and the other's filter no longer
 * matches. Qdrant does not say which points an upsert changed, so each change is read back.
 *
 * Assumed of the server, beyond a single node: writes go with `ordering: strong` (through the
 * shard's permanent leader, so every replica applies them in one order) and the read-back asks
 * `consistency: all` (a point is returned only when every replica holds the same one), so a lease
 * is only ever taken when all replicas agree. And, as for sqlite's lease, the clocks of the ingesting
 * machines agree to well within LEASE_TAKEOVER_MS - LEASE_RENEW_MS: a taker whose clock runs ahead
 * by more sees a live lease as lapsed.
 */
import type { Schemas } from "@qdrant/js-client-rest";
import { LEASE_TAKEOVER_MS, type LeaseBook } from "./origin-lease.js";
import type { QdrantRest } from "./qdrant-rest.js";
import { leaseHeldBy, leasePoint, leasePointId, LeasePayloadSchema, leaseTakeableBy } from "./qdrant-layout.js";

/** Runs one request of the adapter, its failure a StoreError naming the operation. */
export type QdrantSend = <T>(operation: string, call: () => Promise<T>) => Promise<T>;

const OPERATION = "leaseOrigin";

export class QdrantLeaseBook implements LeaseBook {
  constructor(
    private readonly client: QdrantRest,
    private readonly collection: string,
    /** The adapter's clock: when a lease lapses, in epoch ms. */
    private readonly clock: () => number,
    private readonly send: QdrantSend,
  ) {}

  /** Inserts the lease point as ours when there is none, overwrites it when ours or lapsed; then looks. */
  async tryTake(origin: string, holder: string): Promise<boolean> {
    const now = this.clock();
    await this.upsert(leasePoint(origin, holder, now + LEASE_TAKEOVER_MS), leaseTakeableBy(holder, now), "upsert");
    return (await this.holderOf(origin)) === holder;
  }

  /** Extends the lease only while it is ours; never inserts one (a lease point gone is a lease lost). */
  async renew(origin: string, holder: string): Promise<boolean> {
    await this.upsert(leasePoint(origin, holder, this.clock() + LEASE_TAKEOVER_MS), leaseHeldBy(holder), "update_only");
    return (await this.holderOf(origin)) === holder;
  }

  /** Frees the lease only while it is ours: another holder's is left alone. */
  async release(origin: string, holder: string): Promise<void> {
    await this.upsert(leasePoint(origin, "", 0), leaseHeldBy(holder), "update_only");
  }

  private async upsert(point: Schemas["PointStruct"], filter: Schemas["Filter"], mode: Schemas["UpdateMode"]): Promise<void> {
    await this.send(OPERATION, () =>
      this.client.upsert(this.collection, { points: [point], update_filter: filter, update_mode: mode }, { ordering: "strong" }),
    );
  }

  /** The lease's holder as every replica has it ("" when free; undefined when there is no lease point or replicas differ). */
  private async holderOf(origin: string): Promise<string | undefined> {
    const points = await this.send(OPERATION, () =>
      this.client.retrieve(this.collection, { ids: [leasePointId(origin)], with_payload: true, with_vector: false }, { consistency: "all" }),
    );
    const parsed = LeasePayloadSchema.safeParse(points[0]?.payload);
    return parsed.success ? parsed.data.holder : undefined;
  }
}
