/**
 * `npm run bench:speed -- --store qdrant`: the speed benchmark's questions on the Qdrant store, with
 * the HTTP requests each question sends and the time the server reports for them (each answer's
 * `time`) told apart from the rest (client, HTTP, the graph).
 *
 * The target is the Qdrant server at QDRANT_URL (QDRANT_API_KEY optional), in a collection of its own
 * (`recallgraph_bench_<random>`, dropped afterwards; QDRANT_COLLECTION is never touched). Without
 * QDRANT_URL it is SpecCheckingQdrantStub, the tests' stand-in, started in a process of its own: its
 * figures show what the client side costs and how many requests go out, never how fast Qdrant is
 * (the stub scans every point in JavaScript and checks every body against the OpenAPI document).
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { latencySummary as latency, mean, roundTo as round } from "../src/eval/metrics.js";
import { table } from "../src/eval/report.js";
import { createRetrievalGraph } from "../src/graph/graph.js";
import { writeMemories } from "../src/ingest/write-memories.js";
import { retrieve } from "../src/library/retrieve.js";
import { createQdrantStore } from "../src/stores/qdrant.js";
import { createHashEmbedder } from "../src/text/embedders/create-embedder.js";
import type { QdrantSideSchema, QdrantSpeedResults } from "./speed-results.js";
import { SYNTHETIC_NOW, syntheticMemories, syntheticQuestions } from "./synthetic.js";
import type { z } from "zod";
import { ownPeakRssMb } from "./peak-rss.js";

const NAMESPACE = "bench";

/** Where the questions go: the server's address, and whether it is a real Qdrant. */
export interface QdrantTarget {
  url: string;
  apiKey?: string;
  kind: QdrantSpeedResults["target"];
}

/** One size on the Qdrant store, in the child process (QDRANT_URL set by the parent). */
export async function qdrantSide(size: number, queries: number, warmup: number): Promise<z.infer<typeof QdrantSideSchema>> {
  const url = process.env.QDRANT_URL ?? "";
  const apiKey = process.env.QDRANT_API_KEY || undefined;
  const embedder = createHashEmbedder();
  const store = await createQdrantStore({ url, apiKey, collection: `recallgraph_bench_${randomBytes(8).toString("hex")}`, embedding: embedder.spec });
  try {
    const started = performance.now();
    await writeMemories(store, embedder, NAMESPACE, syntheticMemories(size));
    const ingestMs = performance.now() - started;
    const graph = createRetrievalGraph({ store, embedder });
    const asked = { times: [] as number[], requests: [] as number[], serverMs: [] as number[], first: 0 };
    for (const [i, question] of syntheticQuestions(queries + warmup).entries()) {
      const before = store.traffic();
      const start = performance.now();
      await retrieve(graph, { question, namespace: NAMESPACE, now: SYNTHETIC_NOW });
      const ms = performance.now() - start;
      const after = store.traffic();
      if (i === 0) asked.first = after.requests - before.requests;
      if (i < warmup) continue;
      asked.times.push(ms);
      asked.requests.push(after.requests - before.requests);
      asked.serverMs.push((after.serverSeconds - before.serverSeconds) * 1000);
    }
    return {
      side: "qdrant",
      entries: size,
      ingestPerSec: Math.round(size / (ingestMs / 1000)),
      retrieveMs: latency(asked.times),
      requests: { ...latency(asked.requests), mean: round(mean(asked.requests), 2), first: asked.first },
      serverMs: { ...latency(asked.serverMs), mean: round(mean(asked.serverMs), 3) },
      outsideServerMs: latency(asked.times.map((ms, i) => ms - (asked.serverMs[i] ?? 0))),
      peakRssMb: ownPeakRssMb(),
    };
  } finally {
    await store.drop();
  }
}

/**
 * Runs `work` against QDRANT_URL, or against SpecCheckingQdrantStub started in a process of its own
 * (so that its work does not share the measured client's thread), stopped afterwards.
 */
export async function withQdrantTarget<T>(work: (target: QdrantTarget) => Promise<T>): Promise<T> {
  const url = process.env.QDRANT_URL?.trim();
  if (url) return work({ url, ...(process.env.QDRANT_API_KEY ? { apiKey: process.env.QDRANT_API_KEY } : {}), kind: "server" });
  const server = spawn(process.execPath, ["--import", "tsx", fileURLToPath(new URL("./qdrant-stub-server.ts", import.meta.url))], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    const [line] = await Promise.race([
      createInterface({ input: server.stdout })[Symbol.asyncIterator]().next().then((next) => [next.value as string | undefined]),
      new Promise<never>((_, reject) => server.once("exit", (code) => reject(new Error(`the Qdrant stub exited (${code}) before serving`)))),
    ]);
    if (!line?.startsWith("http://")) throw new Error(`the Qdrant stub did not say where it listens: ${line ?? "nothing"}`);
    return await work({ url: line.trim(), kind: "stub" });
  } finally {
    server.kill();
  }
}

/** The notes saved and printed with the figures. */
export function qdrantNotes(target: QdrantTarget["kind"]): string[] {
  const where =
    target === "stub"
      ? "STUB FIGURES: the target was SpecCheckingQdrantStub (the tests' stand-in, no QDRANT_URL), not Qdrant: its latencies and server times say nothing about a real server; the request counts are the client's own"
      : "the target was a Qdrant server (QDRANT_URL), in a collection of the benchmark's own, dropped afterwards";
  return [
    where,
    "synthetic memories and questions (bench/synthetic.ts), one namespace, hashing embedder (512-d), rules planner and judge, no LLM",
    "requests: the store's own count of HTTP requests per question; first: the namespace's first question, before its vocabulary, settings and idf counts are kept",
    "server ms: the sum of the `time` field of the question's answers (the server's own seconds); outside server: wall time less that. Requests sent side by side (a round's views) overlap, so on a server that answers them in parallel the sum can exceed their share of the wall time, and outside server is then a lower bound",
    "sqlite: the same questions on the sqlite file store in the same run; ratio p50 = qdrant p50 / sqlite p50",
  ];
}

export function qdrantSpeedTable(results: QdrantSpeedResults): string {
  const head = ["entries", "p50", "p95", "sqlite p50", "ratio p50", "requests mean", "p95", "first", "server ms mean", "outside server p50", "ingest/s"];
  const rows = Object.values(results.sizes).map((size) => [
    String(size.entries),
    `${size.retrieveMs.p50} ms`,
    `${size.retrieveMs.p95} ms`,
    `${size.sqliteRetrieveMs.p50} ms`,
    `${size.ratioP50}x`,
    String(size.requests.mean),
    String(size.requests.p95),
    String(size.requests.first),
    String(size.serverMs.mean),
    `${size.outsideServerMs.p50} ms`,
    String(size.ingestPerSec),
  ]);
  const label = results.target === "stub" ? "Qdrant path against SpecCheckingQdrantStub (STUB FIGURES, not Qdrant):" : "Qdrant path against a Qdrant server:";
  return [label, table(head, rows), `${results.queries} questions per size; ${results.machine}.`, ...results.notes.map((note) => `- ${note}`)].join("\n");
}
