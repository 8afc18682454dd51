import { createHash } from "node:crypto";

/**
 * Deterministic entry ids: the same source in the same namespace always gets the same id, so
 * re-ingesting replaces (upsert by id) instead of duplicating. Parts are joined with a separator
 * that cannot appear in them unescaped, so ("a|b", "c") and ("a", "b|c") never collide.
 */
export function stableId(kind: string, ...parts: readonly (string | number)[]): string {
  const hash = createHash("sha256");
  for (const part of [kind, ...parts]) hash.update(`${String(part).replaceAll("\\", "\\\\").replaceAll("\u0000", "\\0")}\u0000`);
  return `${kind}-${hash.digest("hex").slice(0, 32)}`;
}

/** Short content hash (hex) for change detection. */
export function contentHash(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}
