/**
 * The Qdrant REST calls the adapter makes, over KeepAliveHttpClient (core/http-client.ts says why not
 * the global `fetch` that @qdrant/js-client-rest uses). Request bodies keep the client package's
 * types (`Schemas`); each answer's `result` is checked with a schema of the part the adapter reads.
 * Every request is counted, with the `time` Qdrant reports in each answer (its own seconds spent on
 * it), so a benchmark can tell the server's time from the client's and the network's.
 */
import type { Schemas } from "@qdrant/js-client-rest";
import { z } from "zod";
import { KeepAliveHttpClient, type HttpRequestSpec } from "../core/http-client.js";

/**
 * The most one answer may carry: the largest the adapter asks for is a query of MAX_CANDIDATES
 * (10,000) points with their payloads (a few kB each), far above a page of 256 or a facet of 10,000 values.
 */
export const QDRANT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
/** Connections to the server at once, as @qdrant/js-client-rest's pool: the idf counts of a long question go out together. */
const MAX_CONNECTIONS = 25;

/** A non-2xx answer: its status and the server's own message. The adapter hands it on as a StoreError's `cause`. */
export class QdrantApiError extends Error {
  constructor(
    readonly status: number,
    readonly serverMessage: string | undefined,
  ) {
    super(`Qdrant answered HTTP ${status}${serverMessage ? `: ${serverMessage}` : ""}`);
    this.name = "QdrantApiError";
  }
}

/** What the adapter's requests cost so far: how many were sent, and the seconds Qdrant says it spent on them. */
export interface QdrantTraffic {
  requests: number;
  serverSeconds: number;
}

const PointIdSchema = z.union([z.string(), z.number()]).describe("A point id: a UUID or an unsigned integer");
const RecordSchema = z
  .object({ id: PointIdSchema, payload: z.unknown().describe("The point's payload, checked by whoever reads it") })
  .describe("A point without its score (scroll, retrieve)");
const ScoredPointSchema = RecordSchema.extend({ score: z.number().describe("The query's score of the point") }).describe("A point a query found");
export type QdrantRecord = z.infer<typeof RecordSchema>;
export type QdrantScoredPoint = z.infer<typeof ScoredPointSchema>;

const ScrollResultSchema = z
  .object({
    points: z.array(RecordSchema),
    next_page_offset: PointIdSchema.nullish().describe("Where the next page starts; absent or null on the last page"),
  })
  .describe("A page of a scroll");
const CountResultSchema = z.object({ count: z.number().int().min(0).describe("Points matching the filter") });
const FacetResultSchema = z.object({
  hits: z.array(z.object({ value: z.union([z.string(), z.number(), z.boolean()]), count: z.number().int() }).describe("A value and how many points hold it")),
});
const QueryBatchResultSchema = z.array(z.object({ points: z.array(ScoredPointSchema) })).describe("One answer per search, in the order sent");
const ExistsResultSchema = z.object({ exists: z.boolean().describe("Whether the collection exists") });
const AcknowledgedSchema = z.unknown().describe("A write's acknowledgement (`wait=true`: sent once applied); nothing in it is read");

/** Every answer's envelope: the result (checked by the call's own schema), and the server's own time in seconds. */
const EnvelopeSchema = z.object({
  result: z.unknown().describe("What the request asked for"),
  time: z.number().optional().describe("Seconds the server spent on the request"),
});
const ErrorEnvelopeSchema = z.object({ status: z.object({ error: z.string() }).describe("Qdrant's error message") });

export interface QdrantRestOptions {
  url: string;
  apiKey?: string | undefined;
  timeoutMs: number;
}

export class QdrantRest {
  private readonly http: KeepAliveHttpClient;
  private readonly counted: QdrantTraffic = { requests: 0, serverSeconds: 0 };

  constructor(options: QdrantRestOptions) {
    this.http = new KeepAliveHttpClient({
      baseUrl: options.url,
      headers: { "user-agent": "recallgraph", ...(options.apiKey ? { "api-key": options.apiKey } : {}) },
      timeoutMs: options.timeoutMs,
      maxResponseBytes: QDRANT_MAX_RESPONSE_BYTES,
      maxSockets: MAX_CONNECTIONS,
    });
  }

  /** The requests sent so far and the server's time on them (a copy). */
  traffic(): QdrantTraffic {
    return { ...this.counted };
  }

  close(): void {
    this.http.close();
  }

  async collectionExists(collection: string): Promise<boolean> {
    return (await this.call("GET", `${pathOf(collection)}/exists`, undefined, ExistsResultSchema, true)).exists;
  }

  /** The collection's info, unchecked: the adapter reads the parts it relies on. */
  getCollection(collection: string): Promise<unknown> {
    return this.call("GET", pathOf(collection), undefined, z.unknown(), true);
  }

  async createCollection(collection: string, body: Schemas["CreateCollection"]): Promise<void> {
    await this.call("PUT", pathOf(collection), body, AcknowledgedSchema, false);
  }

  /** True when the server had the collection to delete. */
  deleteCollection(collection: string): Promise<boolean> {
    return this.call("DELETE", pathOf(collection), undefined, z.boolean(), true);
  }

  async createPayloadIndex(collection: string, body: Schemas["CreateFieldIndex"]): Promise<void> {
    await this.call("PUT", `${pathOf(collection)}/index?wait=true`, body, AcknowledgedSchema, true);
  }

  /**
   * Writes points, answered once applied. With `ordering: "strong"` the write goes through each shard's
   * leader; a conditional upsert (`update_filter`) is not sent twice, since its second try would be
   * judged against what the first wrote.
   */
  async upsert(collection: string, body: Schemas["PointsList"], options: { ordering?: "strong" } = {}): Promise<void> {
    const ordering = options.ordering ? `&ordering=${options.ordering}` : "";
    const conditional = body.update_filter !== undefined && body.update_filter !== null;
    await this.call("PUT", `${pathOf(collection)}/points?wait=true${ordering}`, body, AcknowledgedSchema, !conditional);
  }

  async deletePoints(collection: string, body: Schemas["PointsSelector"]): Promise<void> {
    await this.call("POST", `${pathOf(collection)}/points/delete?wait=true`, body, AcknowledgedSchema, true);
  }

  scroll(collection: string, body: Schemas["ScrollRequest"]): Promise<z.infer<typeof ScrollResultSchema>> {
    return this.call("POST", `${pathOf(collection)}/points/scroll`, body, ScrollResultSchema, true);
  }

  async count(collection: string, body: Schemas["CountRequest"]): Promise<number> {
    return (await this.call("POST", `${pathOf(collection)}/points/count`, body, CountResultSchema, true)).count;
  }

  facet(collection: string, body: Schemas["FacetRequest"]): Promise<z.infer<typeof FacetResultSchema>> {
    return this.call("POST", `${pathOf(collection)}/facet`, body, FacetResultSchema, true);
  }

  /** Several queries in one request; one answer per search, in order. */
  async queryBatch(collection: string, searches: Schemas["QueryRequest"][]): Promise<QdrantScoredPoint[][]> {
    const answers = await this.call("POST", `${pathOf(collection)}/points/query/batch`, { searches }, QueryBatchResultSchema, true);
    if (answers.length !== searches.length) throw new Error(`Qdrant answered ${answers.length} searches of a batch of ${searches.length}`);
    return answers.map((answer) => answer.points);
  }

  /** Points by id; `consistency: "all"` returns a point only when every replica holds the same one. */
  retrieve(collection: string, body: Schemas["PointRequest"], options: { consistency?: "all" } = {}): Promise<QdrantRecord[]> {
    const consistency = options.consistency ? `?consistency=${options.consistency}` : "";
    return this.call("POST", `${pathOf(collection)}/points${consistency}`, body, z.array(RecordSchema), true);
  }

  /** One request: its result checked with `schema`, its server time counted; a non-2xx answer is a QdrantApiError. */
  private async call<S extends z.ZodType>(method: HttpRequestSpec["method"], path: string, body: unknown, schema: S, idempotent: boolean): Promise<z.output<S>> {
    this.counted.requests += 1;
    const answer = await this.http.request({ method, path, idempotent, ...(body === undefined ? {} : { json: JSON.stringify(body) }) });
    const json = parseJson(answer.body);
    if (answer.status < 200 || answer.status > 299) throw new QdrantApiError(answer.status, ErrorEnvelopeSchema.safeParse(json).data?.status.error);
    const envelope = EnvelopeSchema.safeParse(json);
    const result = envelope.success ? schema.safeParse(envelope.data.result) : envelope;
    if (!result.success) throw new Error(`unexpected answer from Qdrant to ${method} ${path.split("?")[0]}: ${result.error.issues[0]?.message ?? "malformed"}`);
    this.counted.serverSeconds += envelope.data?.time ?? 0;
    return result.data;
  }
}

function pathOf(collection: string): string {
  return `/collections/${encodeURIComponent(collection)}`;
}

/** The body as JSON, or undefined when it is not (a proxy's HTML error page). */
function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    return undefined;
  }
}
