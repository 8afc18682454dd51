/**
 * Dense vectors in the sqlite store. Vectors are stored unit-normalised and searched with vec0's L2
 * distance, because for unit vectors cosine similarity = 1 - L2² / 2 exactly, and this sqlite-vec
 * build (no SIMD flags) computes L2 about a quarter faster than its cosine distance, which
 * re-derives both norms for every pair. Cosine ignores length anyway, so nothing is lost; only the
 * zero vector, whose cosine is undefined, is refused.
 */
import { ValidationError } from "../../core/errors.js";

/** The vector scaled to length 1, as little-endian float32 bytes (what vec0 stores). */
export function unitVectorBlob(vector: Float64Array, field: string): Buffer {
  // Scale by the largest component first so that huge or tiny values neither overflow nor underflow the norm.
  let largest = 0;
  for (const value of vector) largest = Math.max(largest, Math.abs(value));
  if (largest === 0) throw new ValidationError(field, "vector must not be all zeros: its cosine similarity is undefined");
  let sumOfSquares = 0;
  for (const value of vector) sumOfSquares += (value / largest) ** 2;
  const norm = Math.sqrt(sumOfSquares) * largest;
  const unit = new Float32Array(vector.length);
  for (let index = 0; index < vector.length; index += 1) unit[index] = (vector[index] ?? 0) / norm;
  return Buffer.from(unit.buffer, unit.byteOffset, unit.byteLength);
}

/** Cosine similarity of two unit vectors from their L2 distance, clamped against float rounding. */
export function cosineFromUnitL2(distance: number): number {
  return Math.min(1, Math.max(-1, 1 - (distance * distance) / 2));
}

/**
 * The L2 distance vec0 reports between a stored vector (`length` floats of `stored` from `offset`) and a
 * query, bit for bit: this sqlite-vec build sums (a - b)² in float32, one component after the other,
 * and takes a float32 square root. Math.fround after every operation does the same arithmetic (one
 * rounding of an exact double result is the float32 result). Checked against vec_distance_l2 in
 * test/stores/vector-index.test.ts.
 */
export function vec0L2(stored: Float32Array, offset: number, query: Float32Array): number {
  let sum = 0;
  for (let index = 0; index < query.length; index += 1) {
    const difference = Math.fround((stored[offset + index] ?? 0) - (query[index] ?? 0));
    sum = Math.fround(sum + Math.fround(difference * difference));
  }
  return Math.fround(Math.sqrt(sum));
}

/** Slots per vec0 chunk this order allows (a chunk holds VECTOR_CHUNK_ROWS of them; older files no more than 1024). */
const TIE_ORDER_SLOTS = 1 << 16;

/**
 * Where vec0's KNN puts a vector among others at exactly the same distance, as a number to sort by
 * (lower first): chunks in ascending order, and within a chunk the later slot first. That is what
 * vec0 0.1.9 does (its per-chunk selection keeps the last of equal minima, its merge keeps the earlier
 * chunk first); test/stores/vector-index.test.ts checks it on duplicated vectors.
 */
export function vec0TieOrder(chunkId: number, slot: number): number {
  return chunkId * TIE_ORDER_SLOTS + (TIE_ORDER_SLOTS - 1 - slot);
}

/** The float32 values of a unit-vector blob (unitVectorBlob's output), in an array of their own. */
export function floatsOfBlob(blob: Buffer): Float32Array {
  const floats = new Float32Array(blob.byteLength / 4);
  new Uint8Array(floats.buffer).set(blob);
  return floats;
}
