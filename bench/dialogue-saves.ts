/**
 * What one save of a dialogue costs in a namespace that already holds a long conversation, as an agent
 * saves it a turn at a time: a turn that continues its session (the look back for its neighbours, and
 * the previous turn's memory written again), one that says a change (the look back through the
 * speaker's earlier turns), and one of a new session; and what one note costs (the library's
 * `remember`) in a namespace of as many notes, plain and saying a change (the look back through the
 * namespace's notes, note-changes.ts). Hashing embedder, sqlite file store, 2 cores.
 *
 *   npm run bench:dialogue-saves -- [--memories 50000] [--saves 30] [--no-write]
 *
 * Writes bench/results/dialogue-saves.json.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { latencySummary } from "../src/eval/metrics.js";
import type { DialogueTurn } from "../src/ingest/dialogue.js";
import { ingestDialogue } from "../src/ingest/dialogue-ingest.js";
import { openRecallGraph } from "../src/library/open-recallgraph.js";
import { machineDescription } from "./machine.js";

const RESULTS_PATH = join(import.meta.dirname, "results", "dialogue-saves.json");
const WORDS = "garden paint lake coffee project budget deadline river train music guitar sister office report".split(" ");
const START_MS = Date.parse("2025-01-01T00:00:00Z");
/** Turns a minute apart, forty to a session, the user and the assistant in turn. */
const turn = (i: number): DialogueTurn => ({
  turnId: `t${i}`,
  speaker: i % 2 ? "assistant" : "user",
  text: `I talked about the ${WORDS[i % WORDS.length]} and the ${WORDS[(i * 7) % WORDS.length]} today, number ${i}.`,
  time: new Date(START_MS + i * 60_000).toISOString(),
  sessionId: `s${Math.floor(i / 40)}`,
});

/** A note a minute apart from the last, as an agent saves what it learns. */
const note = (i: number) => ({ text: `The ${WORDS[i % WORDS.length]} report for the ${WORDS[(i * 7) % WORDS.length]} is due on day ${i}.`, timestamp: new Date(START_MS + i * 60_000).toISOString() });

const { values } = parseArgs({ options: { memories: { type: "string", default: "50000" }, saves: { type: "string", default: "30" }, "no-write": { type: "boolean", default: false } } });
const memories = Number(values.memories);
const saves = Number(values.saves);
const folder = mkdtempSync(join(tmpdir(), "recallgraph-dialogue-saves-"));
const memory = await openRecallGraph({ store: { kind: "sqlite", path: join(folder, "memory.db") }, embedder: { provider: "hash", dimension: 256 }, model: null });
try {
  for (let start = 0; start < memories; start += 2000) {
    await ingestDialogue(memory.store, memory.embedder, "me", { turns: Array.from({ length: Math.min(2000, memories - start) }, (_, k) => turn(start + k)) });
  }
  for (let start = 0; start < memories; start += 2000) {
    const notes = Array.from({ length: Math.min(2000, memories - start) }, (_, k) => note(start + k));
    await memory.remember("notes", notes, { linkChanges: false });
  }
  const timedSaves = async (save: (index: number) => Promise<unknown>) => {
    const ms: number[] = [];
    for (let index = 0; index < saves; index += 1) {
      const started = performance.now();
      await save(index);
      ms.push(performance.now() - started);
    }
    return latencySummary(ms);
  };
  const timed = (make: (save: number) => DialogueTurn) => timedSaves((save) => ingestDialogue(memory.store, memory.embedder, "me", { turns: [make(save)] }));
  const timedNote = (make: (save: number) => { text: string; timestamp: string }) => timedSaves((save) => memory.remember("notes", [make(save)]));
  const result = {
    measured: new Date().toISOString(),
    machine: machineDescription(),
    memories,
    saves,
    continuing: await timed((save) => turn(memories + save)),
    sayingAChange: await timed((save) => ({ ...turn(memories + saves + save), speaker: "user", text: `My deadline moved to March ${save + 1}, 2026.` })),
    newSession: await timed((save) => ({ ...turn(memories + 2 * saves + save), sessionId: `new-${save}` })),
    note: await timedNote((save) => note(memories + save)),
    noteSayingAChange: await timedNote((save) => ({ ...note(memories + saves + save), text: `The report deadline moved to March ${save + 1}, 2026.` })),
  };
  console.log(`one turn saved into ${memories.toLocaleString("en")} memories, p50 / p95 ms`);
  for (const kind of ["continuing", "sayingAChange", "newSession", "note", "noteSayingAChange"] as const) console.log(`  ${kind.padEnd(17)} ${result[kind].p50} / ${result[kind].p95}`);
  if (!values["no-write"]) writeFileSync(RESULTS_PATH, `${JSON.stringify(result, null, 2)}\n`);
} finally {
  await memory.close();
  rmSync(folder, { recursive: true, force: true });
}
