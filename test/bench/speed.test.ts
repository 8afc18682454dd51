/**
 * The speed benchmark's parts that can be wrong without any timing: its command line, recall@10
 * against exact search, the results' shape and ratios, the saved results, and the LanceDB peer on a
 * tiny namespace. No assertion here is about how fast anything is.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { ValidationError } from "../../src/core/errors.js";
import { recallAgainstExact } from "../../bench/recall.js";
import { parseSpeedArgs } from "../../bench/speed-args.js";
import { loadLancedb, lancedbSide } from "../../bench/speed-lancedb.js";
import { FloorSideSchema, LancedbSideSchema, ratiosOf, SpeedResultsSchema, type SizeResult, type SpeedResults } from "../../bench/speed-results.js";
import { speedReadmeTables } from "../../bench/speed-chart.js";
import { syntheticMemories, syntheticMemoryBatches, syntheticQuestions } from "../../bench/synthetic.js";
import { floorGraph, floorSide } from "../../bench/graph-floor.js";
import { VIEWS } from "../../src/graph/views.js";

const SAVED = fileURLToPath(new URL("../../bench/results/speed.json", import.meta.url));

describe("bench:speed synthetic data", () => {
  it("gives the same memories a batch at a time as all at once, batches of the asked size", () => {
    const whole = syntheticMemories(2_501);
    const batches = [...syntheticMemoryBatches(2_501, 1_000)];
    assert.deepEqual(
      batches.map((batch) => batch.length),
      [1_000, 1_000, 501],
    );
    assert.deepEqual(batches.flat(), whole);
    assert.equal(whole[2_500]?.id, "m2500");
    assert.notDeepEqual(syntheticMemories(10, 8), syntheticMemories(10));
  });
});

describe("bench:speed arguments", () => {
  it("defaults to exact search beside InMemoryStore at 1k, 10k and 100k", () => {
    const args = parseSpeedArgs([]);
    assert.deepEqual(args.sizes, [1000, 10_000, 100_000]);
    assert.deepEqual(args.index, ["exact"]);
    assert.deepEqual(args.peers, ["inmemory"]);
    assert.equal(args.queries, 100);
    assert.equal(args.warmup, 100, "timed questions answered by compiled code, as a long-lived process answers");
    assert.equal(parseSpeedArgs(["--warmup", "0"]).warmup, 0);
    assert.equal(args.chart, true);
    assert.equal(args.scalarKind, "f32", "the store's own default");
    assert.equal(parseSpeedArgs(["--index", "hnsw", "--scalar-kind", "i8"]).scalarKind, "i8");
  });

  it("reads both indexes, both peers, or none, each once", () => {
    const args = parseSpeedArgs(["--index", "exact,hnsw,hnsw", "--peers", "inmemory, lancedb", "--sizes", "1000,1000000"]);
    assert.deepEqual(args.index, ["exact", "hnsw"]);
    assert.deepEqual(args.peers, ["inmemory", "lancedb"]);
    assert.deepEqual(args.sizes, [1000, 1_000_000]);
    assert.deepEqual(parseSpeedArgs(["--peers", "none"]).peers, []);
  });

  it("names the flag of a bad value", () => {
    const failure = (argv: string[]) => {
      try {
        parseSpeedArgs(argv);
      } catch (error) {
        assert.ok(error instanceof ValidationError, String(error));
        return error.message;
      }
      assert.fail(`${argv.join(" ")} was accepted`);
    };
    assert.match(failure(["--index", "ivf"]), /^index\.0: /);
    assert.match(failure(["--sizes", "1000,2000000"]), /^sizes\.1: /);
    assert.match(failure(["--sizes", "10k"]), /^sizes\.0: /);
    assert.match(failure(["--peers", "qdrant"]), /^peers\.0: /);
    assert.match(failure(["--queries", "5"]), /^queries: /);
    assert.match(failure(["--scalar-kind", "b1"]), /^scalarKind: /);
    assert.match(failure(["--warmup", "twenty"]), /^warmup: /);
    // A mistyped or unknown flag is refused with the usage, never run with the defaults.
    assert.match(failure(["--verbose"]), /Unknown option '--verbose'[\s\S]*--sizes: /);
    assert.match(failure(["--size", "1000", "--index=hnsw", "--peer", "lancedb"]), /Unknown option '--peer'/);
  });
});

describe("bench:speed --help", () => {
  it("prints every flag's description and measures nothing", () => {
    const run = spawnSync(process.execPath, ["--import", "tsx", "bench/speed.ts", "--help"], { cwd: fileURLToPath(new URL("../..", import.meta.url)), encoding: "utf8" });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /^npm run bench:speed -- \[flags\]\n[\s\S]*--sizes: [\s\S]*--reuse: /);
  });
});

describe("recall@10 against exact search", () => {
  const hit = (id: string, score: number) => ({ id, score });
  const exact = [hit("a", 0.9), hit("b", 0.8), hit("c", 0.7)];

  it("is 1 for the exact answer and counts the exact ids found", () => {
    assert.deepEqual(recallAgainstExact([exact], [exact]), { tieAware: 1, byId: 1 });
    const missed = recallAgainstExact([[hit("a", 0.9), hit("b", 0.8), hit("x", 0.5)]], [exact]);
    assert.equal(missed.byId, 2 / 3);
    assert.equal(missed.tieAware, 2 / 3);
  });

  it("counts another entry as right when it ties the exact k-th (a duplicate text's vector)", () => {
    const tied = recallAgainstExact([[hit("a", 0.9), hit("b", 0.8), hit("twin-of-c", 0.7)]], [exact]);
    assert.equal(tied.byId, 2 / 3);
    assert.equal(tied.tieAware, 1);
  });

  it("averages over all queries' exact hits, each query holding its own k", () => {
    const recall = recallAgainstExact([[hit("a", 0.9)], [hit("y", 0.1), hit("q", 0.6)]], [[hit("a", 0.9)], [hit("p", 0.7), hit("q", 0.6)]]);
    assert.equal(recall.byId, 2 / 3);
    // Hits beyond the exact answer's length are not counted against it.
    assert.deepEqual(recallAgainstExact([[hit("a", 0.9), hit("z", 0.1)]], [[hit("a", 0.9)]]), { tieAware: 1, byId: 1 });
  });

  it("refuses answers that do not pair with the exact ones", () => {
    assert.throws(() => recallAgainstExact([exact], [exact, exact]), /1 answers for 2 exact answers/);
  });
});

const latency = (p50: number) => ({ p50, p95: 2 * p50 });
const load = { before: [1, 1, 1], after: [2, 1, 1] };
const zeros = { plan: 0, semantic: 1, lexical: 0.5, symbolic: 0, merge: 0, reflect: 0, finalize: 0 };
const run = (p50: number, recall: number | null) => ({
  ingestPerSec: 1000,
  ingestWithHashEmbeddingPerSec: 800,
  indexBuildMs: recall === null ? null : 120,
  lexicalBuildMs: 5,
  retrieveMs: latency(p50),
  breakdown: { invokeMs: p50, nodesMs: zeros, frameworkMs: p50 - 1.5, cpu: { invokeMs: p50, nodesMs: 1.5, frameworkMs: p50 - 1.5 }, nodesCpuMs: zeros, storeCalls: { denseSearch: { calls: 2, ms: 0.8 } }, rounds: 0.7 },
  peakRssMb: 200,
  semanticRecallAt10: recall === null ? null : { tieAware: recall, byId: recall },
  load,
});
const lancedb = {
  version: "0.30.0",
  ingestPerSec: 5000,
  ftsBuildMs: 10,
  vectorIndex: "IVF_HNSW_SQ",
  vectorIndexBuildMs: 300,
  hybridMs: { exact: { ...latency(8), cpuMean: 9 }, indexed: { ...latency(4), cpuMean: 5 } },
  vectorRecallAt10: { tieAware: 0.8, byId: 0.79 },
  peakRssMb: 300,
  load,
};

describe("bench:speed results", () => {
  it("compares each search with the peers that search the same way, when both were measured", () => {
    const size: Omit<SizeResult, "ratios"> = {
      entries: 1000,
      recallgraph: { exact: run(16, null), hnsw: run(12, 0.99) },
      inMemoryStore: { buildPerSec: 1, searchMs: latency(2), peakRssMb: 1, load },
      lancedb,
    };
    assert.deepEqual(ratiosOf(size), [
      { ours: "exact", peer: "InMemoryStore", p50: 8, p95: 8, cpu: null },
      { ours: "exact", peer: "LanceDB exact", p50: 2, p95: 2, cpu: 1.78 },
      { ours: "hnsw", peer: "LanceDB indexed", p50: 3, p95: 3, cpu: 2.4 },
    ]);
    assert.deepEqual(ratiosOf({ entries: 1000, recallgraph: { hnsw: run(12, 0.99) }, inMemoryStore: size.inMemoryStore }), []);
    const refined = { refineFactor: 5, hybridMs: { ...latency(6), cpuMean: 8 }, vectorRecallAt10: { tieAware: 0.97, byId: 0.96 } };
    assert.deepEqual(ratiosOf({ ...size, lancedb: { ...lancedb, refined } }).at(-1), { ours: "hnsw", peer: "LanceDB refined", p50: 2, p95: 2, cpu: 1.5 });
  });

  it("holds what the tables and charts read, and names a missing field", () => {
    const size = { entries: 1000, recallgraph: { hnsw: run(12, 0.99) }, lancedb };
    const results: SpeedResults = {
      version: 2,
      measuredAt: "2026-12-03T00:00:00.000Z",
      sizes: { "1000": { ...size, ratios: ratiosOf(size) } },
      queries: 100,
      machine: "test",
      load,
      notes: [],
    };
    const parsed = SpeedResultsSchema.parse(JSON.parse(JSON.stringify(results)));
    assert.match(speedReadmeTables(parsed), /\| 1,000 \| hnsw \| 1,000 \| 0\.1 s \|.*\| 0\.990 \|/);
    assert.doesNotMatch(speedReadmeTables(parsed), /floor/, "no floor line for a run that did not measure it");
    const withFloor = { ...parsed, frameworkFloor: { invokeMs: latency(6), cpuMean: 7, load } };
    assert.match(speedReadmeTables(withFloor), /framework's floor .*p50 \/ p95 6\.00 \/ 12\.0 ms, 7\.00 ms of CPU.*LanceDB's indexed hybrid query.*4\.00 \/ 8\.00 ms at 1,000 \(1\.50×\)/);
    const refined = { refineFactor: 5, hybridMs: { ...latency(6), cpuMean: 8 }, vectorRecallAt10: { tieAware: 0.97, byId: 0.96 } };
    const withRefined = { ...size, lancedb: { ...lancedb, refined } };
    assert.match(speedReadmeTables({ sizes: { "1000": { ...withRefined, ratios: ratiosOf(withRefined) } } }), /\| 6\.00 \/ 12\.0 ms \(5, 0\.970\) \|.*hnsw \/ LanceDB refined 2\.00×, 1\.50×/);
    const { load: _load, ...withoutLoad } = results;
    const failure = SpeedResultsSchema.safeParse(withoutLoad);
    assert.equal(failure.success, false);
    assert.deepEqual(failure.error?.issues[0]?.path, ["load"]);
  });

  it("the saved run parses, and holds a recall for every indexed search", { skip: existsSync(SAVED) ? false : "no bench/results/speed.json" }, () => {
    const saved = SpeedResultsSchema.parse(JSON.parse(readFileSync(SAVED, "utf8")));
    for (const size of Object.values(saved.sizes)) {
      if (size.recallgraph.hnsw) assert.notEqual(size.recallgraph.hnsw.semanticRecallAt10, null, `${size.entries} entries`);
      assert.deepEqual(size.ratios, ratiosOf(size));
    }
  });
});

describe("the framework's floor", () => {
  it("runs the retrieval graph's nodes in its order, one round, each doing nothing", async () => {
    const steps: string[][] = [];
    for await (const update of await floorGraph().stream({ question: "who?", namespaces: ["bench"] }, { streamMode: "updates" })) steps.push(Object.keys(update).sort());
    const views = VIEWS.map((view) => [view.name]).sort();
    assert.deepEqual([steps[0], ...steps.slice(1, 1 + views.length).sort(), ...steps.slice(1 + views.length)], [["plan"], ...views, ["merge"], ["reflect"], ["finalize"]]);
    const side = FloorSideSchema.parse(await floorSide(syntheticQuestions(12), 2));
    assert.ok(side.invokeMs.p50 > 0 && side.invokeMs.p95 >= side.invokeMs.p50, JSON.stringify(side.invokeMs));
  });
});

const lance = await loadLancedb();

describe("the LanceDB peer", { skip: "missing" in lance ? lance.missing : false, timeout: 120_000 }, () => {
  it("answers the synthetic questions exactly and through its index, and measures its recall", async () => {
    const side = LancedbSideSchema.parse(await lancedbSide(300, 10, 2));
    assert.equal(side.entries, 300);
    assert.match(side.version, /^\d+\.\d+\.\d+/);
    assert.ok(side.vectorRecallAt10.tieAware > 0 && side.vectorRecallAt10.tieAware <= 1, JSON.stringify(side.vectorRecallAt10));
    const refined = side.refined;
    assert.ok(refined, "the indexed query is also timed refined");
    assert.ok([2, 5, 10, 20].includes(refined.refineFactor), String(refined.refineFactor));
    // The smallest factor that reaches the target is kept, or the largest when none does.
    assert.ok(refined.vectorRecallAt10.tieAware >= 0.95 || refined.refineFactor === 20, JSON.stringify(refined));
  });
});
