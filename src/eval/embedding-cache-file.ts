import { readFile, rename, writeFile } from "node:fs/promises";
import { z } from "zod";
import { ValidationError } from "../core/errors.js";
import type { EmbeddingSpec } from "../text/embedder.js";
import type { CachedEmbeddings } from "./cached-embeddings.js";

/**
 * The evaluation's vectors kept between runs. The offline embedder needs about ten minutes for a
 * knowledge base of 5,000 abstracts on 2 cores; a run that tries one setting should not pay that
 * again. One JSON file: the embedder that made the vectors, and each vector under the SHA-256 of its
 * text (the texts themselves are not stored), as little-endian float64 in base64, so a vector comes
 * back bit for bit and every retriever sees exactly what a fresh run would have computed.
 */
const CACHE_VERSION = 2;

const CacheFileSchema = z.object({
  format: z.literal("recallgraph-embedding-cache").describe("what the file is"),
  version: z.literal(CACHE_VERSION).describe("version: 2 since USE-lite embeds long texts by their sentences (a version 1 file's vectors of them are stale)"),
  model: z.string().min(1).describe("the embedder model that made the vectors"),
  dimension: z.number().int().min(1).describe("vector length"),
  vectors: z
    .record(z.string().regex(/^[0-9a-f]{64}$/, "keys must be SHA-256 hex digests"), z.string().describe("float64 little-endian, base64"))
    .describe("text digest to vector"),
});

/** Reads the vectors at `path` into `cache`; a missing file is an empty cache. Returns how many were read. */
export async function loadEmbeddingCache(path: string, spec: EmbeddingSpec, cache: CachedEmbeddings): Promise<number> {
  const text = await readFile(path, "utf8").catch((error: unknown) => {
    if (isMissing(error)) return undefined;
    throw new ValidationError("embeddingCache", `cannot read ${path}`);
  });
  if (text === undefined) return 0;
  const file = parseCacheFile(path, text);
  if (file.model !== spec.model || file.dimension !== spec.dimension) {
    throw new ValidationError(
      "embeddingCache",
      `${path} holds ${file.model} (${file.dimension}-d) vectors, not ${spec.model} (${spec.dimension}-d): use another file for this embedder`,
    );
  }
  const vectors = new Map<string, number[]>();
  for (const [digest, encoded] of Object.entries(file.vectors)) {
    const vector = decodeVector(encoded);
    if (vector.length !== spec.dimension) throw new ValidationError("embeddingCache", `${path}: vector ${digest} has ${vector.length} values, not ${spec.dimension}`);
    vectors.set(digest, vector);
  }
  cache.preload(vectors);
  return vectors.size;
}

/** Writes every vector `cache` holds to `path`, through a temporary file so a crash never leaves half a cache. */
export async function saveEmbeddingCache(path: string, spec: EmbeddingSpec, cache: CachedEmbeddings): Promise<void> {
  const vectors: Record<string, string> = {};
  for (const [digest, vector] of cache.saved()) vectors[digest] = encodeVector(vector);
  const body: z.input<typeof CacheFileSchema> = { format: "recallgraph-embedding-cache", version: CACHE_VERSION, model: spec.model, dimension: spec.dimension, vectors };
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    await writeFile(temporary, JSON.stringify(body));
    await rename(temporary, path);
  } catch {
    throw new ValidationError("embeddingCache", `cannot write ${path}`);
  }
}

function parseCacheFile(path: string, text: string): z.output<typeof CacheFileSchema> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ValidationError("embeddingCache", `${path} is not an embedding cache (not JSON)`);
  }
  if (typeof json === "object" && json !== null && "version" in json && json.version === 1) {
    throw new ValidationError("embeddingCache", `${path} was written before USE-lite embedded long texts by their sentences, and its vectors of them are stale: delete it, and the next run embeds again`);
  }
  const parsed = CacheFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ValidationError("embeddingCache", `${path} is not an embedding cache (${[...(issue?.path ?? [])].join(".") || "file"}: ${issue?.message ?? "invalid"})`);
  }
  return parsed.data;
}

export function encodeVector(vector: readonly number[]): string {
  const bytes = Buffer.alloc(vector.length * 8);
  vector.forEach((value, i) => bytes.writeDoubleLE(value, i * 8));
  return bytes.toString("base64");
}

export function decodeVector(encoded: string): number[] {
  const bytes = Buffer.from(encoded, "base64");
  const vector: number[] = [];
  for (let offset = 0; offset + 8 <= bytes.length; offset += 8) vector.push(bytes.readDoubleLE(offset));
  return vector;
}

function isMissing(error: unknown): boolean {
  return typeof error === "object" && error !== null && "code" in error && error.code === "ENOENT";
}
