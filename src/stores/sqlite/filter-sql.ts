import { foldName, type MemoryFilter } from "../port.js";

/** SQL conditions on `entries AS e` (plus their parameters) that select a namespace's entries matching a filter. */
export interface FilterSql {
  where: string;
  params: (string | number)[];
}

/** SQL condition on `entries AS e` (one parameter: the clock) keeping the entries not yet expired. */
export const LIVE_ENTRY_SQL = "(e.expires_at_ms IS NULL OR e.expires_at_ms > ?)";

/**
 * What drives a query with name conditions. "names": the names' own index rows (their entries, usually
 * few, read whole and then ordered). "time": the namespace's time index, newest first, each entry
 * checked against the names (newestFirstDrive says when: a page of a name that half the namespace
 * carries reads about twice the page, where the names' rows would be read whole to order them).
 */
export type NameDrive = "names" | "time";

/**
 * Translates the port's filter: persons and entities any-of on whole lower-cased names, location a
 * case-insensitive substring (instr, so `%` and `_` are plain characters), time range [startMs, endMs),
 * document id exact. Name conditions go through the `entry_names` index, never through the entry JSON.
 * The namespace condition is always present (and first): no filter can widen the scope. Entries
 * expired at `nowMs` never match.
 */
export function filterSql(namespace: string, filter: MemoryFilter | undefined, nowMs: number, drive: NameDrive = "names"): FilterSql {
  const matching = filterSqlWithExpired(namespace, filter, drive);
  return { where: `${matching.where} AND ${LIVE_ENTRY_SQL}`, params: [...matching.params, nowMs] };
}

/** filterSql's conditions without the expiry one: for a caller that leaves out expired entries itself (and can keep the matches between calls). */
function filterSqlWithExpired(namespace: string, filter: MemoryFilter | undefined, drive: NameDrive): FilterSql {
  const names = drive === "names" ? nameParts(namespace, filter).map(asMembership) : nameChecks(namespace, filter);
  const rest = otherConditions(filter);
  // With a name condition driving, `+` keeps SQLite from walking the namespace's index: the matching
  // names' entries drive the query instead, whatever the table statistics say. Otherwise the
  // (namespace, timestamp_ms) index serves the time range and the order.
  const namespaceCondition = names.length && drive === "names" ? "+e.namespace = ?" : "e.namespace = ?";
  return {
    where: [namespaceCondition, ...names.map((part) => part.sql), ...rest.conditions].join(" AND "),
    params: [namespace, ...names.flatMap((part) => part.params), ...rest.params],
  };
}

/** A name part as a condition on `e`: its rowids, selected once. */
function asMembership(part: RowidSql): SqlPart {
  return { sql: `e.rowid IN (${part.sql})`, params: part.params };
}

/**
 * The name conditions as checks of one entry each (entry_names_by_entry), for a walk of the time
 * index: the same matches as nameParts', persons and entities any-of, location a substring.
 */
function nameChecks(namespace: string, filter: MemoryFilter | undefined): SqlPart[] {
  const names = `SELECT 1 FROM entry_names AS n WHERE n.entry_rowid = e.rowid AND n.namespace = ?`;
  const checks: SqlPart[] = [];
  for (const [kind, folded] of namedKinds(filter)) {
    checks.push({ sql: `EXISTS (${names} AND n.kind = '${kind}' AND n.name_lower IN (SELECT value FROM json_each(?)))`, params: [namespace, JSON.stringify(folded)] });
  }
  if (filter?.location) {
    checks.push({ sql: `EXISTS (${names} AND n.kind = 'location' AND instr(n.name_lower, ?) > 0)`, params: [namespace, filter.location.toLowerCase()] });
  }
  return checks;
}

/**
 * How many entries each name condition's names are carried by (an entry with two of one condition's
 * names counted twice), from namespace_names: what newestFirstDrive weighs. One SELECT per condition,
 * in nameParts' order; none for a filter without names.
 */
export function nameCountParts(namespace: string, filter: MemoryFilter | undefined): SqlPart[] {
  const counted = "SELECT coalesce(sum(entry_count), 0) AS count FROM namespace_names WHERE namespace = ?";
  const parts: SqlPart[] = [];
  for (const [kind, folded] of namedKinds(filter)) {
    parts.push({ sql: `${counted} AND kind = '${kind}' AND name_lower IN (SELECT value FROM json_each(?))`, params: [namespace, JSON.stringify(folded)] });
  }
  if (filter?.location) parts.push({ sql: `${counted} AND kind = 'location' AND instr(name_lower, ?) > 0`, params: [namespace, filter.location.toLowerCase()] });
  return parts;
}

/**
 * Which drive reads fewer entries for the newest `wanted` matches of a namespace of `namespaceSize`
 * entries whose name conditions are carried by `nameCounts` entries each. The names' rows: the fewest
 * of any condition. The time index: about wanted × size / matches entries, the matches estimated with
 * the conditions taken as independent. Without name conditions there is nothing to choose.
 */
export function newestFirstDrive(nameCounts: readonly number[], namespaceSize: number, wanted: number): NameDrive {
  if (nameCounts.length === 0 || namespaceSize <= 0) return "names";
  const matches = nameCounts.reduce((expected, count) => expected * Math.min(1, count / namespaceSize), namespaceSize);
  if (matches <= 0) return "names";
  return (wanted * namespaceSize) / matches < Math.min(...nameCounts) ? "time" : "names";
}

/** A piece of SQL with its parameters: a condition on `entries AS e`, or a SELECT (of rowids, of a count). */
export interface SqlPart {
  sql: string;
  params: (string | number)[];
}

/** SQL selecting rowids (as `rowid`) with its parameters. */
export type RowidSql = SqlPart;

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
  for (const [kind, folded] of namedKinds(filter)) {
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

/** The persons and entities the filter names, each kind's names folded, in that order; a list of blank names stays a condition. */
function namedKinds(filter: MemoryFilter | undefined): ["person" | "entity", string[]][] {
  const kinds: ["person" | "entity", string[]][] = [];
  for (const [kind, names] of [
    ["person", filter?.persons],
    ["entity", filter?.entities],
  ] as const) {
    if (names?.length) kinds.push([kind, [...new Set(names.map(foldName).filter(Boolean))]]);
  }
  return kinds;
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
