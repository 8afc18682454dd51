/**
 * Memories that change: which of an answer's memories are history at the time asked about, and the
 * order that puts the present first.
 *
 * A memory is history at instant T when a live memory of its namespace said at or before T supersedes
 * it, when its validity ended at or before T (`validUntil`), or when it only holds from after T
 * (`validFrom`). Without `asOf`, every live superseder counts (the store's present) and validity is read
 * at the run's reference time.
 *
 * The ordering rule, by default: a superseded hit is placed right after its replacement (the newest
 * memory reached through the supersessions that is itself current); a replacement ranked below it, or
 * found by no view (brought in), takes its place, as the answer to what it answered. Nothing else
 * moves: hits unrelated to a supersession keep their relative order, and a hit whose validity merely
 * ended stays where fusion put it, marked in its provenance (demoting it would reorder it against
 * unrelated hits on evidence fusion never weighed).
 * A question about change ("before", "used to", "moved from"...) keeps the fused order and brings the
 * other side of each supersession in, right after the hit that links to it, so both are in the answer.
 */
import { hitKey, type AnswerHit, type HistoryReason } from "../domain/hits.js";
import { validityMs, type MemoryEntry } from "../memory/entry.js";
import type { MemoryStore } from "../stores/port.js";

/** How far supersessions are followed from a hit: a memory replaced more often than this in a row is unusual. */
const MAX_CHAIN = 8;

/**
 * Words that ask about a change or the past; English and Chinese. Such a question wants the superseded
 * memory as much as its replacement.
 */
const CHANGE_QUESTION =
  /\b(before|used to|previous(ly)?|former(ly)?|originally|at first|initially|earlier|prior|changed?|changes|moved|switched|replaced|no longer|any ?more|history)\b|以前|之前|原来|曾经|改成|改为|搬到|不再|变成|换成/i;

/** True when the question asks how something was, or how it changed. */
export function asksAboutChange(question: string): boolean {
  return CHANGE_QUESTION.test(question);
}

/** The instant history is judged at, and the bound on which superseders count. */
export interface JudgedTime {
  /** Validity is read at this instant (asOf, else the run's reference time). */
  atMs: number;
  /** Superseders said after this do not count; undefined: every live one does. */
  saidByMs: number | undefined;
}

/** What the store says about the supersessions of some memories, by hit key, at the time judged. */
export interface SupersessionLinks {
  /** Live superseders said by `saidByMs`, newest first, of the memories read and of their superseders, along chains. */
  supersededBy: Map<string, MemoryEntry[]>;
  /** The stored memories each memory read supersedes. */
  supersedes: Map<string, MemoryEntry[]>;
}

export function noLinks(): SupersessionLinks {
  return { supersededBy: new Map(), supersedes: new Map() };
}

const keyOf = (entry: MemoryEntry): string => hitKey(entry.namespace, entry.id);

/**
 * Reads from the store every supersession touching `entries`, adding to `links`: who supersedes them
 * (followed along chains, MAX_CHAIN steps), and which stored memories they supersede. Each namespace is
 * read on its own: an id is only ever looked up in the namespace of the memory naming it.
 */
export async function readSupersessions(store: MemoryStore, entries: readonly MemoryEntry[], time: JudgedTime, links: SupersessionLinks): Promise<void> {
  for (const [namespace, own] of byNamespace(entries)) {
    await readSuperseders(store, namespace, own.map((entry) => entry.id), time, links.supersededBy);
    await readSuperseded(store, namespace, own, links.supersedes);
  }
}

async function readSuperseders(store: MemoryStore, namespace: string, ids: readonly string[], time: JudgedTime, into: Map<string, MemoryEntry[]>): Promise<void> {
  const asked = new Set<string>();
  let frontier = [...ids];
  for (let step = 0; step < MAX_CHAIN && frontier.length; step += 1) {
    frontier.forEach((id) => asked.add(id));
    const wanted = new Set(frontier);
    // Newest first, as the store answers: each list below keeps that order.
    const found = (await store.supersedersOf(namespace, frontier)).filter((entry) => time.saidByMs === undefined || entry.timestampMs <= time.saidByMs);
    for (const superseder of found) {
      for (const id of superseder.supersedes ?? []) {
        if (!wanted.has(id)) continue;
        const key = hitKey(namespace, id);
        into.set(key, [...(into.get(key) ?? []), superseder]);
      }
    }
    frontier = [...new Set(found.map((entry) => entry.id))].filter((id) => !asked.has(id));
  }
}

async function readSuperseded(store: MemoryStore, namespace: string, entries: readonly MemoryEntry[], into: Map<string, MemoryEntry[]>): Promise<void> {
  const named = [...new Set(entries.flatMap((entry) => entry.supersedes ?? []))];
  if (!named.length) return;
  const stored = new Map((await store.get(namespace, named)).map((entry) => [entry.id, entry]));
  for (const entry of entries) {
    const held = (entry.supersedes ?? []).flatMap((id) => stored.get(id) ?? []);
    if (held.length) into.set(keyOf(entry), held);
  }
}

function byNamespace(entries: readonly MemoryEntry[]): Map<string, MemoryEntry[]> {
  const grouped = new Map<string, MemoryEntry[]>();
  for (const entry of entries) grouped.set(entry.namespace, [...(grouped.get(entry.namespace) ?? []), entry]);
  return grouped;
}

/** Why an entry is history at `atMs`, or undefined when it is current. */
export function historyReason(entry: MemoryEntry, links: SupersessionLinks, atMs: number): HistoryReason | undefined {
  if (links.supersededBy.get(keyOf(entry))?.length) return "superseded";
  const { fromMs, untilMs } = validityMs(entry);
  if (untilMs !== undefined && untilMs <= atMs) return "validity ended";
  if (fromMs !== undefined && fromMs > atMs) return "not yet valid";
  return undefined;
}

/**
 * The current memory replacing `entry`: its newest superseder, that one's newest superseder, and so on
 * to one nothing supersedes. Undefined when `entry` is current, or the chain closes into a cycle (no
 * member of it is current).
 */
export function replacementOf(entry: MemoryEntry, links: SupersessionLinks): MemoryEntry | undefined {
  const seen = new Set([keyOf(entry)]);
  let current: MemoryEntry | undefined;
  for (let next = links.supersededBy.get(keyOf(entry))?.[0]; next; next = links.supersededBy.get(keyOf(next))?.[0]) {
    if (seen.has(keyOf(next))) return undefined;
    seen.add(keyOf(next));
    current = next;
  }
  return current;
}

/**
 * The memories the answer's order would bring in that no view found: by default each superseded hit's
 * replacement; for a question about change, every memory a hit supersedes or is directly superseded by.
 */
export function memoriesToBringIn(hits: readonly AnswerHit[], links: SupersessionLinks, aboutChange: boolean): MemoryEntry[] {
  const present = new Set(hits.map(({ hit }) => hit.key));
  const wanted = new Map<string, MemoryEntry>();
  for (const { entry } of hits) {
    for (const linked of linkedTo(entry, links, aboutChange)) if (!present.has(keyOf(linked))) wanted.set(keyOf(linked), linked);
  }
  return [...wanted.values()];
}

function linkedTo(entry: MemoryEntry, links: SupersessionLinks, aboutChange: boolean): MemoryEntry[] {
  if (!aboutChange) return [replacementOf(entry, links)].filter((found): found is MemoryEntry => found !== undefined);
  return [...(links.supersededBy.get(keyOf(entry)) ?? []), ...(links.supersedes.get(keyOf(entry)) ?? [])];
}

/**
 * The answer in the order the module's rule gives (see above). `admitted` holds, by key, the memories
 * of memoriesToBringIn that passed the answer's checks (caller filter, document version), each with its
 * fused hit when a view ranked it lower down (none: no ranks); others are not brought in. A memory no
 * view ranked takes the score of the hit it was brought in for.
 */
export function supersessionOrder(hits: readonly AnswerHit[], links: SupersessionLinks, admitted: ReadonlyMap<string, AnswerHit>, aboutChange: boolean): AnswerHit[] {
  const order = new Order(hits, admitted);
  if (aboutChange) {
    for (const answer of hits) {
      order.emit(answer);
      for (const linked of linkedTo(answer.entry, links, true)) order.bringIn(linked, answer);
    }
    return order.emitted;
  }
  const byKey = new Map(hits.map((answer) => [answer.hit.key, answer]));
  for (const answer of hits) {
    const replacement = replacementOf(answer.entry, links);
    const ranked = replacement && byKey.get(keyOf(replacement));
    if (ranked) order.emit(ranked);
    else if (replacement) order.bringIn(replacement, answer);
    order.emit(answer);
  }
  return order.emitted;
}

/** An answer being put in order: each hit once. */
class Order {
  readonly emitted: AnswerHit[] = [];
  private readonly done = new Set<string>();
  private readonly keys: ReadonlySet<string>;

  constructor(
    hits: readonly AnswerHit[],
    private readonly admitted: ReadonlyMap<string, AnswerHit>,
  ) {
    this.keys = new Set(hits.map(({ hit }) => hit.key));
  }

  emit(answer: AnswerHit): void {
    if (this.done.has(answer.hit.key)) return;
    this.done.add(answer.hit.key);
    this.emitted.push(answer);
  }

  /** `entry`, not among the hits, placed now for `answer` when the checks admitted it and it is not placed yet. */
  bringIn(entry: MemoryEntry, answer: AnswerHit): void {
    const key = keyOf(entry);
    const found = this.admitted.get(key);
    if (this.keys.has(key) || !found) return;
    if (found.hit.provenance.ranks.length) return this.emit(found);
    const { score, provenance } = answer.hit;
    this.emit({ entry: found.entry, hit: { key, score, provenance: { views: [], subQueries: [], ranks: [], fusedScore: provenance.fusedScore, broughtInFor: answer.entry.id } } });
  }
}

/** The hit with its provenance saying how it stands in time: who supersedes it, what it supersedes, and why it is history. */
export function withTimeProvenance(answer: AnswerHit, links: SupersessionLinks, atMs: number): AnswerHit {
  const key = answer.hit.key;
  const supersededBy = (links.supersededBy.get(key) ?? []).map((entry) => entry.id);
  const supersedes = (links.supersedes.get(key) ?? []).map((entry) => entry.id);
  const history = historyReason(answer.entry, links, atMs);
  if (!supersededBy.length && !supersedes.length && history === undefined) return answer;
  const reason = supersedes.length ? answer.entry.supersessionReason : links.supersededBy.get(key)?.[0]?.supersessionReason;
  const provenance = {
    ...answer.hit.provenance,
    ...(supersededBy.length ? { supersededBy } : {}),
    ...(supersedes.length ? { supersedes } : {}),
    ...(reason !== undefined ? { supersessionReason: reason } : {}),
    ...(history !== undefined ? { history } : {}),
  };
  return { ...answer, hit: { ...answer.hit, provenance } };
}
