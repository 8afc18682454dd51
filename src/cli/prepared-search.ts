/**
 * What a writing command does before it exits: makes each namespace it wrote ready to search and saves
 * that beside a store file (store port, `prepareSearch`). A one-shot command never outlives the
 * background builds a namespace's first search starts, so without this every later command would read
 * the memories again (docs/experiments.md, "Speed: a one-shot command at a million memories").
 */
import type { MemoryStore, SearchPreparation } from "../stores/port.js";
import type { JobProgressBar } from "./progress.js";
import { formatSeconds } from "./terminal-output.js";

/** What `prepareSearch` made ready, per namespace written, and how long it took. */
export interface PreparedSearch {
  namespaces: Record<string, SearchPreparation>;
  seconds: number;
}

export async function prepareSearch(store: MemoryStore, namespaces: readonly string[], progress: JobProgressBar): Promise<PreparedSearch> {
  const started = performance.now();
  const prepared: [string, SearchPreparation][] = [];
  for (const [done, namespace] of namespaces.entries()) {
    progress.update({ phase: "preparing search", detail: namespace, done, total: namespaces.length });
    prepared.push([namespace, await store.prepareSearch(namespace)]);
  }
  // fromEntries defines own properties: a namespace named "__proto__" is reported like any other.
  return { namespaces: Object.fromEntries(prepared), seconds: (performance.now() - started) / 1000 };
}

/** One line when a vector index was made ready (built or loaded, then saved): the part that can take minutes. */
export function describePreparedSearch(prepared: PreparedSearch): string[] {
  const indexed = Object.entries(prepared.namespaces).filter(([, preparation]) => preparation.vectorIndex !== "not-indexed");
  if (indexed.length === 0) return [];
  const which = indexed.map(([namespace, preparation]) => `${namespace} (${preparation.vectorIndex})`).join(", ");
  return [`Vector index ready and saved in ${formatSeconds(prepared.seconds)}: ${which}`];
}
