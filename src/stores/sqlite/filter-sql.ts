import { foldName, type MemoryFilter } from "../port.js";

/** SQL conditions on `entries AS e` (plus their parameters) that select a namespace's entries matching a filter. */
export interface FilterSql {
  where: string;
  params: (string | number)[];
}

/** SQL condition on `entries AS e` (one parameter: the clock) keeping the entries not yet expired. */
export const LIVE_ENTRY_SQL = "(e.expires_at_ms IS NULL OR e.expires_at_ms > ?)";

/**
 * Translates the port's filter: persons and entities any-of on whole lower-cased names, location a
 * case-insensitive substring (instr, so `%` and `_` are plain characters), time range [startMs, endMs),
 * document id exact. Name conditions go through the `entry_names` index, never through the entry JSON.
 * The namespace condition is always present (and first): no filter can widen the scope. Entries
 * expired at `nowMs` never match.
 */
export function filterSql(namespace: string, filter: MemoryFilter | undefined, nowMs: number): FilterSql {
  const matching = filterSqlWithExpired(namespace, filter);
  return { where: `${matching.where} AND ${LIVE_ENTRY_SQL}`, params: [...matching.params, nowMs] };
}

/** filterSql's conditions without the expiry one: for a caller that leaves out expired entries itself (and can keep the matches between calls). */
function filterSqlWithExpired(namespace: string, filter: MemoryFilter | undefined): FilterSql {
  const names = nameParts(namespace, filter);
  const rest = otherConditions(filter);
  const conditions = [...names.map((part) => `e.rowid IN (${part.sql})`), ...rest.conditions];
  // With a name condition, `+` keeps SQLite from walking the namespace's index: the matching names'
  // entries (exactly counted in namespace_names, usually few) drive the query instead, whatever the
  // table statistics say. Without one, the (namespace, timestamp_ms) index serves the time range.
  const namespaceCondition = names.length ? "+e.namespace = ?" : "e.namespace = ?";
  return { where: [namespaceCondition, ...conditions].join(" AND "), params: [namespace, ...names.flatMap((part) => part.params), ...rest.params] };
}

/** SQL selecting rowids (as `rowid`) with its parameters. */
export interface RowidSql {
  sql: string;
  params: (string | number)[];
}

/**
 * The filter as parts whose matches, intersected, are filterSqlWithExpired's: each name condition
 * read from the entry_names index alone (its rows are the namespace's own entries', so no entry row
 * is looked up: a speaker of a million memories costs a range of one index, not 75k lookups), the
 * other conditions together from the entries' time index. A caller that keeps each part's matches
 * reads a speaker's once for every time window asked with them. Empty for an empty filter.
 */
export function filterParts(namespace: string, filter: MemoryFilter | undefined): RowidSql[] {
  const rest = otherConditions(filter);
  const others = rest.conditions.length
    ? [{ sql: `SELECT e.rowid AS rowid FROM entries AS e WHERE ${["e.namespace = ?", ...rest.conditions].join(" AND ")}`, params: [namespace, ...rest.params] }]
    : [];
  return [...nameParts(namespace, filter), ...others];
}

/**
 * Persons and entities any-of on whole lower-cased names, location a case-insensitive substring
 * (instr, so `%` and `_` are plain characters): one SELECT of entry_names each. A list of blank
 * names is still a condition (one nothing matches), never a dropped one.
 */
function nameParts(namespace: string, filter: MemoryFilter | undefined): RowidSql[] {
  const parts: RowidSql[] = [];
  for (const [kind, names] of [
    ["person", filter?.persons],
    ["entity", filter?.entities],
  ] as const) {
    if (!names?.length) continue;
    const folded = [...new Set(names.map(foldName).filter(Boolean))];
    parts.push({
      sql: `SELECT entry_rowid AS rowid FROM entry_names WHERE namespace = ? AND kind = '${kind}' AND name_lower IN (SELECT value FROM json_each(?))`,
      params: [namespace, JSON.stringify(folded)],
    });
  }
  if (filter?.location) {
    // A literal substring: not trimmed (the needle is the caller's text), and instr has no wildcards.
    // The substring test runs over the namespace's distinct locations, then the index finds their entries.
    parts.push({
      sql: `SELECT entry_rowid AS rowid FROM entry_names WHERE namespace = ? AND kind = 'location' AND name_lower IN
         (SELECT name_lower FROM namespace_names WHERE namespace = ? AND kind = 'location' AND instr(name_lower, ?) > 0)`,
      params: [namespace, namespace, filter.location.toLowerCase()],
    });
  }
  return parts;
}

/** The time range [startMs, endMs) and the document id, as conditions on `entries AS e`. */
function otherConditions(filter: MemoryFilter | undefined): { conditions: string[]; params: (string | number)[] } {
  const conditions: string[] = [];
  const params: (string | number)[] = [];
  const { startMs, endMs } = filter?.timeRange ?? {};
  if (startMs !== undefined) {
    conditions.push("e.timestamp_ms >= ?");
    params.push(startMs);
  }
  if (endMs !== undefined) {
    conditions.push("e.timestamp_ms < ?");
    params.push(endMs);
  }
  if (filter?.documentId !== undefined) {
    conditions.push("e.document_id = ?");
    params.push(filter.documentId);
  }
  return { conditions, params };
}
