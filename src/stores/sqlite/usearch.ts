/**
 * usearch (Unum's vector search engine: SIMD exact search and HNSW), loaded on first use. An optional
 * dependency: its npm package ships prebuilt N-API binaries for Linux (x64, arm64) and macOS that Node
 * 20 loads as they are, and elsewhere builds from source at install; where that fails npm leaves it
 * out, the import fails, and the store says so once and searches through sqlite-vec alone, with the
 * same results, only slower.
 */
import { describeError, log } from "../../core/log.js";

export type Usearch = typeof import("usearch");

let loading: Promise<Usearch | undefined> | undefined;

/** The usearch module, or undefined when its native binary cannot be loaded on this machine. */
export function loadUsearch(): Promise<Usearch | undefined> {
  loading ??= import("usearch").then(
    (module) => module,
    (error: unknown) => {
      log.warn("usearch_unavailable", { reason: describeError(error), fallback: "sqlite-vec exact search" });
      return undefined;
    },
  );
  return loading;
}
