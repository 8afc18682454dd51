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
export function filterSqlWithExpired(namespace: string, filter: MemoryFilter | undefined): FilterSql {
  const conditions: string[] = [];
  const params: (string | number)[] = [];
  let hasNameCondition = false;
  const anyName = (kind: "person" | "entity", names: readonly string[] | undefined): void => {
    if (!names?.length) return;
    // A list of blank names is still a condition (one nothing matches), never a dropped one.
    const folded = [...new Set(names.map(foldName).filter(Boolean))];
    hasNameCondition = true;
    conditions.push(
      `e.rowid IN (SELECT entry_rowid FROM entry_names WHERE namespace = ? AND kind = '${kind}' AND name_lower IN (SELECT value FROM json_each(?)))`,
    );
    params.push(namespace, JSON.stringify(folded));
  };
  anyName("person", filter?.persons);
  anyName("entity", filter?.entities);
  if (filter?.location) {
    // A literal substring: not trimmed (the needle is the caller's text), and instr has no wildcards.
    // The substring test runs over the namespace's distinct locations, then the index finds their entries.
    hasNameCondition = true;
    conditions.push(
      `e.rowid IN (SELECT entry_rowid FROM entry_names WHERE namespace = ? AND kind = 'location' AND name_lower IN
         (SELECT name_lower FROM namespace_names WHERE namespace = ? AND kind = 'location' AND instr(name_lower, ?) > 0))`,
    );
    params.push(namespace, namespace, filter.location.toLowerCase());
  }
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
  // With a name condition, `+` keeps SQLite from walking the namespace's index: the matching names'
  // entries (exactly counted in namespace_names, usually few) drive the query instead, whatever the
  // table statistics say. Without one, the (namespace, timestamp_ms) index serves the time range.
  const namespaceCondition = hasNameCondition ? "+e.namespace = ?" : "e.namespace = ?";
  return { where: [namespaceCondition, ...conditions].join(" AND "), params: [namespace, ...params] };
}
