/**
 * Load benchmark (a script, not a test): readers and writers at once, against the library and against
 * the LangGraph dev server, bounded in count and time, checking correctness while it loads.
 *
 *   npm run bench:load -- [--target library|server|both] [--readers 8] [--writers 2] [--namespaces 4]
 *     [--requests 5000] [--seconds 30] [--entries 1000] [--embedder use-lite|hash]
 *     [--jobs-per-worker 10] [--timeout-ms 60000] [--out bench/results/load.json]
 *
 * What it does, per target:
 * - A fresh sqlite file in a temp folder, preloaded with `--entries` synthetic memories
 *   (bench/synthetic.ts) spread over `--namespaces` namespaces. The embedder is the README's main
 *   path, the offline USE-lite default, unless `--embedder hash`; no LLM (rules plan and judge).
 *   The preload is built once and copied, so both targets start from the same file.
 * - `library`: openRecallGraph (src/index.ts) in this process; `server`: `langgraphjs dev` on
 *   127.0.0.1 with RECALLGRAPH_API_KEYS set, one key per namespace, every call made with its
 *   namespace's key through @langchain/langgraph-sdk as a stateless run (`runs.wait(null, ...)`):
 *   `recallgraph` for retrievals, `remember` for writes. Before loading it, three requests check that
 *   auth is on (no key and a wrong key: 401; another namespace: 403).
 * - Closed-loop clients: each writer writes one new fact after another, taking namespaces in turn;
 *   each reader asks about a fact a writer has already written (acknowledged) in the reader's own
 *   namespace, the newest one half of the time. The run stops issuing at `--requests` operations or
 *   after `--seconds`, whichever comes first, and waits for what is in flight.
 * - Correctness under load: a read whose fact is not among its results is a "miss"; a result from
 *   another namespace (by its `namespace` field or by its id, which names the namespace it was
 *   written to) is an isolation violation. Facts of different namespaces share their codes
 *   (PARCEL-1, PARCEL-2, ...) on purpose, so a leak would rank at the top and be seen.
 * - Memory: the library's is this process's RSS (sampled during the load, and the process's peak,
 *   which includes the preload); the server's is the summed RSS of every process in its group.
 * - Timers: a 50 ms heartbeat in this process. For the library, beats that did not run are time its
 *   calls kept the event loop from timers and I/O; for the server, only the clients run here. The
 *   server's own run queue and execution times are read from its JSON log.
 *
 * Latencies are of successful operations; errors are counted apart and the first few are printed.
 * Exit code 1 when an isolation violation or a failed auth check was seen.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Client } from "@langchain/langgraph-sdk";
import { z } from "zod";
import { untilAborted } from "../src/core/time-limit.js";
import { percentile, roundTo } from "../src/eval/metrics.js";
import { table } from "../src/eval/report.js";
import { openRecallGraph, type EmbedderConfig, type MemoryInput } from "../src/index.js";
import { groupRssBytes, startServer, type RunningServer } from "./load-server.js";
import { SYNTHETIC_NOW, seededRandom, syntheticMemories } from "./synthetic.js";
import { machineDescription } from "./machine.js";
import { ownPeakRssMb } from "./peak-rss.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const DEFAULT_OUT = join(ROOT, "bench", "results", "load.json");
const MB = 1024 * 1024;
const SAMPLE_EVERY_MS = 250;
/** One sample every this often goes into the memory timeline, to tell growth from a one-off rise. */
const TIMELINE_EVERY_MS = 5000;
const TICK_MS = 50;
const KEEP_EXAMPLES = 5;
const SERVER_START_TIMEOUT_MS = 180_000;
const FACT_BODIES = 256;

const ArgsSchema = z
  .object({
    target: z.enum(["library", "server", "both"]),
    // 0 readers or 0 writers is allowed: a write-only or read-only baseline to compare the mix with.
    readers: z.coerce.number().int().min(0).max(256),
    writers: z.coerce.number().int().min(0).max(256),
    namespaces: z.coerce.number().int().min(1).max(64),
    requests: z.coerce.number().int().min(1).max(1_000_000),
    seconds: z.coerce.number().positive().max(3600),
    entries: z.coerce.number().int().min(0).max(200_000),
    embedder: z.enum(["use-lite", "hash"]),
    jobsPerWorker: z.coerce.number().int().min(1).max(256),
    timeoutMs: z.coerce.number().int().min(100).max(600_000),
    out: z.string().min(1),
  })
  .refine((args) => args.readers + args.writers > 0, { message: "--readers and --writers cannot both be 0", path: ["readers"] });
type Args = z.infer<typeof ArgsSchema>;

const FLAG_DEFAULTS = {
  target: "both",
  readers: "8",
  writers: "2",
  namespaces: "4",
  requests: "5000",
  seconds: "30",
  entries: "1000",
  embedder: "use-lite",
  "jobs-per-worker": "10", // the langgraphjs dev default (N_JOBS_PER_WORKER)
  "timeout-ms": "60000",
  out: DEFAULT_OUT,
} as const;

function readArgs(argv: readonly string[]): Args {
  const options = Object.fromEntries(Object.entries(FLAG_DEFAULTS).map(([name, value]) => [name, { type: "string" as const, default: value }]));
  const { values } = parseArgs({ args: [...argv], options, strict: true, allowPositionals: false });
  const parsed = ArgsSchema.safeParse({ ...values, jobsPerWorker: values["jobs-per-worker"], timeoutMs: values["timeout-ms"] });
  if (!parsed.success) throw new Error(parsed.error.issues.map((issue) => `--${issue.path.join(".")}: ${issue.message}`).join("; "));
  return parsed.data;
}

// ---------------------------------------------------------------------------------------------
// Facts: what writers write and readers ask about

interface Fact {
  id: string;
  namespace: string;
  question: string;
  memory: MemoryInput;
}

/** The namespace an id was written to: every id this benchmark writes starts with it. */
function ownerOf(id: string): string {
  return id.slice(0, id.indexOf(":"));
}

/**
 * The facts of one run: drafted by writers, acknowledged once a write returns, picked by readers.
 * Each namespace numbers its own facts, so the same code exists in every namespace.
 */
class FactLedger {
  private readonly drafted = new Map<string, number>();
  private readonly written = new Map<string, Fact[]>();
  private readonly bodies = syntheticMemories(FACT_BODIES, 2024);
  private turns = 0;

  constructor(readonly namespaces: readonly string[]) {}

  /** The namespace the next write goes to: all of them in turn, whichever writer asks. */
  nextNamespace(): string {
    const namespace = this.namespaces[this.turns % this.namespaces.length];
    this.turns += 1;
    if (namespace === undefined) throw new RangeError("no namespaces");
    return namespace;
  }

  draft(namespace: string): Fact {
    const n = (this.drafted.get(namespace) ?? 0) + 1;
    this.drafted.set(namespace, n);
    const body = this.bodies[n % this.bodies.length] ?? { text: "Somebody said nothing." };
    const code = `PARCEL-${n}`;
    const keeper = body.speaker ?? "Somebody";
    const id = `${namespace}:fact:${n}`;
    const memory: MemoryInput = { ...body, id, text: `${body.text} ${keeper} is keeping parcel ${code}.`, entities: [code], source: { turnIds: [id] } };
    return { id, namespace, question: `Who is keeping parcel ${code}?`, memory };
  }

  acknowledge(fact: Fact): void {
    const list = this.written.get(fact.namespace) ?? [];
    list.push(fact);
    this.written.set(fact.namespace, list);
  }

  /** An acknowledged fact of `namespace`: the newest half of the time (read-after-write), else any. */
  pick(namespace: string, random: () => number): Fact {
    const list = this.written.get(namespace) ?? [];
    const fact = random() < 0.5 ? list.at(-1) : list[Math.floor(random() * list.length)];
    if (fact === undefined) throw new Error(`namespace ${namespace} has no acknowledged fact (the warm-up writes one)`);
    return fact;
  }
}

// ---------------------------------------------------------------------------------------------
// Targets: the same two operations over the library and over the server

interface Answer {
  results: ReadonlyArray<{ id: string; namespace: string }>;
  degraded: number;
  /** The run's own account: wall time summed over its nodes (what the graph did, not the transport around it). */
  nodeMs: number;
}

function nodeTimeOf(account: { nodeMs: Record<string, number> } | undefined): number {
  return Object.values(account?.nodeMs ?? {}).reduce((sum, ms) => sum + ms, 0);
}

interface Target {
  retrieve(namespace: string, question: string, signal: AbortSignal): Promise<Answer>;
  /** Resolves with the ids the write reports as written. */
  write(fact: Fact, signal: AbortSignal): Promise<readonly string[]>;
  /** Resident memory now, in bytes, of what serves the calls. */
  rss(): number;
  /** Called when the clock starts, after the warm-up. */
  startMeasuring?(): void;
  /** Whether `rss` is cheap enough to read after every operation. */
  cheapRss?: boolean;
}

function embedderConfig(args: Args): EmbedderConfig {
  return { provider: args.embedder };
}

async function openLibraryTarget(path: string, args: Args): Promise<Target & { close: () => Promise<void> }> {
  const memory = await openRecallGraph({ store: { kind: "sqlite", path }, embedder: embedderConfig(args), model: null });
  return {
    retrieve: async (namespace, question, signal) => {
      // The library takes no signal; the race stops the clock on a call that hangs, it does not cancel it.
      const output = await untilAborted(memory.retrieve({ question, namespace, now: SYNTHETIC_NOW }), signal);
      return { results: output.results, degraded: output.degraded.length, nodeMs: nodeTimeOf(output.account) };
    },
    write: async (fact, signal) => (await untilAborted(memory.remember(fact.namespace, [fact.memory]), signal)).map((entry) => entry.id),
    rss: () => process.memoryUsage.rss(),
    cheapRss: true,
    close: () => memory.close(),
  };
}

const ServerAnswerSchema = z.object({
  results: z.array(z.object({ id: z.string(), namespace: z.string() })),
  degraded: z.array(z.unknown()).default([]),
  account: z.object({ nodeMs: z.record(z.string(), z.number()) }).optional(),
});
const ServerWrittenSchema = z.object({ written: z.array(z.string()) });

/** One line of the server's JSON log; the worker logs how long each run queued and ran. */
const ServerLogLineSchema = z.object({ event: z.string(), run_queue_ms: z.number().optional(), run_exec_ms: z.number().optional() });

/** Queue and execution times of the server's runs, read from its log while measuring. */
class ServerRunTimes {
  private measuring = false;
  readonly queueMs: number[] = [];
  readonly execMs: number[] = [];

  start(): void {
    this.measuring = true;
  }

  read(line: string): void {
    if (!this.measuring || !line.startsWith("{")) return;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      return; // a line that only looks like JSON: not a log record
    }
    const record = ServerLogLineSchema.safeParse(json);
    if (!record.success) return;
    if (record.data.event === "Starting background run" && record.data.run_queue_ms !== undefined) this.queueMs.push(record.data.run_queue_ms);
    if (record.data.event === "Background run succeeded" && record.data.run_exec_ms !== undefined) this.execMs.push(record.data.run_exec_ms);
  }

  summary(): { runs: number; queueMs: { p50: number; p95: number }; execMs: { p50: number; p95: number } } {
    const of = (values: number[]) => ({ p50: roundTo(percentile(values, 50), 1), p95: roundTo(percentile(values, 95), 1) });
    return { runs: this.execMs.length, queueMs: of(this.queueMs), execMs: of(this.execMs) };
  }
}

function openServerTarget(server: RunningServer, keys: ReadonlyMap<string, string>, times: ServerRunTimes, args: Args): Target {
  const clients = new Map(
    [...keys].map(([namespace, token]) => [
      namespace,
      new Client({
        apiUrl: server.url,
        apiKey: null, // not from the environment: the Bearer key below is the one that counts
        defaultHeaders: { authorization: `Bearer ${token}` },
        // No retries (they would hide errors) and no client-side queue: the SDK's default is 4 at a time per client.
        callerOptions: { maxRetries: 0, maxConcurrency: args.readers + args.writers },
      }),
    ]),
  );
  const clientOf = (namespace: string) => {
    const client = clients.get(namespace);
    if (!client) throw new Error(`no key for namespace ${namespace}`);
    return client;
  };
  return {
    retrieve: async (namespace, question, signal) => {
      const input = { question, namespaces: [namespace], now: SYNTHETIC_NOW };
      const answer = ServerAnswerSchema.parse(await clientOf(namespace).runs.wait(null, "recallgraph", { input, signal }));
      return { results: answer.results, degraded: answer.degraded.length, nodeMs: nodeTimeOf(answer.account) };
    },
    write: async (fact, signal) => {
      const input = { namespace: fact.namespace, memories: [fact.memory] };
      return ServerWrittenSchema.parse(await clientOf(fact.namespace).runs.wait(null, "remember", { input, signal })).written;
    },
    rss: () => groupRssBytes(server.pid).bytes,
    startMeasuring: () => times.start(),
  };
}

// ---------------------------------------------------------------------------------------------
// The load: closed-loop readers and writers, one shared budget

type Operation = "retrieve" | "write";

class Recorder {
  readonly latencies: Record<Operation, number[]> = { retrieve: [], write: [] };
  readonly errors: Record<Operation, number> = { retrieve: 0, write: 0 };
  readonly errorMessages: string[] = [];
  readonly nodeMs: number[] = [];
  checkedReads = 0;
  misses = 0;
  violations = 0;
  degradedReads = 0;
  readonly examples: string[] = [];

  constructor(
    private readonly timeoutMs: number,
    private readonly afterEach?: () => void,
  ) {}

  /**
   * Runs one operation under the per-operation timeout; records its latency, or its error. The
   * timeout is a timer: it ends a call that waits (a hung server, a hung I/O call), not library work
   * that keeps the event loop busy (see sampleMemory).
   */
  async measure<T>(operation: Operation, work: (signal: AbortSignal) => Promise<T>): Promise<T | undefined> {
    const started = performance.now();
    try {
      const value = await work(AbortSignal.timeout(this.timeoutMs));
      this.latencies[operation].push(performance.now() - started);
      return value;
    } catch (error) {
      this.errors[operation] += 1;
      keepFirst(this.errorMessages, `${operation}: ${oneLine(error)}`);
      return undefined;
    } finally {
      this.afterEach?.();
    }
  }

  check(fact: Fact, answer: Answer): void {
    this.checkedReads += 1;
    this.nodeMs.push(answer.nodeMs);
    if (answer.degraded > 0) this.degradedReads += 1;
    if (!answer.results.some((result) => result.id === fact.id)) {
      this.misses += 1;
      keepFirst(this.examples, `miss: "${fact.question}" in ${fact.namespace} did not return ${fact.id} (got ${answer.results.slice(0, 3).map((r) => r.id).join(", ") || "nothing"})`);
    }
    for (const result of answer.results) {
      if (result.namespace === fact.namespace && ownerOf(result.id) === fact.namespace) continue;
      this.violations += 1;
      keepFirst(this.examples, `ISOLATION: a read of ${fact.namespace} returned ${result.id} from ${result.namespace}`);
    }
  }
}

function keepFirst(list: string[], message: string): void {
  if (list.length < KEEP_EXAMPLES) list.push(message);
}

function oneLine(error: unknown): string {
  const text = error instanceof Error ? `${error.name === "Error" ? "" : `${error.name}: `}${error.message}` : String(error);
  return text.replace(/\s+/g, " ").slice(0, 300);
}

/** Hands out the operations of one run: at most `limit`, none after `endsAt`. */
class Budget {
  issued = 0;
  private readonly endsAt: number;

  constructor(
    private readonly limit: number,
    seconds: number,
  ) {
    this.endsAt = performance.now() + seconds * 1000;
  }

  take(): boolean {
    if (this.issued >= this.limit || performance.now() >= this.endsAt) return false;
    this.issued += 1;
    return true;
  }

  get stoppedBy(): "requests" | "seconds" {
    return this.issued >= this.limit ? "requests" : "seconds";
  }
}

async function writerLoop(target: Target, ledger: FactLedger, budget: Budget, recorder: Recorder): Promise<void> {
  while (budget.take()) {
    const fact = ledger.draft(ledger.nextNamespace());
    const written = await recorder.measure("write", async (signal) => {
      const ids = await target.write(fact, signal);
      if (!ids.includes(fact.id)) throw new Error(`the write of ${fact.id} returned without it (written: ${ids.join(", ")})`);
      return ids;
    });
    if (written) ledger.acknowledge(fact);
  }
}

async function readerLoop(target: Target, ledger: FactLedger, namespace: string, random: () => number, budget: Budget, recorder: Recorder): Promise<void> {
  while (budget.take()) {
    const fact = ledger.pick(namespace, random);
    const answer = await recorder.measure("retrieve", (signal) => target.retrieve(namespace, fact.question, signal));
    if (answer) recorder.check(fact, answer);
  }
}

/** One fact written and asked for in each namespace, untimed: loads the model, compiles, fills caches. */
async function warmUp(target: Target, ledger: FactLedger): Promise<void> {
  for (const namespace of ledger.namespaces) {
    const fact = ledger.draft(namespace);
    const signal = AbortSignal.timeout(SERVER_START_TIMEOUT_MS);
    const ids = await target.write(fact, signal);
    if (!ids.includes(fact.id)) throw new Error(`warm-up: the write of ${fact.id} returned without it`);
    ledger.acknowledge(fact);
    await target.retrieve(namespace, fact.question, signal);
  }
}

/**
 * Peak, first and last of a memory reading, and a coarse timeline. Read on a timer and, when the
 * target says reading is cheap, after every operation too: the library's calls run as one unbroken
 * chain of promises (sqlite and the embedder are synchronous), so while they overlap the event loop
 * does not reach its timers and a timer alone would see only the start and the end.
 */
function sampleMemory(read: () => number) {
  const first = read();
  let peak = first;
  let lastPoint = performance.now();
  const timelineMb = [Math.round(first / MB)];
  const sample = () => {
    const now = read();
    peak = Math.max(peak, now);
    if (performance.now() - lastPoint < TIMELINE_EVERY_MS) return;
    lastPoint = performance.now();
    timelineMb.push(Math.round(now / MB));
  };
  const timer = setInterval(sample, SAMPLE_EVERY_MS);
  return {
    sample,
    stop: () => {
      clearInterval(timer);
      const last = read();
      return { startMb: Math.round(first / MB), peakMb: Math.round(Math.max(peak, last) / MB), endMb: Math.round(last / MB), timelineMb };
    },
  };
}

/**
 * How long this process went without running a timer: a heartbeat every TICK_MS, and the longest gap
 * between two beats (the last one counted up to `stop`). For the library this is how long its calls
 * kept the event loop from timers and I/O; for the server target only the clients run here.
 */
function watchTimers() {
  let last = performance.now();
  let longest = 0;
  let beats = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    beats += 1;
  }, TICK_MS);
  return {
    stop: () => {
      clearInterval(timer);
      return { longestGapMs: roundTo(Math.max(longest, performance.now() - last), 1), beats };
    },
  };
}

interface OperationStats {
  count: number;
  ok: number;
  errors: number;
  opsPerSec: number;
  latencyMs: { p50: number; p95: number; p99: number; max: number };
}

function statsOf(latencies: readonly number[], errors: number, seconds: number): OperationStats {
  const at = (p: number) => roundTo(percentile(latencies, p), 1);
  return {
    count: latencies.length + errors,
    ok: latencies.length,
    errors,
    opsPerSec: roundTo(latencies.length / seconds, 1),
    latencyMs: { p50: at(50), p95: at(95), p99: at(99), max: at(100) },
  };
}

interface LoadOutcome {
  seconds: number;
  stoppedBy: "requests" | "seconds";
  operations: Record<Operation, OperationStats>;
  correctness: { checkedReads: number; misses: number; isolationViolations: number; degradedReads: number; examples: string[] };
  /** Per retrieval, the graph's node time summed (see Answer): compare with its latency to see the overhead around it. */
  retrieveNodeMs: { p50: number; p95: number };
  errors: { count: number; first: string[] };
  memory: { startMb: number; peakMb: number; endMb: number; timelineMb: number[] };
  /** Timer heartbeats in this process during the load (see watchTimers). */
  timers: { longestGapMs: number; beats: number; expectedBeats: number };
}

async function runLoad(target: Target, namespaces: readonly string[], args: Args): Promise<LoadOutcome> {
  const ledger = new FactLedger(namespaces);
  await warmUp(target, ledger);
  const memory = sampleMemory(() => target.rss());
  const recorder = new Recorder(args.timeoutMs, target.cheapRss ? memory.sample : undefined);
  target.startMeasuring?.();
  const timers = watchTimers();
  const started = performance.now();
  const budget = new Budget(args.requests, args.seconds);
  const namespaceOf = (i: number) => namespaces[i % namespaces.length] ?? "";
  await Promise.all([
    ...Array.from({ length: args.writers }, () => writerLoop(target, ledger, budget, recorder)),
    ...Array.from({ length: args.readers }, (_, i) => readerLoop(target, ledger, namespaceOf(i), seededRandom(1000 + i), budget, recorder)),
  ]);
  const seconds = (performance.now() - started) / 1000;
  const heartbeat = { ...timers.stop(), expectedBeats: Math.floor((seconds * 1000) / TICK_MS) };
  const errorCount = recorder.errors.retrieve + recorder.errors.write;
  return {
    seconds: roundTo(seconds, 1),
    stoppedBy: budget.stoppedBy,
    operations: {
      retrieve: statsOf(recorder.latencies.retrieve, recorder.errors.retrieve, seconds),
      write: statsOf(recorder.latencies.write, recorder.errors.write, seconds),
    },
    correctness: {
      checkedReads: recorder.checkedReads,
      misses: recorder.misses,
      isolationViolations: recorder.violations,
      degradedReads: recorder.degradedReads,
      examples: recorder.examples,
    },
    retrieveNodeMs: { p50: roundTo(percentile(recorder.nodeMs, 50), 1), p95: roundTo(percentile(recorder.nodeMs, 95), 1) },
    errors: { count: errorCount, first: recorder.errorMessages },
    memory: memory.stop(),
    timers: heartbeat,
  };
}

// ---------------------------------------------------------------------------------------------
// The two targets, end to end

interface LibraryReport extends LoadOutcome {
  target: "library";
  /** Peak RSS of this process since it started: includes building the preload. */
  processMaxRssMb: number;
}

interface AuthProbe {
  request: string;
  expected: number;
  status: number;
}

interface ServerReport extends LoadOutcome {
  target: "server";
  startSeconds: number;
  jobsPerWorker: number;
  serverProcesses: number;
  authProbes: AuthProbe[];
  /** From the server's log, over every run of the load (retrievals and writes together). */
  runs: ReturnType<ServerRunTimes["summary"]>;
}

async function libraryTarget(template: string, directory: string, namespaces: readonly string[], args: Args): Promise<LibraryReport> {
  const target = await openLibraryTarget(copyStore(template, join(directory, "library")), args);
  try {
    const outcome = await runLoad(target, namespaces, args);
    return { target: "library", ...outcome, processMaxRssMb: ownPeakRssMb() };
  } finally {
    await target.close();
  }
}

function serverEnv(path: string, keys: ReadonlyMap<string, string>, args: Args): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    RECALLGRAPH_STORE: "sqlite",
    RECALLGRAPH_DB: path,
    RECALLGRAPH_EMBEDDER: args.embedder,
    RECALLGRAPH_API_KEYS: [...keys].map(([namespace, token]) => `${token}:${namespace}`).join(","),
    RECALLGRAPH_LOG_LEVEL: "error",
    LANGGRAPH_CLI_NO_ANALYTICS: "1",
    // JSON lines at info, not the dev default of colourised debug output: the benchmark reads each
    // run's queue and execution time from them, and pretty-printing every request is load of its own.
    LOG_JSON: "true",
    LOG_LEVEL: "info",
  };
  // The same setting as the library target: rules, no model, no shared namespaces, no tracing.
  for (const name of ["RECALLGRAPH_LLM_MODEL", "RECALLGRAPH_SHARED_NAMESPACES", "LANGSMITH_TRACING", "LANGCHAIN_TRACING_V2"]) delete env[name];
  return env;
}

/** Three requests that must be refused, made before the load: proof that the keys are enforced. */
async function probeAuth(url: string, namespaces: readonly string[], keys: ReadonlyMap<string, string>): Promise<AuthProbe[]> {
  const own = namespaces[0] ?? "";
  const other = namespaces[1] ?? "someone-else";
  const post = async (token: string | undefined, namespace: string) => {
    const headers: Record<string, string> = { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) };
    const body = JSON.stringify({ assistant_id: "recallgraph", input: { question: "Who is keeping parcel PARCEL-1?", namespaces: [namespace] } });
    return (await fetch(`${url}/runs/wait`, { method: "POST", headers, body, signal: AbortSignal.timeout(30_000) })).status;
  };
  return [
    { request: "no key", expected: 401, status: await post(undefined, own) },
    { request: "a wrong key", expected: 401, status: await post("not-a-key-of-this-server", own) },
    { request: `${own}'s key asking ${other}`, expected: 403, status: await post(keys.get(own), other) },
  ];
}

async function serverTarget(
  template: string,
  directory: string,
  namespaces: readonly string[],
  args: Args,
  onServer: (server: RunningServer | undefined) => void,
): Promise<ServerReport> {
  const folder = join(directory, "server");
  const keys = new Map(namespaces.map((namespace) => [namespace, `load-key-${randomBytes(12).toString("hex")}`]));
  const path = copyStore(template, folder);
  const started = performance.now();
  const times = new ServerRunTimes();
  const server = await startServer({
    root: ROOT,
    directory: folder,
    env: serverEnv(path, keys, args),
    jobsPerWorker: args.jobsPerWorker,
    startTimeoutMs: SERVER_START_TIMEOUT_MS,
    onLine: (line) => times.read(line),
    onSpawned: onServer,
  });
  try {
    const startSeconds = roundTo((performance.now() - started) / 1000, 1);
    const authProbes = await probeAuth(server.url, namespaces, keys);
    const outcome = await runLoad(openServerTarget(server, keys, times, args), namespaces, args);
    const serverProcesses = groupRssBytes(server.pid).processes;
    return { target: "server", ...outcome, startSeconds, jobsPerWorker: args.jobsPerWorker, serverProcesses, authProbes, runs: times.summary() };
  } catch (error) {
    throw new Error(`${oneLine(error)}\nlast server output:\n${server.log().slice(-4000)}`);
  } finally {
    await server.stop();
    onServer(undefined);
  }
}

// ---------------------------------------------------------------------------------------------
// The preload, shared by both targets

/** Writes `--entries` synthetic memories over the namespaces, once; each target gets a copy. */
async function buildPreload(directory: string, namespaces: readonly string[], args: Args): Promise<string> {
  const path = join(directory, "preload", "memory.db");
  mkdirSync(dirname(path), { recursive: true });
  const memory = await openRecallGraph({ store: { kind: "sqlite", path }, embedder: embedderConfig(args), model: null });
  try {
    const all = syntheticMemories(args.entries);
    for (const [n, namespace] of namespaces.entries()) {
      const mine = all.flatMap((entry, i) => (i % namespaces.length === n ? [{ ...entry, id: `${namespace}:pre:${i}` }] : []));
      if (mine.length > 0) await memory.remember(namespace, mine);
    }
  } finally {
    await memory.close();
  }
  return path;
}

/** A copy of a closed sqlite store (and its WAL, should one be left) in a folder of its own. */
function copyStore(template: string, folder: string): string {
  mkdirSync(folder, { recursive: true });
  const path = join(folder, "memory.db");
  for (const suffix of ["", "-wal", "-shm"]) if (existsSync(template + suffix)) copyFileSync(template + suffix, path + suffix);
  return path;
}

// ---------------------------------------------------------------------------------------------
// Report

interface LoadResults {
  generatedAt: string;
  machine: string;
  loadAverage: { before: number[]; after: number[] };
  settings: Omit<Args, "out"> & { embedderNote: string; model: string };
  targets: { library?: LibraryReport; server?: ServerReport };
  notes: string[];
}


function render(results: LoadResults): string {
  const reports = [results.targets.library, results.targets.server].filter((report) => report !== undefined);
  const rows = reports.flatMap((report) =>
    (["retrieve", "write"] as const).map((operation) => {
      const stats = report.operations[operation];
      return [report.target, operation, String(stats.count), String(stats.errors), String(stats.opsPerSec), String(stats.latencyMs.p50), String(stats.latencyMs.p95), String(stats.latencyMs.p99), String(stats.latencyMs.max)];
    }),
  );
  const lines = [table(["target", "operation", "count", "errors", "ops/s", "p50 ms", "p95 ms", "p99 ms", "max ms"], rows), ""];
  for (const report of reports) lines.push(...describe(report));
  const s = results.settings;
  lines.push(
    `${s.readers} readers, ${s.writers} writers, ${s.namespaces} namespaces, ${s.entries} preloaded entries, at most ${s.requests} operations or ${s.seconds} s per target; embedder ${s.embedderNote}; ${s.model}.`,
    `${results.machine}; load average ${results.loadAverage.before.join(" ")} before, ${results.loadAverage.after.join(" ")} after.`,
    ...results.notes.map((note) => `- ${note}`),
  );
  return lines.join("\n");
}

function describe(report: LibraryReport | ServerReport): string[] {
  const c = report.correctness;
  const m = report.memory;
  const memory =
    report.target === "library"
      ? `RSS of this process ${m.startMb} -> ${m.endMb} MB during the load, peak ${m.peakMb} MB (process peak ${report.processMaxRssMb} MB, preload included)`
      : `RSS of the server's ${report.serverProcesses} processes ${m.startMb} -> ${m.endMb} MB during the load, peak ${m.peakMb} MB`;
  const lines = [
    `${report.target}: ${report.seconds} s (stopped by ${report.stoppedBy}); ${c.checkedReads} reads checked, ${c.misses} misses, ${c.isolationViolations} isolation violations, ${c.degradedReads} degraded; ${report.errors.count} errors.`,
    `  retrieve: graph node time p50 ${report.retrieveNodeMs.p50} ms, p95 ${report.retrieveNodeMs.p95} ms (of ${report.operations.retrieve.latencyMs.p50} / ${report.operations.retrieve.latencyMs.p95} ms latency).`,
    `  ${memory}.`,
    `  timers in this process: ${report.timers.beats} of ${report.timers.expectedBeats} ${TICK_MS} ms heartbeats ran; longest gap ${report.timers.longestGapMs} ms.`,
  ];
  if (report.target === "server") {
    const r = report.runs;
    lines.push(
      `  ${r.runs} runs in the server's log: queued p50 ${r.queueMs.p50} ms, p95 ${r.queueMs.p95} ms; executed p50 ${r.execMs.p50} ms, p95 ${r.execMs.p95} ms.`,
      `  started in ${report.startSeconds} s, N_JOBS_PER_WORKER ${report.jobsPerWorker}; auth: ${report.authProbes.map((p) => `${p.request} -> ${p.status}${p.status === p.expected ? "" : ` (expected ${p.expected})`}`).join(", ")}.`,
    );
  }
  lines.push(...report.errors.first.map((message) => `  error ${message}`), ...c.examples.map((example) => `  ${example}`), "");
  return lines;
}

function failedChecks(results: LoadResults): boolean {
  const reports = [results.targets.library, results.targets.server].filter((report) => report !== undefined);
  const probesFailed = results.targets.server?.authProbes.some((probe) => probe.status !== probe.expected) ?? false;
  return probesFailed || reports.some((report) => report.correctness.isolationViolations > 0);
}

// ---------------------------------------------------------------------------------------------

const note = (text: string) => process.stderr.write(`${text}\n`);

async function main(): Promise<void> {
  const args = readArgs(process.argv.slice(2));
  const directory = mkdtempSync(join(tmpdir(), "recallgraph-load-"));
  let server: RunningServer | undefined;
  // On a signal or an unexpected exit nothing can be awaited: kill the server's group and remove the folder.
  const emergency = () => {
    server?.kill();
    server = undefined;
    rmSync(directory, { recursive: true, force: true });
  };
  process.once("exit", emergency);
  for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143]] as const) {
    process.once(signal, () => {
      note(`${signal}: stopping the server and removing ${directory}`);
      emergency();
      process.exit(code);
    });
  }
  try {
    const namespaces = Array.from({ length: args.namespaces }, (_, i) => `load-${i}`);
    const before = loadavg().map((value) => roundTo(value, 2));
    note(`load benchmark: ${args.readers} readers, ${args.writers} writers, ${args.namespaces} namespaces, target ${args.target}; ${machineDescription()}`);
    note(`  preloading ${args.entries} entries (${args.embedder}) ...`);
    const preloadStarted = performance.now();
    const template = await buildPreload(directory, namespaces, args);
    note(`  preloaded in ${roundTo((performance.now() - preloadStarted) / 1000, 1)} s`);
    const targets: LoadResults["targets"] = {};
    if (args.target !== "server") {
      note(`  library: loading for up to ${args.seconds} s ...`);
      targets.library = await libraryTarget(template, directory, namespaces, args);
    }
    if (args.target !== "library") {
      note(`  server: starting langgraphjs dev, then loading for up to ${args.seconds} s ...`);
      targets.server = await serverTarget(template, directory, namespaces, args, (running) => (server = running));
    }
    const results = resultsOf(args, targets, before);
    mkdirSync(dirname(args.out), { recursive: true });
    writeFileSync(args.out, `${JSON.stringify(results, null, 2)}\n`);
    process.stdout.write(`${render(results)}\n`);
    note(`  wrote ${args.out}`);
    if (failedChecks(results)) process.exitCode = 1;
  } finally {
    await server?.stop();
    server = undefined;
    rmSync(directory, { recursive: true, force: true });
  }
}

function resultsOf(args: Args, targets: LoadResults["targets"], before: number[]): LoadResults {
  const { out: _out, ...settings } = args;
  return {
    generatedAt: new Date().toISOString(),
    machine: machineDescription(),
    loadAverage: { before, after: loadavg().map((value) => roundTo(value, 2)) },
    settings: {
      ...settings,
      embedderNote: args.embedder === "use-lite" ? "use-lite (offline USE-lite, 512-d: the README's default)" : "hash (deterministic feature hashing, 512-d)",
      model: "no LLM (rule-based planner and judge)",
    },
    targets,
    notes: [
      "measured on a machine shared with other work: latencies and throughput are noisy; compare runs with care",
      "closed-loop clients: each reader and writer issues its next operation when the last one returns",
      "library: readers, writers and the graph share this one Node process and event loop (better-sqlite3 is synchronous)",
      "server: the benchmark's clients run on the same cores as the server; server RSS is summed over its process group",
      "server: langgraph-api 1.5.1's in-memory runs.wait returns about 500 ms after a run's last event (its join loop waits on a 500 ms timeout, no 'done' message), so latency is queue + execution + ~500 ms and each closed-loop client stays under ~2 ops/s",
      "latencies are of successful operations; a miss is a read whose acknowledged fact was not among its results",
      "timers: a 50 ms heartbeat in this process; for the library, missing beats are time its calls kept the event loop from timers and I/O (and from the per-operation timeout)",
      "graph node time is the run's own account summed over its nodes (the three views run side by side, so it can exceed the run's wall time; under load it includes waiting for the event loop)",
    ],
  };
}

try {
  await main();
} catch (error) {
  note(`load benchmark failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 2;
}
