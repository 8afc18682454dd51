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
