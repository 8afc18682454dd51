/**
 * recallgraph behind LangGraph's store interface, so a graph written against `BaseStore` (`getStore()`,
 * `config.store`, the memory-agent template) keeps its memories here and searches them with the
 * retrieval graph.
 *
 * - A namespace tuple is one recallgraph namespace, its parts joined by "/": ["alice", "notes"] is
 *   `alice/notes`. A label follows BaseStore's rules (not empty, no ".", ":" or NUL) and holds no "/";
 *   the "." and ":" a recallgraph namespace may hold (`alice@example.com`) are escaped in its label as
 *   %2E and %3A (["alice@example%2Ecom"]), an empty part (`a//b`) as the label %00, and a "%" that
 *   would read as an escape as %25, so every namespace is reachable. A label is read the same way.
 * - `batch` is InMemoryStore's: every operation is checked before any runs, reads see the store as it
 *   was before the batch, and its writes come last (the last of several to one key wins).
 * - `put(namespace, key, value)` writes the memory `key`: `value` is a memory as recallgraph takes it
 *   (`text` required; `timestamp`, `persons`, `speaker`, `entities`, `location`, `keywords`, `topic`,
 *   `source`, `expiresAt`, `validFrom`, `validUntil`, `supersedes` optional; `supersedes` names keys of the
 *   same namespace). Any other field is refused, naming it. `value: null` deletes.
 * - `get` gives the memory back as it was put (what the write filled in is left out); `search(prefix, {query})` asks the retrieval graph over
 *   the prefix's namespaces (the prefix itself and those under it) and returns its results with their
 *   fused scores; without a query it lists them, newest first. `filter` takes the caller filter's
 *   fields (since, until, persons, entities, location, documentId).
 */
import type { z } from "zod";
import { BaseStore, type Item, type ListNamespacesOperation, type Operation, type OperationResults, type SearchOperation } from "@langchain/langgraph";
import { parseOrThrow, ValidationError } from "../core/errors.js";
import { fillMissingFields } from "../ingest/text-fields.js";
import type { RecallGraph } from "../library/open-recallgraph.js";
import { MemoryInputSchema, NamespaceSchema, type MemoryEntry, type MemoryInput } from "../memory/entry.js";
import { RecallFilterSchema, toMemoryFilter } from "../stores/caller-filter.js";
import { listPages } from "../stores/list-pages.js";

/** LangGraph's search result: an item and its score (declared by @langchain/langgraph-checkpoint, not re-exported). */
type SearchItem = Item & { score?: number };

type WriteStep = { kind: "write"; namespace: string; key: string; memory: MemoryInput | null };
type PlannedStep = { kind: "read"; read: () => Promise<unknown> } | WriteStep;

/** Most namespaces one search asks the retrieval graph about (its input's limit). */
const MAX_SEARCH_NAMESPACES = 16;

const ESCAPED: Readonly<Record<string, string>> = { "%": "%25", ".": "%2E", ":": "%3A" };
const UNESCAPED: Readonly<Record<string, string>> = { "%25": "%", "%2E": ".", "%3A": ":" };
/** The label of an empty part (`a//b`, `team/`), which BaseStore refuses as a label of its own. */
const EMPTY_PART = "%00";

/** Checks one label as BaseStore and InMemoryStore do, and as a part of a recallgraph namespace; returns the part. */
function partOfLabel(label: unknown, field: string): string {
  if (typeof label !== "string") throw new ValidationError(field, `a namespace label must be a string, got ${typeof label}`);
  if (label === "") throw new ValidationError(field, "a namespace label must not be empty");
  for (const [forbidden, name] of [[".", "periods"], [":", "colons"], ["\0", "NUL"], ["/", '"/"']] as const) {
    if (label.includes(forbidden)) throw new ValidationError(field, `namespace labels cannot contain ${name}: "${label}"`);
  }
  if (label === EMPTY_PART) return "";
  return label.replace(/%(25|2E|3A)/g, (escape) => UNESCAPED[escape] ?? escape);
}

/** The recallgraph namespace of a LangGraph namespace tuple. */
export function namespaceOfTuple(tuple: readonly string[], field = "namespace"): string {
  if (tuple.length === 0) throw new ValidationError(field, "a namespace needs at least one part");
  return tuple.map((label, index) => partOfLabel(label, `${field}.${index}`)).join("/");
}

/** The LangGraph namespace tuple of a recallgraph namespace (the inverse of namespaceOfTuple). */
export function tupleOfNamespace(namespace: string): string[] {
  // "%" is escaped only where it would read as an escape: a label's other "%" stays as it is.
  return namespace.split("/").map((part) => (part === "" ? EMPTY_PART : part.replace(/%(?=25|2E|3A|00)|[.:]/g, (character) => ESCAPED[character] ?? character)));
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

/**
 * The stored entry as the value it was put with: what the write filled in is left out again (the
 * keywords, persons and entities its text gives, a timestamp that is the write's own instant, the
 * speaker the write added to the persons), so a value comes back as a BaseStore caller put it.
 * Putting it again writes the same memory.
 */
function memoryInputOf(entry: MemoryEntry): MemoryInput {
  const { id: _id, namespace: _namespace, timestampMs, expiresAtMs: _expiresAtMs, createdAt: _created, updatedAt, keywords, persons, entities, timestamp, ...memory } = entry;
  const given: MemoryInput = { ...memory };
  const fromText = fillMissingFields({ text: entry.text });
  // The write puts the speaker first among the persons (entry.ts).
  const named = entry.speaker !== undefined && persons[0] === entry.speaker ? persons.slice(1) : persons;
  Object.assign(given, givenList("keywords", keywords, fromText.keywords), givenList("persons", named, fromText.persons), givenList("entities", entities, fromText.entities));
  if (timestampMs !== Date.parse(updatedAt)) given.timestamp = timestamp;
  return given;
}

/** A list as it was given: left out where it is what the text gives, [] where it was given empty but the text gives some. */
function givenList(field: "keywords" | "persons" | "entities", stored: readonly string[], derived: readonly string[]): Partial<MemoryInput> {
  if (stored.length === derived.length && stored.every((name, i) => name === derived[i])) return {};
  return { [field]: [...stored] };
}

export class RecallGraphStore extends BaseStore {
  constructor(
    private readonly memory: RecallGraph,
    private readonly options: { now?: () => Date } = {},
  ) {
    super();
  }

  async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    const planned = operations.map((operation, index) => this.plan(operation, `operations.${index}`));
    const results: unknown[] = [];
    for (const step of planned) results.push(step.kind === "read" ? await step.read() : null);
    await this.write(planned.flatMap((step) => (step.kind === "write" ? [step] : [])));
    return results as OperationResults<Op>;
  }

  /** One operation checked (namespace, key, value) and turned into a read or a write, before any runs. */
  private plan(operation: Operation, field: string): PlannedStep {
    if ("namespacePrefix" in operation) {
      if (operation.namespacePrefix.length > 0) namespaceOfTuple(operation.namespacePrefix, `${field}.namespacePrefix`);
      return { kind: "read", read: () => this.searchItems(operation) };
    }
    if (!("key" in operation)) return { kind: "read", read: () => this.namespaces(operation) };
    // Checked as recallgraph checks a namespace too (no whitespace at the edges...), so no write of the batch fails on it later.
    const namespace = parseOrThrow(NamespaceSchema, namespaceOfTuple(operation.namespace, `${field}.namespace`), `${field}.namespace`);
    const { key } = operation;
    if (!("value" in operation)) {
      return {
        kind: "read",
        read: async () => {
          const [entry] = await this.memory.get(namespace, [key]);
          return entry ? itemOf(entry) : null;
        },
      };
    }
    const memory = operation.value === null ? null : parseOrThrow(MemoryInputSchema, operation.value, `${field}.value`);
    return { kind: "write", namespace, key, memory };
  }

  /** A batch's writes, after its reads: the last write to a key wins; puts of one namespace are one all-or-nothing call. */
  private async write(steps: readonly WriteStep[]): Promise<void> {
    const last = new Map(steps.map((step) => [`${step.namespace}\u001f${step.key}`, step]));
    const byNamespace = new Map<string, WriteStep[]>();
    for (const step of last.values()) byNamespace.set(step.namespace, [...(byNamespace.get(step.namespace) ?? []), step]);
    for (const [namespace, writes] of byNamespace) {
      const puts = writes.flatMap((step) => (step.memory ? [{ ...step.memory, id: step.key }] : []));
      // A key's value is the caller's to replace: no memory supersedes another by what its text says.
      if (puts.length) await this.memory.remember(namespace, puts, { linkChanges: false });
      // Deleting what is not there is not an error here: BaseStore's delete is idempotent.
      const deletes = writes.filter((step) => step.memory === null).map((step) => step.key);
      const held = deletes.length ? (await this.memory.get(namespace, deletes)).map((entry) => entry.id) : [];
      if (held.length) await this.memory.forget(namespace, held);
    }
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
        { configurable: { finalK: limit + offset } },
      );
      const entries = await this.entriesOf(output.results);
      return output.results.slice(offset).flatMap((result) => {
        const entry = entries.get(`${result.namespace}\u001f${result.id}`);
        return entry ? [{ ...itemOf(entry), score: result.score }] : [];
      });
    }
    const listed = await Promise.all(namespaces.map((namespace) => this.newest(namespace, limit + offset, filter)));
    return listed
      .flat()
      .sort((a, b) => b.timestampMs - a.timestampMs || a.id.localeCompare(b.id))
      .slice(offset, offset + limit)
      .map(itemOf);
  }

  /** The namespace's `count` newest entries meeting `filter`, page by page (listPages). */
  private async newest(namespace: string, count: number, filter: z.output<typeof RecallFilterSchema> | undefined): Promise<MemoryEntry[]> {
    const entries: MemoryEntry[] = [];
    for await (const page of listPages(this.memory.store, parseOrThrow(NamespaceSchema, namespace, "namespace"), filter ? toMemoryFilter(filter) : undefined)) {
      entries.push(...page.entries);
      if (entries.length >= count) break;
    }
    return entries.slice(0, count);
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
