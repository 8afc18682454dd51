import { ValidationError } from "../core/errors.js";
import { MemoryInputSchema, normalizeEntry, type MemoryInput } from "../memory/entry.js";
import { stableId } from "./ids.js";
import { jsonLines } from "./json-text.js";
import { reasonOf } from "./write-memories.js";

/** One valid line of a JSON Lines memory file. */
export interface JsonlMemory {
  line: number;
  input: MemoryInput;
}

/**
 * Parses JSON Lines of ready memories: each non-blank line one MemoryInput object (only `text` is
 * required; every other field is validated when present). The whole file is checked before anything
 * is returned, so a file with any bad line writes nothing. Errors name the line and the field:
 * `line 3: text: text must not be empty`, `line 7: not valid JSON (Unexpected token ...)`.
 */
export function parseJsonl(content: string): JsonlMemory[] {
  const memories: JsonlMemory[] = [];
  const lineOfId = new Map<string, number>();
  for (const { line, json } of jsonLines(content, (line, reason) => lineError(line, "", reason))) {
    if (!isPlainObject(json)) {
      throw lineError(line, "", "expected a JSON object with at least a \"text\" field");
    }
    const parsed = MemoryInputSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = (issue?.path ?? []).map(String).join(".");
      throw lineError(line, field, issue?.message ?? "invalid value");
    }
    // The writer's own checks beyond the schema (e.g. a timestamp after year 9999), run now so the error names the line.
    try {
      normalizeEntry("jsonl", parsed.data, { now: 0 });
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      throw lineError(line, error.field, reasonOf(error));
    }
    const id = parsed.data.id;
    if (id !== undefined) {
      const first = lineOfId.get(id);
      if (first !== undefined) throw lineError(line, "id", `duplicate id "${id}" (first used on line ${first})`);
      lineOfId.set(id, line);
    }
    memories.push({ line, input: parsed.data });
  }
  if (memories.length === 0) throw new ValidationError("", "the file has no memories (expected one JSON object per line, e.g. {\"text\": \"...\"})");
  return memories;
}

/**
 * Gives every memory without an id a deterministic one derived from (namespace, its content), so
 * re-ingesting the same file replaces instead of duplicating. Identical id-less lines are one
 * memory: later copies are dropped.
 */
export function withStableIds(namespace: string, memories: readonly JsonlMemory[]): MemoryInput[] {
  return withStableIdLines(namespace, memories).map((memory) => memory.input);
}

/** withStableIds keeping each memory's line, so a later error can still name it. */
export function withStableIdLines(namespace: string, memories: readonly JsonlMemory[]): JsonlMemory[] {
  const seen = new Set<string>();
  const kept: JsonlMemory[] = [];
  for (const { line, input } of memories) {
    const id = input.id ?? stableId("mem", namespace, canonicalJson(input));
    if (input.id === undefined && seen.has(id)) continue;
    seen.add(id);
    kept.push({ line, input: { ...input, id } });
  }
  return kept;
}

/** How a JSON Lines file names a memory in an error: `line 250: timestamp`, as parseJsonl does. */
export function lineField(memories: readonly JsonlMemory[]): (index: number, field: string) => string {
  return (index, field) => {
    const line = memories[index]?.line ?? index + 1;
    return field ? `line ${line}: ${field}` : `line ${line}`;
  };
}

function lineError(line: number, field: string, message: string): ValidationError {
  return new ValidationError(field ? `line ${line}: ${field}` : `line ${line}`, message, { line, path: field });
}

/** JSON with object keys sorted, so key order in the file does not change an entry's identity. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) => {
    if (isPlainObject(inner)) return Object.fromEntries(Object.entries(inner).sort(([a], [b]) => a.localeCompare(b)));
    return inner;
  });
}

/** A JSON object: not null, not an array. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
