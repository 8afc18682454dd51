/**
 * recallgraph behind LangGraph's store interface, so a graph written against `BaseStore` (`getStore()`,
 * `config.store`, the memory-agent template) keeps its memories here and searches them with the
 * retrieval graph.
 *
 * - A namespace tuple is one recallgraph namespace, its parts joined by "/": ["alice", "notes"] is
 *   `alice/notes`. A part must not be empty or contain "/".
 * - `put(namespace, key, value)` writes the memory `key`: `value` is a memory as recallgraph takes it
 *   (`text` required; `timestamp`, `persons`, `speaker`, `entities`, `location`, `keywords`, `topic`,
 *   `source`, `expiresAt` optional). Any other field is refused, naming it. `value: null` deletes.
 * - `get` gives the memory back in that shape; `search(prefix, {query})` asks the retrieval graph over
 *   the prefix's namespaces (the prefix itself and those under it) and returns its results with their
 *   fused scores; without a query it lists them, newest first. `filter` takes the caller filter's
 *   fields (since, until, persons, entities, location, documentId).
 */
import { BaseStore, type Item, type ListNamespacesOperation, type Operation, type OperationResults, type SearchOperation } from "@langchain/langgraph";
import { parseOrThrow, ValidationError } from "../core/errors.js";
import type { RecallGraph } from "../library/open-recallgraph.js";
import { MemoryInputSchema, type MemoryEntry, type MemoryInput } from "../memory/entry.js";
import { RecallFilterSchema } from "../stores/caller-filter.js";

/** LangGraph's search result: an item and its score (declared by @langchain/langgraph-checkpoint, not re-exported). */
type SearchItem = Item & { score?: number };

/** Most namespaces one search asks the retrieval graph about (its input's limit). */
const MAX_SEARCH_NAMESPACES = 16;

/** The recallgraph namespace of a LangGraph namespace tuple. */
export function namespaceOfTuple(tuple: readonly string[], field = "namespace"): string {
  if (tuple.length === 0) throw new ValidationError(field, "a namespace needs at least one part");
  tuple.forEach((part, index) => {
    if (!part || part.includes("/")) throw new ValidationError(`${field}.${index}`, `namespace parts must be non-empty and contain no "/": "${part}"`);
  });
  return tuple.join("/");
}

function tupleOfNamespace(namespace: string): string[] {
  return namespace.split("/");
}

function itemOf(entry: MemoryEntry): Item {
  return {
    key: entry.id,
    namespace: tupleOfNamespace(entry.namespace),
    value: memoryInputOf(entry),
    createdAt: new Date(entry.createdAt),
    updatedAt: new Date(entry.updatedAt),
  };
}

/** The stored entry as the memory a caller would write to get it again. */
function memoryInputOf(entry: MemoryEntry): MemoryInput {
  const { id: _id, namespace: _namespace, timestampMs: _timestampMs, expiresAtMs: _expiresAtMs, createdAt: _created, updatedAt: _updated, ...memory } = entry;
  return memory;
}

export class RecallGraphStore extends BaseStore {
  constructor(
    private readonly memory: RecallGraph,
    private readonly options: { now?: () => Date } = {},
  ) {
    super();
  }

  async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    const results: unknown[] = [];
    for (const operation of operations) results.push(await this.run(operation));
    return results as OperationResults<Op>;
  }

  private async run(operation: Operation): Promise<Item | null | SearchItem[] | string[][] | void> {
    if ("namespacePrefix" in operation) return this.searchItems(operation);
    if (!("key" in operation)) return this.namespaces(operation);
    const namespace = namespaceOfTuple(operation.namespace);
    if (!("value" in operation)) {
      const [entry] = await this.memory.get(namespace, [operation.key]);
      return entry ? itemOf(entry) : null;
    }
    if (operation.value === null) {
      // Deleting what is not there is not an error here: BaseStore's delete is idempotent.
      if ((await this.memory.get(namespace, [operation.key])).length) await this.memory.forget(namespace, [operation.key]);
      return;
    }
    const memory = parseOrThrow(MemoryInputSchema, operation.value, "value");
    await this.memory.remember(namespace, [{ ...memory, id: operation.key }]);
  }

  private async searchItems(operation: SearchOperation): Promise<SearchItem[]> {
    const namespaces = await this.namespacesUnder(operation.namespacePrefix);
    if (namespaces.length === 0) return [];
    const filter = operation.filter && Object.keys(operation.filter).length ? parseOrThrow(RecallFilterSchema, operation.filter, "filter") : undefined;
    const limit = operation.limit ?? 10;
    const offset = operation.offset ?? 0;
    if (operation.query) {
      if (namespaces.length > MAX_SEARCH_NAMESPACES) {
        throw new ValidationError("namespacePrefix", `covers ${namespaces.length} namespaces; a search asks at most ${MAX_SEARCH_NAMESPACES}: narrow the prefix`);
      }
      const output = await this.memory.retrieve(
        { question: operation.query, namespace: namespaces, ...(this.options.now ? { now: this.options.now() } : {}), ...(filter ? { filter } : {}) },
        { finalK: limit + offset },
      );
      const entries = await this.entriesOf(output.results);
      return output.results.slice(offset).flatMap((result) => {
        const entry = entries.get(`${result.namespace}\u001f${result.id}`);
        return entry ? [{ ...itemOf(entry), score: result.score }] : [];
      });
    }
    const listed = await Promise.all(namespaces.map((namespace) => this.memory.list(namespace, { limit: Math.min(1000, limit + offset), ...(filter ? { filter } : {}) })));
    return listed
      .flatMap((page) => page.entries)
      .sort((a, b) => b.timestampMs - a.timestampMs || a.id.localeCompare(b.id))
      .slice(offset, offset + limit)
      .map(itemOf);
  }

  /** Whole entries of results (a result's text is cut to the content cap; an item carries the memory as stored). */
  private async entriesOf(results: ReadonlyArray<{ namespace: string; id: string }>): Promise<Map<string, MemoryEntry>> {
    const byNamespace = new Map<string, string[]>();
    for (const { namespace, id } of results) byNamespace.set(namespace, [...(byNamespace.get(namespace) ?? []), id]);
    const entries = new Map<string, MemoryEntry>();
    for (const [namespace, ids] of byNamespace) for (const entry of await this.memory.get(namespace, ids)) entries.set(`${namespace}\u001f${entry.id}`, entry);
    return entries;
  }

  /** The store's namespaces at or under a prefix tuple. */
  private async namespacesUnder(prefix: readonly string[]): Promise<string[]> {
    const all = Object.keys((await this.memory.store.stats()).namespaces);
    if (prefix.length === 0) return all;
    const root = namespaceOfTuple(prefix, "namespacePrefix");
    return all.filter((namespace) => namespace === root || namespace.startsWith(`${root}/`));
  }

  private async namespaces(operation: ListNamespacesOperation): Promise<string[][]> {
    const tuples = Object.keys((await this.memory.store.stats()).namespaces).map(tupleOfNamespace);
    const matching = tuples.filter((tuple) => (operation.matchConditions ?? []).every((condition) => matches(tuple, condition.path, condition.matchType)));
    const depth = operation.maxDepth;
    const cut = depth === undefined ? matching : matching.map((tuple) => tuple.slice(0, depth));
    const unique = [...new Map(cut.map((tuple) => [tuple.join("/"), tuple])).values()].sort((a, b) => a.join("/").localeCompare(b.join("/")));
    return unique.slice(operation.offset, operation.offset + operation.limit);
  }
}

function matches(tuple: readonly string[], path: readonly string[], type: "prefix" | "suffix"): boolean {
  if (path.length > tuple.length) return false;
  const part = type === "prefix" ? tuple.slice(0, path.length) : tuple.slice(tuple.length - path.length);
  return path.every((wanted, i) => wanted === "*" || wanted === part[i]);
}
