/**
 * The random worlds the isolation properties run over: 2-4 namespaces, each holding a few memories
 * whose texts mix words every namespace shares (so every view finds candidates everywhere) with
 * hostile strings, plus questions and caller filters drawn from the same pools. Each namespace's texts
 * begin with a marker word no other namespace has, so a surface that shows only text (agent tools)
 * can still be checked for leaks.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import type { RecallGraph } from "../../src/library/open-recallgraph.js";
import type { MemoryEntry, MemoryInput } from "../../src/memory/entry.js";
import type { RecallFilter } from "../../src/stores/caller-filter.js";

/** The reference time of every write and question: timestamps lie before it, "last week" means something. */
export const NOW = new Date("2026-06-01T12:00:00Z");

/** Runs per property: enough to shake out ordering and collision cases, small enough for 2 shared cores. */
export const RUNS = Number(process.env.ISOLATION_RUNS ?? 20);

/**
 * Namespace names chosen to break naive code: prefixes of each other (a LIKE or startsWith match),
 * SQL and LIKE metacharacters, prototype keys (a plain-object map), CJK.
 */
export const NAMESPACE_POOL = [
  "alice",
  "alice-x",
  "alic",
  "bob",
  "constructor",
  "__proto__",
  "toString",
  "ns%",
  "ns_",
  "名前",
  "ERR_1024",
  "a'b",
  'x" OR 1=1 --',
  "hasOwnProperty",
] as const;

/** Ids repeat across namespaces on purpose: the same id in two namespaces is two memories. */
export const ID_POOL = ["m1", "m2", "shared", "constructor", "__proto__", "toString", "ERR_1024", "a%b", "a_b", "x' OR '1'='1", "名前"] as const;

const SHARED_WORDS = ["meeting", "project", "budget", "launch", "release", "deadline", "coffee", "review", "Shanghai", "Tuesday"];
const NAMES = ["Alice", "Bob", "Chen Wei", "O'Brien", "José", "李雷"];
const CODES = ["ERR_1024", "ERR-404", "v2.3.1", "#42", "SKU_7", "ticket-99"];
const CJK = ["会议", "上海", "预算", "東京", "회의", "发布了新版本"];
const HOSTILE = [
  '"',
  "'",
  '" OR 1=1 --',
  "'; DROP TABLE memories; --",
  "%",
  "_",
  "%_%",
  "a%",
  "NEAR(a b)",
  "col:value",
  "*",
  "AND",
  "OR",
  "NOT",
  "^",
  "(",
  ")",
  "{x}",
  "\\",
  "constructor",
  "__proto__",
  "prototype",
  "hasOwnProperty",
  "\u0007bell",
  "\u001b[31mred",
  "\u007f",
  "tab\there",
];
const LOCATIONS = ["Shanghai", "Paris", "上海", "100%", "a_b", "O'Hare"];
const DOCUMENT_IDS = ["doc", "constructor", "__proto__", "a%", "notes/2026.md"];

/** Printable text with no NUL (which no store need accept) and no marker-like word. */
const randomText = fc.oneof(fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 12 }), fc.string({ unit: "grapheme", minLength: 1, maxLength: 6 }));
const longWord = fc.string({ unit: fc.constantFrom("a", "b", "z", "é", "字"), minLength: 80, maxLength: 300 });

export const word = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...SHARED_WORDS) },
  { weight: 2, arbitrary: fc.constantFrom(...NAMES) },
  { weight: 2, arbitrary: fc.constantFrom(...CODES) },
  { weight: 2, arbitrary: fc.constantFrom(...CJK) },
  { weight: 3, arbitrary: fc.constantFrom(...HOSTILE) },
  { weight: 1, arbitrary: randomText },
  { weight: 1, arbitrary: longWord },
);

/** The word only namespace `index` of a world writes. */
export function markerOf(index: number): string {
  return `zqmark${index}zq`;
}

const timestampMs = fc.integer({ min: Date.parse("2025-01-01T00:00:00Z"), max: NOW.getTime() - 60_000 });

function memoryInput(marker: string) {
  return fc
    .record(
      {
        id: fc.constantFrom(...ID_POOL),
        words: fc.array(word, { minLength: 1, maxLength: 6 }),
        timestamp: timestampMs,
        persons: fc.subarray(NAMES, { maxLength: 2 }),
        entities: fc.subarray([...CODES, "constructor", "__proto__", "%"], { maxLength: 2 }),
        location: fc.constantFrom(...LOCATIONS),
        documentId: fc.constantFrom(...DOCUMENT_IDS),
        // Ids every namespace uses: a supersession must link within its own namespace alone.
        supersedes: fc.subarray<string>([...ID_POOL], { maxLength: 2 }),
      },
      { requiredKeys: ["words", "timestamp"] },
    )
    .map(({ id, words, timestamp, persons, entities, location, documentId, supersedes }): MemoryInput => {
      // The marker first: the content cap cuts a result's text from the end.
      const input: MemoryInput = { text: [marker, ...words].join(" "), timestamp };
      if (id !== undefined) input.id = id;
      if (persons?.length) input.persons = persons;
      if (entities?.length) input.entities = entities;
      if (location !== undefined) input.location = location;
      if (documentId !== undefined) input.source = { documentId, version: 1 };
      const replaced = supersedes?.filter((other) => other !== id);
      if (replaced?.length) input.supersedes = replaced;
      return input;
    });
}

/** One namespace's writes: ids unique within it (one write refuses duplicates), absent ids generated. */
function namespaceInputs(index: number) {
  return fc.uniqueArray(memoryInput(markerOf(index)), {
    minLength: 1,
    maxLength: 5,
    selector: (input) => input.id ?? Symbol("generated"),
  });
}

export interface WorldSpec {
  namespaces: string[];
  inputs: MemoryInput[][];
}

export const worldSpec: fc.Arbitrary<WorldSpec> = fc
  .uniqueArray(fc.constantFrom(...NAMESPACE_POOL), { minLength: 2, maxLength: 4 })
  .chain((namespaces) => fc.tuple(...namespaces.map((_, index) => namespaceInputs(index))).map((inputs) => ({ namespaces, inputs })));

/** A non-empty proper subset of the world's namespaces: someone is always left out. */
export function askedOf(namespaces: readonly string[]): fc.Arbitrary<string[]> {
  return fc.subarray([...namespaces], { minLength: 1, maxLength: namespaces.length - 1 });
}

/**
 * Questions: bag-of-words from the pools, a sentence that makes the planner extract names and dates, or
 * one about someone it describes by a shared word ("the person who budget ..."), whose answer may take a
 * second hop (a reflection round) to a person the memories holding that word name.
 */
export const question: fc.Arbitrary<string> = fc.oneof(
  fc.array(word, { minLength: 1, maxLength: 6 }).map((words) => `what ${words.join(" ")}`),
  fc
    .tuple(fc.constantFrom(...NAMES), fc.constantFrom(...CODES, ...SHARED_WORDS, ...CJK), fc.constantFrom("last week", "in 2025", "yesterday", "in March", "上个月", "since January"))
    .map(([name, thing, when]) => `What did ${name} say about ${thing} ${when}?`),
  fc.tuple(fc.constantFrom(...SHARED_WORDS), fc.constantFrom(...CODES, ...SHARED_WORDS)).map(([done, thing]) => `Which city does the person who ${done} ${thing} live in?`),
);

const isoDay = fc.integer({ min: Date.parse("2024-12-01T00:00:00Z"), max: NOW.getTime() }).map((ms) => new Date(ms).toISOString());

/** A caller filter, often absent, drawn from the names the worlds use (and some they do not). */
export const callerFilter: fc.Arbitrary<RecallFilter | undefined> = fc.option(
  fc
    .record(
      {
        persons: fc.subarray([...NAMES, "%", "__proto__"], { minLength: 1, maxLength: 2 }),
        entities: fc.subarray([...CODES, "constructor", "%"], { minLength: 1, maxLength: 2 }),
        location: fc.constantFrom(...LOCATIONS, "%", "_", "'"),
        documentId: fc.constantFrom(...DOCUMENT_IDS),
        window: fc.tuple(isoDay, isoDay),
      },
      { requiredKeys: [] },
    )
    .map(({ window, ...rest }): RecallFilter => {
      const filter: RecallFilter = { ...rest };
      if (window) {
        const [a, b] = window.sort();
        if (a !== undefined && b !== undefined && a < b) Object.assign(filter, { since: a, until: b });
      }
      return filter;
    }),
  { freq: 2, nil: undefined },
);

/** What a world holds after writing, as the writes returned it: namespace -> id -> entry. */
export interface World {
  namespaces: string[];
  entries: Map<string, Map<string, MemoryEntry>>;
}

/**
 * Empties every namespace a previous run may have used, then writes the world's memories. It clears
 * the whole pool by name rather than what `stats()` lists: stats keys a plain object by namespace, so
 * "__proto__" never shows there (see stats.test.ts) and its memories would outlive the run.
 */
export async function loadWorld(memory: RecallGraph, spec: WorldSpec): Promise<World> {
  for (const namespace of NAMESPACE_POOL) await memory.store.clearNamespace(namespace);
  const entries = new Map<string, Map<string, MemoryEntry>>();
  for (const [index, namespace] of spec.namespaces.entries()) {
    const written = await memory.remember(namespace, spec.inputs[index] ?? [], { now: NOW.getTime() });
    entries.set(namespace, new Map(written.map((entry) => [entry.id, entry])));
  }
  return { namespaces: spec.namespaces, entries };
}

/** Every id of every namespace not in `asked`. */
export function foreignIds(world: World, asked: readonly string[]): string[] {
  return world.namespaces.filter((namespace) => !asked.includes(namespace)).flatMap((namespace) => [...(world.entries.get(namespace)?.keys() ?? [])]);
}

/** The markers of the namespaces not in `asked`. */
export function foreignMarkers(world: World, asked: readonly string[]): string[] {
  return world.namespaces.flatMap((namespace, index) => (asked.includes(namespace) ? [] : [markerOf(index)]));
}

/** Fails when `text` (a tool's or document's output) shows any memory of a namespace not asked. */
export function assertNoForeignText(text: string, world: World, asked: readonly string[], where: string): void {
  const leaked = foreignMarkers(world, asked).filter((marker) => text.includes(marker));
  assert.deepEqual(leaked, [], `${where}: output of ${JSON.stringify(asked)} shows memories of other namespaces:\n${text}`);
}

/**
 * Fails unless a result is one of the asked namespaces' own memories: its namespace asked, its id held
 * there, and its text that memory's text (cut to the content cap at most), not a same-id neighbour's.
 */
export function assertOwnResult(
  result: { namespace: string; id: string; text: string; provenance?: { supersededBy?: string[] | undefined; supersedes?: string[] | undefined } },
  world: World,
  asked: readonly string[],
  where: string,
): void {
  assert.ok(asked.includes(result.namespace), `${where}: result ${JSON.stringify(result.id)} from namespace ${JSON.stringify(result.namespace)}, asked ${JSON.stringify(asked)}`);
  const stored = world.entries.get(result.namespace)?.get(result.id);
  assert.ok(stored, `${where}: result ${JSON.stringify(result.id)} is not held by ${JSON.stringify(result.namespace)}`);
  const shown = result.text.endsWith("…") ? result.text.slice(0, -1) : result.text;
  assert.ok(stored.text.startsWith(shown), `${where}: result ${JSON.stringify(result.id)} of ${JSON.stringify(result.namespace)} carries another text: ${JSON.stringify(result.text)}`);
  // Supersessions are read within the result's namespace: the ids its provenance names are that namespace's, linked as written.
  for (const id of result.provenance?.supersedes ?? []) {
    assert.ok(stored.supersedes?.includes(id) && world.entries.get(result.namespace)?.has(id), `${where}: ${JSON.stringify(result.id)} is said to supersede ${JSON.stringify(id)}`);
  }
  for (const id of result.provenance?.supersededBy ?? []) {
    const superseder = world.entries.get(result.namespace)?.get(id);
    assert.ok(superseder?.supersedes?.includes(result.id), `${where}: ${JSON.stringify(result.id)} is said to be superseded by ${JSON.stringify(id)}`);
  }
}

/** Fails unless a store entry is exactly the asked namespace's own memory. */
export function assertOwnEntry(entry: MemoryEntry, world: World, namespace: string, where: string): void {
  assert.equal(entry.namespace, namespace, `${where}: entry ${JSON.stringify(entry.id)} of namespace ${JSON.stringify(entry.namespace)}, asked ${JSON.stringify(namespace)}`);
  assert.deepEqual(entry, world.entries.get(namespace)?.get(entry.id), `${where}: entry ${JSON.stringify(entry.id)} is not ${JSON.stringify(namespace)}'s own`);
}

/** Counts what a property saw, so a run where every surface returned nothing fails instead of passing vacuously. */
export class Seen {
  private counts = new Map<string, number>();
  add(what: string, n: number): void {
    this.counts.set(what, (this.counts.get(what) ?? 0) + n);
  }
  assertSome(...what: string[]): void {
    for (const name of what) assert.ok((this.counts.get(name) ?? 0) > 0, `no ${name} in any run: the property checked nothing`);
  }
}

/** fast-check settings for every property: bounded runs, and the failing assertion printed with the counterexample (node's reporter drops an error's cause). */
export function runs(numRuns = RUNS): { numRuns: number; includeErrorInReport: true } {
  return { numRuns, includeErrorInReport: true };
}

// ---------------------------------------------------------------------------------------------------
// Additions for the served surfaces (the LangGraph server's graphs, MCP): worlds written partly by the
// surface under test, and read back from the store to check where each write landed.

/**
 * The namespaces the served graphs' worlds draw from: every name of NAMESPACE_POOL (each the namespace
 * of an identity with a key), names under an identity ("alice/notes", which alice reads and writes),
 * the shared roots of SERVED_SHARED_NAMESPACES and a name under one, and look-alikes that are neither:
 * "teamwork" (no one's, not shared), "bob/publicity" (bob's, not shared), "alice-x/y" (alice-x's, not
 * alice's), "alice/../bob" (alice's: a namespace is a name, not a path), "Bob" and fullwidth "ｂｏｂ"
 * (no one's: names are compared exactly, never case-folded or normalised).
 */
export const SERVED_SHARED_NAMESPACES = ["team", "bob/public"] as const;
export const SERVED_NAMESPACE_POOL = [
  ...NAMESPACE_POOL,
  "alice/notes",
  "alice-x/y",
  "__proto__/x",
  "alice/../bob",
  "bob/public",
  "bob/publicity",
  "Bob",
  "ｂｏｂ",
  "team",
  "team/2026",
  "teamwork",
] as const;

/** Like `worldSpec`, over another pool of namespaces. */
export function worldSpecOver(pool: readonly string[], { minLength = 2, maxLength = 4 } = {}): fc.Arbitrary<WorldSpec> {
  return fc
    .uniqueArray(fc.constantFrom(...pool), { minLength, maxLength })
    .chain((namespaces) => fc.tuple(...namespaces.map((_, index) => namespaceInputs(index))).map((inputs) => ({ namespaces, inputs })));
}

/** Memories for namespace `index` of a world with ids no world holds before (a write's new memories), or none. */
export function newInputs(index: number): fc.Arbitrary<MemoryInput[]> {
  const input = fc.tuple(memoryInput(markerOf(index)), fc.constantFrom("new-1", "new-2", "new-%", undefined)).map(([{ id: _, ...rest }, id]): MemoryInput => (id === undefined ? rest : { ...rest, id }));
  return fc.uniqueArray(input, { maxLength: 2, selector: (memory) => memory.id ?? Symbol("generated") });
}

/** Turn ids repeat across namespaces on purpose: a dialogue's entries (and what it retires) are per namespace. */
const TURN_IDS = ["t1", "t2", "constructor", "__proto__", "a%", "名前"] as const;

/** A conversation as a caller hands it to a write path, every turn's text led by namespace `index`'s marker. */
export interface DialogueInput {
  turns: Array<{ turnId: string; speaker: string; text: string; time: string }>;
}

export function dialogueOf(index: number): fc.Arbitrary<DialogueInput> {
  const turn = fc.record({ turnId: fc.constantFrom(...TURN_IDS), speaker: fc.constantFrom(...NAMES), words: fc.array(word, { minLength: 1, maxLength: 5 }), at: timestampMs });
  return fc
    .uniqueArray(turn, { minLength: 1, maxLength: 3, selector: (t) => t.turnId })
    .map((turns) => ({ turns: turns.map(({ turnId, speaker, words, at }) => ({ turnId, speaker, text: [markerOf(index), ...words].join(" "), time: new Date(at).toISOString() })) }));
}

/** Empties every namespace of `pool` (see loadWorld on why by name). */
export async function clearNamespaces(memory: RecallGraph, pool: readonly string[]): Promise<void> {
  for (const namespace of pool) await memory.store.clearNamespace(namespace);
}

/** Every memory a namespace holds, walking every page of `list`, by id. */
export async function entriesOf(memory: RecallGraph, namespace: string): Promise<Map<string, MemoryEntry>> {
  const entries = new Map<string, MemoryEntry>();
  let cursor: string | undefined;
  do {
    const page = await memory.list(namespace, { limit: 1000, ...(cursor ? { cursor } : {}) });
    for (const entry of page.entries) entries.set(entry.id, entry);
    cursor = page.nextCursor;
  } while (cursor);
  return entries;
}

/**
 * The world as the store holds it after writes by any path, and a check of where each write landed:
 * every memory of namespace `index` carries that namespace's marker and no other's (every write of a
 * world puts its namespace's marker in each text), so a path that wrote into the wrong namespace fails here.
 */
export async function readWorld(memory: RecallGraph, namespaces: readonly string[], where: string): Promise<World> {
  const entries = new Map<string, Map<string, MemoryEntry>>();
  for (const [index, namespace] of namespaces.entries()) {
    const held = await entriesOf(memory, namespace);
    for (const entry of held.values()) {
      const markers = namespaces.flatMap((_, other) => (entry.text.includes(markerOf(other)) ? [other] : []));
      assert.deepEqual(markers, [index], `${where}: ${JSON.stringify(namespace)} holds ${JSON.stringify(entry.id)} written for ${JSON.stringify(markers.map((other) => namespaces[other]))}: ${JSON.stringify(entry.text)}`);
    }
    entries.set(namespace, held);
  }
  return { namespaces: [...namespaces], entries };
}

/** Every memory of every namespace given, in full: compared before and after a refused or a scoped write. */
export async function snapshotOf(memory: RecallGraph, namespaces: readonly string[]): Promise<Map<string, MemoryEntry[]>> {
  const snapshot = new Map<string, MemoryEntry[]>();
  for (const namespace of namespaces) snapshot.set(namespace, [...(await entriesOf(memory, namespace)).values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)));
  return snapshot;
}

/**
 * The namespaces (by index) whose inputs give an id that another namespace's inputs give too: the same
 * id naming two memories, the case a forget must keep apart. `written(index)` says whether a
 * namespace's inputs are written at all (a world may write some namespaces another way).
 */
export function sharingIndices(spec: WorldSpec, written: (index: number) => boolean = () => true): number[] {
  const idsOf = (index: number) => new Set(written(index) ? (spec.inputs[index] ?? []).flatMap((input) => (input.id === undefined ? [] : [input.id])) : []);
  return spec.namespaces.flatMap((_, index) => {
    const own = idsOf(index);
    return spec.namespaces.some((__, other) => other !== index && [...idsOf(other)].some((id) => own.has(id))) ? [index] : [];
  });
}
