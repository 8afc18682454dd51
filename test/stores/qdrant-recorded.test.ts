/**
 * SpecCheckingQdrantStub held to a real Qdrant (issue 32, item 3): every HTTP exchange the adapter had
 * with Qdrant 1.18.3 during a live contract run (../shared/qdrant/recorded/contract-suite.jsonl, layout 1:
 * the lexical sparse vector created with `modifier: "idf"`) is replayed, in order, against a fresh stub.
 * Each answer must carry the recorded status; each read must return the recorded point ids in the
 * recorded order, with scores within 1e-4 where the request asked for scores, and the recorded counts
 * and facet hits. Points that tie (equal score, or equal `order_by` value) may come in either order:
 * Qdrant does not order them, and the recording itself shows the same writes answered in different
 * tie orders. Every recorded query is also replayed as the one search of a `/points/query/batch`
 * request (what the adapter sends), which must answer alike. Every difference is collected first, so
 * one run shows all of them.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import { z } from "zod";
import { QDRANT_SPEC_PATH, qdrantSpecAvailable } from "./qdrant-spec.js";
import { SpecCheckingQdrantStub } from "./qdrant-stub.js";

const RECORDING_PATH = fileURLToPath(new URL("../../../shared/qdrant/recorded/contract-suite.jsonl", import.meta.url));
const SKIP = !qdrantSpecAvailable()
  ? `Qdrant OpenAPI spec not found at ${QDRANT_SPEC_PATH}: recorded-exchange replay skipped`
  : !existsSync(RECORDING_PATH)
    ? `recorded Qdrant exchanges not found at ${RECORDING_PATH}: recorded-exchange replay skipped`
    : false;
if (SKIP) console.log(`# SKIP ${SKIP}`);

/** Scores are f32 on the server and f64 here: 1e-4 is far above that noise and far below a real difference. */
const SCORE_TOLERANCE = 1e-4;
/** How many differences the assertion message spells out; the count covers them all. */
const SHOWN = 8;
/** How many more hits than the limit the stub is asked for to see how far a tie at the limit goes. */
const WIDEN = 1000;

const exchangeSchema = z.object({
  method: z.enum(["GET", "PUT", "POST", "DELETE", "PATCH"]),
  path: z.string().startsWith("/"),
  request: z.unknown(),
  status: z.number().int(),
  response: z.unknown(),
});
type Exchange = z.infer<typeof exchangeSchema>;

const pointId = z.union([z.string(), z.number()]);
const scoredPoints = z.array(z.object({ id: pointId, score: z.number() }).loose());
const records = z.array(z.object({ id: pointId, payload: z.record(z.string(), z.unknown()).nullish() }).loose());
const readRequest = z.object({ limit: z.number().int().optional(), order_by: z.union([z.string(), z.object({ key: z.string() }).loose()]).nullish() }).loose();

/** One returned point: its id and, when the answer is ranked, what it was ranked by (score or order_by value). */
interface Hit {
  id: string;
  key?: number;
}
/** What a read answered, reduced to what must match: hits in order, counts, facet hits. */
interface Answer {
  hits?: Hit[];
  /** Hits are ranked by `key`: equal keys may come in any order, since Qdrant does not order ties. */
  ranked?: boolean;
  /** The request's limit: a tie running up to it may have been cut anywhere. */
  limit?: number;
  nextPage?: string | null;
  values?: unknown;
}

function loadExchanges(): Exchange[] {
  return readFileSync(RECORDING_PATH, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line, index) => {
      const parsed = exchangeSchema.safeParse(JSON.parse(line));
      if (!parsed.success) throw new Error(`recording line ${index + 1}: ${parsed.error.message}`);
      return parsed.data;
    });
}

/** Qdrant answers UUIDs in canonical hyphenated lower case; the stub echoes what it was sent. */
function idKey(id: string | number): string {
  return typeof id === "number" ? `#${id}` : id.toLowerCase().replace(/-/g, "");
}

/** The operation a path names, by its last segments (the collection name is whatever was recorded). */
function operationOf(method: string, path: string): string {
  const tail = path.replace(/^\/collections\/[^/]+/, "");
  return `${method} ${tail === "" ? "/" : tail}`;
}

function resultOf(response: unknown): unknown {
  return z.object({ result: z.unknown() }).loose().safeParse(response).data?.result;
}

/** A payload value by dotted key, when it is one number (what order_by ranks by). */
function numberAt(payload: Record<string, unknown> | null | undefined, key: string): number | undefined {
  let current: unknown = payload;
  for (const part of key.split(".")) current = z.record(z.string(), z.unknown()).safeParse(current).data?.[part];
  return typeof current === "number" ? current : undefined;
}

function scoredAnswer(points: z.infer<typeof scoredPoints>, limit: number): Answer {
  return { hits: points.map((point) => ({ id: idKey(point.id), key: point.score })), ranked: true, limit };
}

/** A scroll page: by id without order_by (a total order), else by the order_by value, ties unordered. */
function scrollAnswer(result: unknown, request: z.infer<typeof readRequest>): Answer {
  const page = z.object({ points: records, next_page_offset: pointId.nullish() }).parse(result);
  const next = page.next_page_offset;
  const orderBy = request.order_by;
  const orderKey = typeof orderBy === "string" ? orderBy : orderBy?.key;
  const hits = page.points.map((point) => {
    const key = orderKey === undefined ? undefined : numberAt(point.payload, orderKey);
    return { id: idKey(point.id), ...(key === undefined ? {} : { key }) };
  });
  return {
    hits,
    ranked: orderKey !== undefined,
    limit: request.limit ?? 10,
    nextPage: next === undefined || next === null ? null : idKey(next),
  };
}

/** The comparable part of a 200 answer; undefined for writes and collection management (status only). */
function answerOf(operation: string, requestBody: unknown, response: unknown): Answer | undefined {
  const result = resultOf(response);
  const request = readRequest.safeParse(requestBody ?? {}).data ?? {};
  switch (operation) {
    case "POST /points/query":
      return scoredAnswer(scoredPoints.parse(z.object({ points: z.unknown() }).parse(result).points), request.limit ?? 10);
    case "POST /points/search":
      return scoredAnswer(scoredPoints.parse(result), request.limit ?? 10);
    case "POST /points/scroll":
      return scrollAnswer(result, request);
    case "POST /points":
      return { hits: records.parse(result).map((point) => ({ id: idKey(point.id) })) };
    case "POST /points/count":
      return { values: z.object({ count: z.number() }).parse(result).count };
    case "POST /facet":
      return { values: z.object({ hits: z.array(z.object({ value: z.unknown(), count: z.number() })) }).parse(result).hits };
    case "GET /exists":
      return { values: z.object({ exists: z.boolean() }).parse(result).exists };
    default:
      return undefined;
  }
}

/** Keys that differ by no more than f32 rounding are one tie. */
function sameKey(a: number | undefined, b: number | undefined): boolean {
  return a !== undefined && b !== undefined && Math.abs(a - b) <= SCORE_TOLERANCE;
}

/**
 * Ranked hits agree when the keys agree position by position and each run of tied keys holds the same
 * ids in some order. Qdrant leaves ties in no defined order (the same writes gave different orders in
 * different collections of the recording), so the order within a tie is not compared. A tie that runs
 * up to the limit may go on past it, so the server's ids there need only be among the points the stub
 * ties at that key when asked for more (`tiedAtCut`).
 */
function rankingDifferences(recorded: Answer, replayed: Answer, tiedAtCut: ReadonlySet<string>): string[] {
  const [server, stub] = [recorded.hits ?? [], replayed.hits ?? []];
  const ids = (hits: Hit[]): string => JSON.stringify(hits.map((hit) => hit.id));
  if (server.length !== stub.length) return [`ids ${ids(server)} != stub ${ids(stub)}`];
  const found: string[] = [];
  const offKeys = server.flatMap((hit, i) => (hit.key !== undefined && !sameKey(hit.key, stub[i]?.key) ? [`#${i}: ${hit.key} != stub ${stub[i]?.key}`] : []));
  if (offKeys.length) found.push(`ranking keys ${offKeys.join(", ")}`);
  for (const [start, end] of tieRuns(recorded)) {
    const [serverRun, stubRun] = [server.slice(start, end), stub.slice(start, end)];
    if (ids(sortById(serverRun)) === ids(sortById(stubRun))) continue;
    const cut = recorded.ranked && end === server.length && server.length === recorded.limit;
    if (cut && serverRun.every((hit) => tiedAtCut.has(hit.id))) continue;
    const beyond = cut ? ` (stub ties at the limit: ${JSON.stringify([...tiedAtCut])})` : "";
    found.push(`ids at ${start}..${end - 1} ${ids(serverRun)} != stub ${ids(stubRun)}${beyond}`);
  }
  return found;
}

/** [start, end) of each run of equal keys in a ranked answer; every hit alone in an unranked one. */
function tieRuns(answer: Answer): Array<[number, number]> {
  const hits = answer.hits ?? [];
  const runs: Array<[number, number]> = [];
  for (let start = 0; start < hits.length; ) {
    let end = start + 1;
    while (answer.ranked && end < hits.length && sameKey(hits[end]?.key, hits[start]?.key)) end++;
    runs.push([start, end]);
    start = end;
  }
  return runs;
}

function sortById(hits: Hit[]): Hit[] {
  return [...hits].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** The differences between what the server answered and what the stub answered, in words. */
function differences(recorded: Answer, replayed: Answer, tiedAtCut: ReadonlySet<string>): string[] {
  const found = recorded.hits ? rankingDifferences(recorded, replayed, tiedAtCut) : [];
  if ("nextPage" in recorded && recorded.nextPage !== replayed.nextPage) found.push(`next_page_offset ${recorded.nextPage} != stub ${replayed.nextPage}`);
  if ("values" in recorded && JSON.stringify(recorded.values) !== JSON.stringify(replayed.values)) {
    found.push(`${JSON.stringify(recorded.values)} != stub ${JSON.stringify(replayed.values)}`);
  }
  return found;
}

async function send(stub: SpecCheckingQdrantStub, method: string, path: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${stub.url}${path}`, {
    method,
    ...(body === null || body === undefined ? {} : { body: JSON.stringify(body), headers: { "content-type": "application/json" } }),
  });
  return { status: response.status, body: await response.json() };
}

/**
 * The ids the stub ranks level with the recorded answer's last hit, asking for WIDEN more than the
 * limit (a read, so replaying it changes nothing). Empty unless the answer is ranked and full.
 */
async function tiedAtCut(stub: SpecCheckingQdrantStub, exchange: Exchange, operation: string, recorded: Answer): Promise<Set<string>> {
  const hits = recorded.hits ?? [];
  const last = hits.at(-1);
  if (!recorded.ranked || last === undefined || hits.length !== recorded.limit) return new Set();
  const wider = { ...z.record(z.string(), z.unknown()).parse(exchange.request), limit: hits.length + WIDEN };
  const answer = answerOf(operation, wider, (await send(stub, exchange.method, exchange.path, wider)).body);
  return new Set((answer?.hits ?? []).filter((hit) => sameKey(hit.key, last.key)).map((hit) => hit.id));
}

/** Replays one exchange; [] when the stub answered as recorded, else one line saying how it did not. */
async function check(stub: SpecCheckingQdrantStub, exchange: Exchange, line: number): Promise<string[]> {
  const where = `line ${line} ${exchange.method} ${exchange.path}`;
  const replayed = await send(stub, exchange.method, exchange.path, exchange.request);
  if (replayed.status !== exchange.status) return [`${where}: status ${exchange.status} != stub ${replayed.status}`];
  if (exchange.status !== 200) return [];
  const operation = operationOf(exchange.method, exchange.path.split("?")[0] ?? "");
  const recorded = answerOf(operation, exchange.request, exchange.response);
  if (!recorded) return [];
  const tied = await tiedAtCut(stub, exchange, operation, recorded);
  const found = differences(recorded, answerOf(operation, exchange.request, replayed.body) ?? {}, tied);
  if (operation === "POST /points/query") found.push(...(await batchDifferences(stub, exchange, recorded, tied)));
  return found.length ? [`${where}: ${found.join("; ")}`] : [];
}

/**
 * A recorded query sent again as the one search of a `/points/query/batch` request, which the adapter
 * sends instead: Qdrant answers each search of a batch as it answers that query alone, so the batch's
 * first answer must match what the server answered to the query.
 */
async function batchDifferences(stub: SpecCheckingQdrantStub, exchange: Exchange, recorded: Answer, tied: ReadonlySet<string>): Promise<string[]> {
  const batch = await send(stub, "POST", `${exchange.path}/batch`, { searches: [exchange.request] });
  if (batch.status !== 200) return [`as a batch: status ${batch.status}`];
  const [first] = z.array(z.unknown()).parse(resultOf(batch.body));
  const replayed = answerOf("POST /points/query", exchange.request, { result: first });
  return differences(recorded, replayed ?? {}, tied).map((difference) => `as a batch: ${difference}`);
}

describe("SpecCheckingQdrantStub answers as the recorded Qdrant 1.18.3 did (layout 1)", { skip: SKIP }, () => {
  let stub: SpecCheckingQdrantStub;
  before(async () => {
    stub = await SpecCheckingQdrantStub.start();
  });
  after(async () => {
    await stub?.close();
  });

  it("every recorded exchange, replayed in order: same status, ids and order, scores within 1e-4, counts", async () => {
    const exchanges = loadExchanges();
    const found: string[] = [];
    // In order, one at a time: later answers depend on the writes before them.
    for (const [index, exchange] of exchanges.entries()) found.push(...(await check(stub, exchange, index + 1)));
    assert.ok(exchanges.length > 0, "the recording is not empty");
    assert.deepEqual(stub.violations, [], "every recorded request and every stub answer satisfied Qdrant's OpenAPI spec");
    assert.equal(found.length, 0, `${found.length} of ${exchanges.length} exchanges differ; first ${SHOWN}:\n${found.slice(0, SHOWN).join("\n")}`);
  });
});
