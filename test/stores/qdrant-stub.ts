/**
 * SpecCheckingQdrantStub: a loopback HTTP server that plays a small in-memory Qdrant, enough to answer
 * the recallgraph adapter's calls, and checks every request body (and its own response bodies)
 * against Qdrant's OpenAPI document. Filters cover what the adapter sends: must / should / must_not of
 * has_id, match (value, any, except) and range conditions, a range on a missing key never matching
 * (so `must_not: [{ key: "expiresAtMs", range: { lte: now } }]` keeps points without an expiry), and a
 * condition on an array field matching when any element does (`lexical_terms`), as in Qdrant.
 *
 * It is NOT Qdrant. It implements the subset the adapter and the tests use (collections and their
 * list, payload indexes, upsert with update_mode and update_filter, retrieve by id, scroll with order_by, query (alone or in a batch) with dense cosine
 * or sparse dot product, times IDF under the `idf` modifier (deleted points still counted, as by a
 * Qdrant segment not yet vacuumed) and plain without one as by Qdrant's default, exact count, delete
 * by filter, facet) with
 * the semantics documented by Qdrant, and answers anything else with an error so an unexpected call
 * fails loudly. Approximate-search behaviour, sharding, write-ahead-log and
 * optimizer behaviour, and the real error messages are not modelled. Passing against it proves the
 * requests are well-formed per the spec and the adapter's logic is consistent, not that a live server
 * behaves identically: that is the live suite's job (QDRANT_URL).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { QdrantSpec } from "./qdrant-spec.js";

type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
type JsonObject = { [key: string]: JsonValue };

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  operationId: string;
  collection?: string;
  body: JsonValue | undefined;
}

interface SparseVector {
  indices: number[];
  values: number[];
}

interface StoredPoint {
  id: string | number;
  dense: Map<string, number[]>;
  sparse: Map<string, SparseVector>;
  payload: JsonObject;
}

interface StubCollection {
  denseVectors: Map<string, { size: number; distance: string }>;
  /** `modifier` as created: absent when the request gave none (Qdrant then applies none and reports none). */
  sparseVectors: Map<string, { modifier?: string }>;
  metadata: JsonObject;
  indexes: Map<string, { data_type: string; params?: JsonObject }>;
  points: Map<string, StoredPoint>;
  /**
   * Sparse vectors of deleted points, which Qdrant's `idf` statistics still count (see `idf`). A point
   * deleted twice over (deleted, re-inserted, deleted) leaves two: in Qdrant's source the re-inserted
   * point gets a new internal offset (the recording has no such case).
   */
  deletedSparse: Array<Map<string, SparseVector>>;
  createBody: JsonObject;
}

/** A failure the test wants the next matching request to get. */
interface InjectedFault {
  operationId: string;
  status: number;
  error: string;
  delayMs?: number;
}

class StubError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function pointKey(id: JsonValue | undefined): string {
  if (typeof id === "number") return `n:${id}`;
  if (typeof id === "string") return `u:${id.toLowerCase().replace(/-/g, "")}`;
  throw new StubError(400, `Wrong input: invalid point id ${JSON.stringify(id)}`);
}

export class SpecCheckingQdrantStub {
  readonly requests: RecordedRequest[] = [];
  /** Every spec violation seen (requests and responses). Tests assert it stays empty. */
  readonly violations: string[] = [];
  private readonly collections = new Map<string, StubCollection>();
  private readonly faults: InjectedFault[] = [];

  private constructor(
    private readonly server: Server,
    private readonly spec: QdrantSpec,
    readonly url: string,
  ) {}

  static async start(spec: QdrantSpec = QdrantSpec.load()): Promise<SpecCheckingQdrantStub> {
    let stub: SpecCheckingQdrantStub | undefined;
    const server = createServer((request, response) => {
      void stub?.handle(request, response);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    stub = new SpecCheckingQdrantStub(server, spec, `http://127.0.0.1:${port}`);
    return stub;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** The next request of `operationId` fails with `status` (after `delayMs`, to test timeouts). */
  failNext(operationId: string, status: number, error: string, delayMs?: number): void {
    this.faults.push({ operationId, status, error, ...(delayMs !== undefined ? { delayMs } : {}) });
  }

  requestsOf(operationId: string): RecordedRequest[] {
    return this.requests.filter((request) => request.operationId === operationId);
  }

  clearRequests(): void {
    this.requests.length = 0;
  }

  /** The collections the stub holds now, by name (for assertions). */
  collectionNames(): string[] {
    return [...this.collections.keys()];
  }

  /** The stored payloads of a collection (for assertions). */
  storedPoints(collection: string): Array<{ id: string | number; payload: JsonObject; vectors: string[] }> {
    const stored = this.collections.get(collection);
    return [...(stored?.points.values() ?? [])].map((point) => ({
      id: point.id,
      payload: point.payload,
      vectors: [...point.dense.keys(), ...point.sparse.keys()],
    }));
  }

  /** Removes a payload index, as on a collection made before recallgraph indexed that field. */
  dropPayloadIndex(collection: string, field: string): void {
    this.collections.get(collection)?.indexes.delete(field);
  }

  /** Puts a collection in place as if another tool had created it (for the "not ours" case). */
  createForeignCollection(name: string, body: JsonObject): void {
    this.collections.set(name, this.buildCollection(body));
  }

  // -------------------------------------------------------------------------------------------

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const started = performance.now();
    const url = new URL(request.url ?? "/", this.url);
    const raw = await readBody(request);
    let body: JsonValue | undefined;
    try {
      body = raw.length ? (JSON.parse(raw) as JsonValue) : undefined;
    } catch {
      return this.reply(response, undefined, 400, { status: { error: "Format error in JSON body" }, time: 0 });
    }
    const matched = this.spec.match(request.method ?? "GET", url.pathname);
    if (!matched) {
      this.violations.push(`${request.method} ${url.pathname}: no such operation in the spec`);
      return this.reply(response, undefined, 404, { status: { error: "Not found" }, time: 0 });
    }
    const collection = matched.params.collection_name;
    this.requests.push({
      method: request.method ?? "GET",
      path: url.pathname,
      query: url.searchParams,
      operationId: matched.operationId,
      body,
      ...(collection !== undefined ? { collection } : {}),
    });
    const bodyErrors = this.spec.checkRequestBody(matched.operationId, body);
    if (bodyErrors.length) {
      this.violations.push(`${matched.operationId} request: ${bodyErrors.join("; ")} body=${JSON.stringify(body).slice(0, 500)}`);
      return this.reply(response, undefined, 422, { status: { error: `Validation error in JSON body: ${bodyErrors[0]}` }, time: 0 });
    }
    const faultIndex = this.faults.findIndex((fault) => fault.operationId === matched.operationId);
    if (faultIndex >= 0) {
      const [fault] = this.faults.splice(faultIndex, 1);
      if (fault?.delayMs) await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
      if (response.destroyed) return;
      return this.reply(response, undefined, fault?.status ?? 500, { status: { error: fault?.error ?? "injected" }, time: 0 });
    }
    try {
      const result = this.execute(matched.operationId, collection ?? "", body, url.searchParams);
      const envelope: JsonObject = { result, status: "ok", time: (performance.now() - started) / 1000 };
      this.reply(response, matched.operationId, 200, envelope);
    } catch (error) {
      const status = error instanceof StubError ? error.status : 500;
      const message = error instanceof Error ? error.message : String(error);
      this.reply(response, undefined, status, { status: { error: message }, time: 0 });
    }
  }

  private reply(response: ServerResponse, operationId: string | undefined, status: number, body: JsonObject): void {
    if (operationId) {
      const errors = this.spec.checkResponseBody(operationId, body);
      if (errors.length) this.violations.push(`${operationId} response (stub bug): ${errors.join("; ")}`);
    }
    response.writeHead(status, { "content-type": "application/json" });
    response.end(JSON.stringify(body));
  }

  private execute(operationId: string, name: string, body: JsonValue | undefined, query: URLSearchParams): JsonValue {
    switch (operationId) {
      case "get_collections":
        return { collections: [...this.collections.keys()].map((collection) => ({ name: collection })) };
      case "collection_exists":
        return { exists: this.collections.has(name) };
      case "create_collection":
        if (this.collections.has(name)) throw new StubError(409, `Wrong input: Collection \`${name}\` already exists!`);
        this.collections.set(name, this.buildCollection(isObject(body) ? body : {}));
        return true;
      case "get_collection":
        return this.collectionInfo(name);
      case "delete_collection":
        return this.collections.delete(name);
      case "create_field_index":
        return this.createIndex(this.collection(name), body);
      case "upsert_points":
        this.requireWait(query);
        return this.upsert(this.collection(name), body);
      case "scroll_points":
        return this.scroll(this.collection(name), asObject(body));
      case "get_points":
        return this.retrieve(this.collection(name), asObject(body));
      case "query_points":
        return this.query(this.collection(name), asObject(body));
      case "query_batch_points":
        return this.queryBatch(this.collection(name), asObject(body));
      case "count_points": {
        const stored = this.collection(name);
        const filter = asObject(body).filter;
        return { count: [...stored.points.values()].filter((point) => this.matches(stored, point, filter)).length };
      }
      case "delete_points":
        this.requireWait(query);
        return this.deletePoints(this.collection(name), asObject(body));
      case "facet":
        return this.facet(this.collection(name), asObject(body));
      default:
        throw new StubError(501, `SpecCheckingQdrantStub does not implement ${operationId}`);
    }
  }

  private collection(name: string): StubCollection {
    const stored = this.collections.get(name);
    if (!stored) throw new StubError(404, `Not found: Collection \`${name}\` doesn't exist!`);
    return stored;
  }

  /** The adapter promises durable writes; the stub refuses writes that would not wait for them. */
  private requireWait(query: URLSearchParams): void {
    if (query.get("wait") !== "true") throw new StubError(400, "stub: write without wait=true");
  }

  private buildCollection(body: JsonObject): StubCollection {
    const denseVectors = new Map<string, { size: number; distance: string }>();
    const vectors = body.vectors;
    if (isObject(vectors)) {
      if (typeof vectors.size === "number") {
        denseVectors.set("", { size: vectors.size, distance: String(vectors.distance) });
      } else {
        for (const [vectorName, params] of Object.entries(vectors)) {
          if (isObject(params) && typeof params.size === "number") denseVectors.set(vectorName, { size: params.size, distance: String(params.distance) });
        }
      }
    }
    const sparseVectors = new Map<string, { modifier?: string }>();
    if (isObject(body.sparse_vectors)) {
      for (const [vectorName, params] of Object.entries(body.sparse_vectors)) {
        const modifier = isObject(params) && typeof params.modifier === "string" ? params.modifier : undefined;
        sparseVectors.set(vectorName, modifier === undefined ? {} : { modifier });
      }
    }
    return {
      denseVectors,
      sparseVectors,
      metadata: isObject(body.metadata) ? body.metadata : {},
      indexes: new Map(),
      points: new Map(),
      deletedSparse: [],
      createBody: body,
    };
  }

  private collectionInfo(name: string): JsonValue {
    const stored = this.collection(name);
    const vectors: JsonObject = {};
    for (const [vectorName, params] of stored.denseVectors) vectors[vectorName] = { size: params.size, distance: params.distance };
    const sparse: JsonObject = {};
    // Qdrant leaves an unset modifier out of the collection info (skip_serializing_if Option::is_none).
    for (const [vectorName, params] of stored.sparseVectors) sparse[vectorName] = params.modifier === undefined ? {} : { modifier: params.modifier };
    const payloadSchema: JsonObject = {};
    for (const [field, index] of stored.indexes) {
      const points = [...stored.points.values()].filter((point) => valuesAt(point.payload, field).length > 0).length;
      payloadSchema[field] = { data_type: index.data_type, ...(index.params ? { params: index.params } : {}), points };
    }
    return {
      status: "green",
      optimizer_status: "ok",
      points_count: stored.points.size,
      indexed_vectors_count: 0,
      segments_count: 1,
      config: {
        params: {
          vectors: stored.denseVectors.has("") ? (vectors[""] ?? null) : vectors,
          // What the collection was created with, else Qdrant's default on a single node (1).
          shard_number: countOr1(stored.createBody.shard_number),
          replication_factor: countOr1(stored.createBody.replication_factor),
          write_consistency_factor: countOr1(stored.createBody.write_consistency_factor),
          on_disk_payload: true,
          sparse_vectors: sparse,
        },
        hnsw_config: { m: 16, ef_construct: 100, full_scan_threshold: 10000 },
        optimizer_config: { default_segment_number: 0, flush_interval_sec: 5, deleted_threshold: 0.2, vacuum_min_vector_number: 1000 },
        wal_config: { wal_capacity_mb: 32, wal_segments_ahead: 0 },
        metadata: stored.metadata,
      },
      payload_schema: payloadSchema,
    };
  }

  private createIndex(stored: StubCollection, body: JsonValue | undefined): JsonValue {
    const request = asObject(body);
    const field = String(request.field_name);
    const schema = request.field_schema;
    if (typeof schema === "string") stored.indexes.set(field, { data_type: schema });
    else if (isObject(schema)) stored.indexes.set(field, { data_type: String(schema.type), params: schema });
    else throw new StubError(400, "stub: field_schema is required");
    return { operation_id: 0, status: "completed" };
  }

  /**
   * `update_mode` and `update_filter` as Qdrant 1.18 applies them (lib/shard/src/update/points/upsert.rs,
   * retain_conditional_upsert_points): every point of the request is judged against the state before
   * it (`upsert`: new points, and existing ones matching the filter; `insert_only`: new points only;
   * `update_only`: existing points matching the filter), then the kept ones are written whole. No
   * filter matches every point. The stub handles one request at a time (a synchronous call on Node's
   * one thread), as a Qdrant shard's update worker applies one operation at a time: what is assumed of
   * a real server is that the check and the write of one request are not interleaved with another
   * request's, which holds for one replica; replicas are not modelled.
   */
  private upsert(stored: StubCollection, body: JsonValue | undefined): JsonValue {
    const request = asObject(body);
    const points = request.points;
    if (!Array.isArray(points)) throw new StubError(400, "stub: only the points-list form of upsert is implemented");
    // Validate the whole request first, then apply it: one request's points land together.
    const parsed = points.map((point) => this.parsePoint(stored, asObject(point)));
    const mode = typeof request.update_mode === "string" ? request.update_mode : "upsert";
    const kept = parsed.filter((point) => this.keepsInUpsert(stored, stored.points.get(pointKey(point.id)), mode, request.update_filter));
    for (const point of kept) stored.points.set(pointKey(point.id), point);
    return { operation_id: 0, status: "completed" };
  }

  private keepsInUpsert(stored: StubCollection, existing: StoredPoint | undefined, mode: string, filter: JsonValue | undefined): boolean {
    if (existing === undefined) return mode !== "update_only";
    return mode !== "insert_only" && this.matches(stored, existing, filter);
  }

  /** `POST /collections/{name}/points`: the stored points among `ids`, in the order asked. */
  private retrieve(stored: StubCollection, body: JsonObject): JsonValue {
    if (!Array.isArray(body.ids)) throw new StubError(400, "stub: ids are required");
    const found = body.ids.map((id) => stored.points.get(pointKey(id))).filter((point): point is StoredPoint => point !== undefined);
    return found.map((point) => this.record(point, body));
  }

  private parsePoint(stored: StubCollection, point: JsonObject): StoredPoint {
    const id = point.id;
    if (typeof id !== "string" && typeof id !== "number") throw new StubError(400, "Wrong input: point id");
    pointKey(id);
    const dense = new Map<string, number[]>();
    const sparse = new Map<string, SparseVector>();
    const vector = point.vector;
    if (!isObject(vector)) throw new StubError(400, "stub: only named vectors are implemented");
    for (const [vectorName, value] of Object.entries(vector)) {
      const denseConfig = stored.denseVectors.get(vectorName);
      const sparseConfig = stored.sparseVectors.get(vectorName);
      if (denseConfig && Array.isArray(value)) {
        if (value.length !== denseConfig.size) {
          throw new StubError(400, `Wrong input: Vector dimension error: expected dim: ${denseConfig.size}, got ${value.length}`);
        }
        dense.set(vectorName, value.map(Number));
      } else if (sparseConfig && isObject(value)) {
        sparse.set(vectorName, checkSparse(value));
      } else {
        throw new StubError(400, `Wrong input: Not existing vector name error: ${vectorName}`);
      }
    }
    return { id, dense, sparse, payload: isObject(point.payload) ? point.payload : {} };
  }

  private scroll(stored: StubCollection, body: JsonObject): JsonValue {
    const limit = typeof body.limit === "number" ? body.limit : 10;
    let points = [...stored.points.values()].filter((point) => this.matches(stored, point, body.filter));
    const orderBy = body.order_by;
    if (orderBy !== undefined && orderBy !== null) {
      const { key, direction } = typeof orderBy === "string" ? { key: orderBy, direction: "asc" } : { key: String(asObject(orderBy).key), direction: String(asObject(orderBy).direction ?? "asc") };
      const index = stored.indexes.get(key);
      const rangeCapable = index && ["integer", "float", "datetime"].includes(index.data_type) && (index.params?.range ?? true) !== false;
      if (!rangeCapable) throw new StubError(400, `Bad request: No range index for \`order_by\` key: \`${key}\`. Please create one to use \`order_by\`.`);
      if (body.offset !== undefined && body.offset !== null) throw new StubError(400, "Bad request: Cannot use an `offset` when using `order_by`");
      const sign = direction === "desc" ? -1 : 1;
      points = points
        .filter((point) => typeof valuesAt(point.payload, key)[0] === "number")
        .sort((a, b) => sign * (Number(valuesAt(a.payload, key)[0]) - Number(valuesAt(b.payload, key)[0])) || compareIds(a.id, b.id));
      return { points: points.slice(0, limit).map((point) => this.record(point, body)), next_page_offset: null };
    }
    points.sort((a, b) => compareIds(a.id, b.id));
    if (body.offset !== undefined && body.offset !== null) {
      const offset = body.offset;
      points = points.filter((point) => compareIds(point.id, typeof offset === "number" ? offset : String(offset)) >= 0);
    }
    const page = points.slice(0, limit);
    const next = points[limit];
    return { points: page.map((point) => this.record(point, body)), next_page_offset: next ? next.id : null };
  }

  private query(stored: StubCollection, body: JsonObject): JsonValue {
    const using = typeof body.using === "string" ? body.using : "";
    const limit = typeof body.limit === "number" ? body.limit : 10;
    const candidates = [...stored.points.values()].filter((point) => this.matches(stored, point, body.filter));
    const queryVector = body.query;
    let scored: Array<{ point: StoredPoint; score: number }>;
    if (Array.isArray(queryVector)) {
      const config = stored.denseVectors.get(using);
      if (!config) throw new StubError(400, `Wrong input: Not existing vector name error: ${using}`);
      if (queryVector.length !== config.size) throw new StubError(400, `Wrong input: Vector dimension error: expected dim: ${config.size}, got ${queryVector.length}`);
      if (config.distance !== "Cosine") throw new StubError(501, "stub: only cosine distance is implemented");
      const q = queryVector.map(Number);
      scored = candidates.flatMap((point) => {
        const vector = point.dense.get(using);
        return vector ? [{ point, score: cosine(q, vector) }] : [];
      });
    } else if (isObject(queryVector) && Array.isArray(queryVector.indices)) {
      const config = stored.sparseVectors.get(using);
      if (!config) throw new StubError(400, `Wrong input: Not existing vector name error: ${using}`);
      const q = checkSparse(queryVector);
      const idf = config.modifier === "idf" ? this.idf(stored, using, q.indices) : undefined;
      scored = candidates.flatMap((point) => {
        const vector = point.sparse.get(using);
        if (!vector) return [];
        let score = 0;
        let overlap = false;
        q.indices.forEach((index, position) => {
          const at = vector.indices.indexOf(index);
          if (at < 0) return;
          overlap = true;
          score += (q.values[position] ?? 0) * (idf?.get(index) ?? 1) * (vector.values[at] ?? 0);
        });
        // Sparse search only reaches points sharing at least one index with the query.
        return overlap ? [{ point, score }] : [];
      });
    } else {
      throw new StubError(501, "stub: only nearest queries with a dense or sparse vector are implemented");
    }
    scored.sort((a, b) => b.score - a.score || compareIds(a.point.id, b.point.id));
    const threshold = typeof body.score_threshold === "number" ? body.score_threshold : undefined;
    const kept = threshold === undefined ? scored : scored.filter((hit) => hit.score >= threshold);
    return {
      points: kept.slice(0, limit).map(({ point, score }) => ({ ...this.record(point, body), score, version: 0 })),
    };
  }

  /**
   * `POST /points/query/batch`: each search answered as `/points/query` answers it alone, in the order
   * sent. One failing search fails the whole request, as in Qdrant (the batch has one status).
   */
  private queryBatch(stored: StubCollection, body: JsonObject): JsonValue {
    if (!Array.isArray(body.searches)) throw new StubError(400, "Format error in JSON body: missing field `searches`");
    return body.searches.map((search) => this.query(stored, asObject(search)));
  }

  /**
   * BM25's IDF as Qdrant computes it for the `idf` modifier: ln(1 + (N - n + 0.5) / (n + 0.5)), N the
   * vectors in the sparse index and n those holding the term (QueryContext's `fancy_idf`; the global
   * statistics are the inverted index's `vector_count` and posting-list lengths, read_view/idf.rs).
   * Deleting a point leaves its sparse vector in the inverted index, so deleted points stay counted in
   * N and n until the optimizer rebuilds the segment, which by default it does not do below
   * vacuum_min_vector_number (1000) vectors; the stub never does. The recorded Qdrant 1.18.3 shows it:
   * with one of two lexical points deleted, the other still scored its weight times ln 2 (N = 2, n = 1).
   * Overwriting a point replaces its vector in place (in an appendable segment, as every small
   * collection's is), leaving nothing behind: the recording shows that too, as counting the old vector
   * would have changed two recorded scores.
   */
  private idf(stored: StubCollection, using: string, indices: number[]): Map<number, number> {
    const live = [...stored.points.values()].map((point) => point.sparse.get(using));
    const deleted = stored.deletedSparse.map((vectors) => vectors.get(using));
    const indexed = [...live, ...deleted].filter((v): v is SparseVector => v !== undefined);
    const total = indexed.length;
    const idf = new Map<number, number>();
    for (const index of indices) {
      const containing = indexed.filter((vector) => vector.indices.includes(index)).length;
      idf.set(index, Math.log(1 + (total - containing + 0.5) / (containing + 0.5)));
    }
    return idf;
  }

  /** The point goes; its sparse vectors stay in the `idf` statistics, as in Qdrant's inverted index. */
  private deletePoint(stored: StubCollection, key: string): void {
    const point = stored.points.get(key);
    if (!point) return;
    stored.points.delete(key);
    if (point.sparse.size) stored.deletedSparse.push(point.sparse);
  }

  private deletePoints(stored: StubCollection, body: JsonObject): JsonValue {
    if (Array.isArray(body.points)) {
      for (const id of body.points) this.deletePoint(stored, pointKey(id));
    } else if (isObject(body.filter)) {
      for (const [key, point] of stored.points) if (this.matches(stored, point, body.filter)) this.deletePoint(stored, key);
    } else {
      throw new StubError(400, "stub: delete needs points or filter");
    }
    return { operation_id: 0, status: "completed" };
  }

  private facet(stored: StubCollection, body: JsonObject): JsonValue {
    const key = String(body.key);
    const index = stored.indexes.get(key);
    if (!index || !["keyword", "integer", "bool", "uuid"].includes(index.data_type)) {
      throw new StubError(400, `Bad request: Index required but not found for "${key}" of one of the following types: [keyword, integer, bool, uuid]`);
    }
    const limit = typeof body.limit === "number" ? body.limit : 10;
    const counts = new Map<string, { value: string | number | boolean; count: number }>();
    for (const point of stored.points.values()) {
      if (!this.matches(stored, point, body.filter)) continue;
      const seen = new Set<string>();
      for (const value of valuesAt(point.payload, key)) {
        if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean") continue;
        const id = JSON.stringify(value);
        if (seen.has(id)) continue;
        seen.add(id);
        const current = counts.get(id) ?? { value, count: 0 };
        current.count++;
        counts.set(id, current);
      }
    }
    const hits = [...counts.values()].sort((a, b) => b.count - a.count || compareFacetValues(a.value, b.value));
    return { hits: hits.slice(0, limit).map((hit) => ({ value: hit.value, count: hit.count })) };
  }

  private record(point: StoredPoint, body: JsonObject): JsonObject {
    const withPayload = body.with_payload ?? true;
    let payload: JsonObject | null = null;
    if (withPayload === true) payload = point.payload;
    else if (Array.isArray(withPayload)) {
      payload = {};
      for (const field of withPayload) {
        const top = String(field).split(".")[0] ?? "";
        if (point.payload[top] !== undefined) payload[top] = point.payload[top] ?? null;
      }
    } else if (withPayload !== false) throw new StubError(501, "stub: payload selectors are not implemented");
    const record: JsonObject = { id: point.id, payload };
    if (body.with_vector === true) {
      const vectors: JsonObject = {};
      for (const [vectorName, vector] of point.dense) vectors[vectorName] = vector;
      for (const [vectorName, vector] of point.sparse) vectors[vectorName] = { indices: vector.indices, values: vector.values };
      record.vector = vectors;
    }
    return record;
  }

  // ---- filters ----------------------------------------------------------------------------

  private matches(stored: StubCollection, point: StoredPoint, filter: JsonValue | undefined): boolean {
    if (filter === undefined || filter === null) return true;
    const clauses = asObject(filter);
    const list = (value: JsonValue | undefined): JsonValue[] => (value === undefined || value === null ? [] : Array.isArray(value) ? value : [value]);
    const must = list(clauses.must);
    const should = list(clauses.should);
    const mustNot = list(clauses.must_not);
    if (clauses.min_should !== undefined && clauses.min_should !== null) throw new StubError(501, "stub: min_should is not implemented");
    return (
      must.every((condition) => this.condition(stored, point, condition)) &&
      (should.length === 0 || should.some((condition) => this.condition(stored, point, condition))) &&
      !mustNot.some((condition) => this.condition(stored, point, condition))
    );
  }

  private condition(stored: StubCollection, point: StoredPoint, raw: JsonValue): boolean {
    const condition = asObject(raw);
    if (Array.isArray(condition.has_id)) {
      const wanted = new Set(condition.has_id.map(pointKey));
      return wanted.has(pointKey(point.id));
    }
    if ("must" in condition || "should" in condition || "must_not" in condition) return this.matches(stored, point, condition);
    if (typeof condition.key !== "string") throw new StubError(501, `stub: unsupported condition ${JSON.stringify(raw)}`);
    const values = valuesAt(point.payload, condition.key);
    if (isObject(condition.match)) {
      const match = condition.match;
      if ("value" in match) return values.some((value) => value === match.value);
      if (Array.isArray(match.any)) {
        const any = match.any;
        return values.some((value) => any.includes(value));
      }
      if (Array.isArray(match.except)) {
        const except = match.except;
        return values.length === 0 || values.some((value) => !except.includes(value));
      }
      throw new StubError(501, `stub: unsupported match ${JSON.stringify(match)}`);
    }
    if (isObject(condition.range)) {
      const range = condition.range;
      const bound = (name: string): number | undefined => (typeof range[name] === "number" ? (range[name] as number) : undefined);
      const [gt, gte, lt, lte] = [bound("gt"), bound("gte"), bound("lt"), bound("lte")];
      return values.some(
        (value) =>
          typeof value === "number" &&
          (gt === undefined || value > gt) &&
          (gte === undefined || value >= gte) &&
          (lt === undefined || value < lt) &&
          (lte === undefined || value <= lte),
      );
    }
    throw new StubError(501, `stub: unsupported condition ${JSON.stringify(raw)}`);
  }
}

// ---- helpers --------------------------------------------------------------------------------

function asObject(value: JsonValue | undefined): JsonObject {
  if (!isObject(value)) throw new StubError(400, "Format error in JSON body: expected an object");
  return value;
}

/** Values of a dotted payload key; arrays are flattened (Qdrant matches any element). */
function valuesAt(payload: JsonObject, key: string): JsonValue[] {
  let current: JsonValue[] = [payload];
  for (const part of key.split(".")) {
    const next: JsonValue[] = [];
    for (const value of current) {
      if (isObject(value) && value[part] !== undefined) next.push(value[part] ?? null);
    }
    current = next;
  }
  return current.flatMap((value) => (Array.isArray(value) ? value : [value]));
}

function countOr1(value: JsonValue | undefined): number {
  return typeof value === "number" ? value : 1;
}

function checkSparse(value: JsonObject): SparseVector {
  const indices = value.indices;
  const values = value.values;
  if (!Array.isArray(indices) || !Array.isArray(values) || indices.length !== values.length) {
    throw new StubError(400, "Validation error: indices and values must be the same length");
  }
  if (new Set(indices).size !== indices.length) throw new StubError(400, "Validation error: indices must be unique");
  return { indices: indices.map(Number), values: values.map(Number) };
}

function cosine(a: number[], b: number[]): number {
  let dot = 0;
  let normA = 0;
  let normB = 0;
  a.forEach((value, i) => {
    const other = b[i] ?? 0;
    dot += value * other;
    normA += value * value;
    normB += other * other;
  });
  return normA && normB ? dot / Math.sqrt(normA * normB) : 0;
}

/**
 * Facet values in Qdrant's order among equal counts (FacetHit's Ord, lib/segment/src/data_types/facets.rs):
 * ascending, keywords before integers before booleans, keywords by their UTF-8 bytes as Rust compares
 * strings, so "ACME CORP" < "Acme Corp" < "acme corp" (localeCompare would put lower case first).
 */
function compareFacetValues(a: string | number | boolean, b: string | number | boolean): number {
  const rank = (value: string | number | boolean): number => (typeof value === "string" ? 0 : typeof value === "number" ? 1 : 2);
  if (rank(a) !== rank(b)) return rank(a) - rank(b);
  if (typeof a === "string" && typeof b === "string") return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
  return Number(a) - Number(b);
}

/** Qdrant orders integer ids before UUIDs, UUIDs by their 128-bit value (= lower-case hex order). */
function compareIds(a: string | number, b: string | number): number {
  if (typeof a === "number" && typeof b === "number") return a - b;
  if (typeof a === "number") return -1;
  if (typeof b === "number") return 1;
  const [x, y] = [a.toLowerCase().replace(/-/g, ""), b.toLowerCase().replace(/-/g, "")];
  return x < y ? -1 : x > y ? 1 : 0;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}
