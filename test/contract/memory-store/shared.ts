/**
 * What every operation group of the MemoryStore contract shares: the adapter-facing types, the
 * per-run context that opens and closes stores, and the fixtures and assertions the cases use.
 *
 * Vectors are small and hand-made (4-d), so expected rankings and cosine scores are exact.
 * Lexical scores are only compared with each other (BM25 statistics differ between backends).
 */
import assert from "node:assert/strict";
import { afterEach } from "node:test";
import { RecallGraphError, ValidationError } from "../../../src/core/errors.js";
import { normalizeEntry, type MemoryEntry, type MemoryInput } from "../../../src/memory/entry.js";
import type { MemoryRecord, MemoryStore, ScoredEntry } from "../../../src/stores/port.js";
import type { EmbeddingSpec } from "../../../src/text/embedder.js";

/** What a contract case may ask of the store it opens besides the embedding. */
export interface StoreExtras {
  /** The adapter's clock (epoch ms) deciding what has expired, read on every call; default Date.now. */
  clock?: () => number;
}

/**
 * Opens the adapter's store with `embedding` on the backing storage named `backend` (a file, a
 * collection...), passing `extras` to its open options. A name the suite has not used before must
 * start empty; opening the same name again must reach the same data when the adapter is `reopenable`.
 */
export type OpenContractStore = (embedding: EmbeddingSpec, backend: string, extras: StoreExtras) => Promise<MemoryStore>;

export interface ContractOptions {
  /** True when a second open of the same backend sees the first one's data (files, servers); false for `:memory:`. */
  reopenable: boolean;
}

/** What an operation group is given: one per contract run, shared by all groups of that run. */
export interface ContractContext {
  /** A store on a backend of its own (unless `backend` is given), closed after the test. */
  freshStore(embedding?: EmbeddingSpec, backend?: string, extras?: StoreExtras): Promise<MemoryStore>;
  /** A backend name no earlier test of this run has used; `label` only makes it readable. */
  newBackend(label?: string): string;
  options: ContractOptions;
}

export const CONTRACT_EMBEDDING: EmbeddingSpec = { model: "contract-test-embedder", dimension: 4 };
export const NOW = Date.parse("2024-06-01T12:00:00Z");
export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
const SCORE_TOLERANCE = 1e-5;

/**
 * The context of one contract run. Call it inside the run's `describe`: the afterEach it registers
 * closes every store a test opened. The backend counter is shared by all groups of the run, because
 * a fresh name must start empty and reopenable backends (files, collections) outlive their test.
 */
export function useContractStores(openStore: OpenContractStore, options: ContractOptions): ContractContext {
  const opened: MemoryStore[] = [];
  let backendCounter = 0;

  const newBackend = (label?: string): string => `contract-${process.pid}-${label ? `${label}-` : ""}${++backendCounter}`;

  async function freshStore(embedding: EmbeddingSpec = CONTRACT_EMBEDDING, backend = newBackend(), extras: StoreExtras = {}): Promise<MemoryStore> {
    const store = await openStore(embedding, backend, extras);
    opened.push(store);
    return store;
  }

  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close().catch(() => undefined);
  });

  return { freshStore, newBackend, options };
}

// ---------------------------------------------------------------------------------------------

export function entry(namespace: string, input: MemoryInput): MemoryEntry {
  return normalizeEntry(namespace, { timestamp: NOW, ...input }, { now: NOW });
}

export function record(entryValue: MemoryEntry, vector: number[]): MemoryRecord {
  return { entry: entryValue, vector };
}

/** Distinct, unremarkable memories so BM25 has a corpus to compare against. */
export function fillerEntries(namespace: string, count: number): MemoryEntry[] {
  const subjects = ["The weather", "Lunch", "The commute", "A meeting", "The garden", "A movie", "The gym", "Groceries", "A book", "The laundry"];
  const endings = ["was fine today", "took an hour", "ran late again", "went as planned", "needs attention", "was cancelled"];
  return Array.from({ length: count }, (_, i) =>
    entry(namespace, { id: `filler-${i}`, text: `${subjects[i % subjects.length]} ${endings[i % endings.length]}`, timestamp: NOW - (i + 10) * DAY }),
  );
}

/** A unit vector along one axis (cycling), for entries whose dense score does not matter. */
export function basis(index: number): number[] {
  const vector = [0, 0, 0, 0];
  vector[index % 4] = 1;
  return vector;
}

export function ids(hits: readonly (ScoredEntry | MemoryEntry)[]): string[] {
  return hits.map((hit) => ("entry" in hit ? hit.entry.id : hit.id));
}

export function onlyNamespaces(hits: readonly ScoredEntry[]): string[] {
  return [...new Set(hits.map((hit) => hit.entry.namespace))];
}

export function lower(names: readonly string[]): string[] {
  return names.map((name) => name.toLowerCase()).sort();
}

export function zip<A, B>(left: readonly A[], right: readonly B[]): [A, B][] {
  assert.equal(left.length, right.length);
  return left.map((value, i) => [value, right[i] as B]);
}

export function assertClose(actual: number | undefined, expected: number, message?: string): void {
  assert.ok(actual !== undefined && Math.abs(actual - expected) <= SCORE_TOLERANCE, message ?? `expected ${expected}, got ${actual}`);
}

/** Awaits a call that must fail with a ValidationError whose field is `field`. */
export async function assertValidation(call: Promise<unknown>, field: string, context = ""): Promise<void> {
  await assert.rejects(call, (error: unknown) => {
    assert.ok(error instanceof ValidationError, `${context} expected a ValidationError, got ${describeError(error)}`);
    assert.equal(error.field, field, `${context} ${error.message}`);
    return true;
  });
}

function describeError(error: unknown): string {
  if (error instanceof RecallGraphError) return `${error.name}: ${error.message}`;
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
