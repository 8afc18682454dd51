/**
 * One namespace's approximate (HNSW) vector index, usearch's, keyed by entry rowid, and its files.
 *
 * Saved beside the store file in `<db>.vectors/` as saved-files.ts saves a structure: `<key>.<generation>.usearch`
 * holds the index as usearch saves it, and its manifest says which store state it matches: the store
 * file's id, the namespace, its generation (schema.ts) and the index's parameters. The file's SHA-256 is
 * checked before usearch reads it: usearch trusts its input, and a truncated or damaged file can corrupt
 * its heap and abort the process.
 */
import { z } from "zod";
import { intactFile, readManifest, saveCurrent, type SavedFilesLock } from "./saved-files.js";
import type { Usearch } from "./usearch.js";
import type { VectorHit } from "./exact-vectors.js";

/** HNSW construction and search parameters (usearch's names in parentheses). */
export const HnswParametersSchema = z.strictObject({
  connectivity: z
    .number()
    .int()
    .min(2)
    .max(128)
    .describe("Links per node (usearch `connectivity`, HNSW's M): more links, better recall, more memory and slower builds"),
  expansionAdd: z
    .number()
    .int()
    .min(1)
    .max(4096)
    .describe("Candidates kept while inserting (usearch `expansion_add`, HNSW's efConstruction): higher builds a better graph, slower"),
  expansionSearch: z
    .number()
    .int()
    .min(1)
    .max(4096)
    .describe("Candidates kept while searching (usearch `expansion_search`, HNSW's ef): higher finds more true neighbours, slower"),
});
export type HnswParameters = z.infer<typeof HnswParametersSchema>;
/** What fixes how an index is built; how wide it is searched is chosen per search. */
export type HnswBuildParameters = Omit<HnswParameters, "expansionSearch">;

/**
 * How the index holds each vector (usearch's ScalarKind): f32 as stored (4 bytes a dimension), f16 (2)
 * or i8 (1, each value times 127).
 */
export const HNSW_SCALAR_KINDS = ["f32", "f16", "i8"] as const;
export type HnswScalarKind = (typeof HNSW_SCALAR_KINDS)[number];

/**
 * Kinds whose own distances rank too coarsely to answer: their index only proposes candidates, which
 * the store re-ranks by the full-precision vectors in the file (vector-search.ts). On the speed
 * benchmark's 100k memories (512-d) the index's own top 10 held 0.998 of the exact top 10 with f32,
 * 0.995 with f16 and 0.81 with i8.
 */
const RERANKED_KINDS: ReadonlySet<HnswScalarKind> = new Set(["i8"]);

/** What fixes an index's saved shape: a file built with other values is rebuilt, never loaded. */
export interface IndexShape {
  parameters: HnswBuildParameters;
  scalarKind: HnswScalarKind;
}

const ManifestSchema = z.strictObject({
  format: z.literal(2).describe("Version of this manifest's layout"),
  storeId: z.string().min(1).describe("The store file's id (meta.store_id): index files of a replaced store never match"),
  namespace: z.string().describe("The namespace the index holds"),
  generation: z.number().int().min(0).describe("The namespace's generation the index matches (vector_generations)"),
  file: z.string().regex(/^[0-9a-f]+\.\d+\.usearch$/).describe("The index file, in the same folder"),
  size: z.number().int().min(0).describe("Vectors in the index, checked after loading"),
  sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .describe("The index file's SHA-256, checked before loading: usearch trusts the file, and a truncated or damaged one can corrupt its heap"),
  dimension: z.number().int().min(1).describe("Vector dimension"),
  connectivity: z.number().int().min(2).describe("The connectivity it was built with (a different one means a rebuild)"),
  scalarKind: z
    .enum(HNSW_SCALAR_KINDS)
    .default("f32")
    .describe("How the index holds vectors (a different kind means a rebuild); manifests that do not say are of f32 indexes, the only kind before it was recorded"),
});
type Manifest = z.output<typeof ManifestSchema>;

/** What a saved index must match to be loaded. */
export interface IndexIdentity {
  storeId: string;
  namespace: string;
  dimension: number;
}

/** A loaded index and the generation its file matched. */
export interface LoadedIndex {
  index: HnswIndex;
  generation: number;
}

export class HnswIndex {
  private constructor(
    private readonly native: InstanceType<Usearch["Index"]>,
    readonly shape: IndexShape,
  ) {}

  /** An empty index of unit vectors compared by dot product (their cosine). */
  static create(usearch: Usearch, dimension: number, shape: IndexShape): HnswIndex {
    const { parameters, scalarKind } = shape;
    return new HnswIndex(
      new usearch.Index({
        dimensions: dimension,
        metric: usearch.MetricKind.IP,
        quantization: SCALAR_KIND_OF[scalarKind](usearch),
        connectivity: parameters.connectivity,
        expansion_add: parameters.expansionAdd,
        // usearch looks max(expansion_search, count) wide: each search passes its own width as the count.
        expansion_search: 1,
        multi: false,
      }),
      shape,
    );
  }

  /** True when the index's own distances only propose candidates, to be re-ranked by the full-precision vectors. */
  get reranked(): boolean {
    return RERANKED_KINDS.has(this.shape.scalarKind);
  }

  get size(): number {
    return this.native.size();
  }

  /**
   * Adds vectors (rows of `vectors`) under their rowids; `threads` 0 uses every core. Adding on several
   * threads strands a node now and then, stored but never reached by a search (usearch issue 735): of
   * 25,328 MiniLM vectors of the development sets, 3 did not find themselves among 256 candidates built
   * on two threads and 1 built on one, which took twice as long. The lexical and symbolic views still
   * find such a memory.
   */
  add(rowids: readonly number[], vectors: Float32Array, threads: number): void {
    if (!rowids.length) return;
    this.native.add(BigUint64Array.from(rowids, (rowid) => BigInt(rowid)), vectors, threads);
  }

  contains(rowid: number): boolean {
    return this.native.contains(BigInt(rowid)) === true;
  }

  remove(rowids: readonly number[]): void {
    if (rowids.length) this.native.remove(BigUint64Array.from(rowids, (rowid) => BigInt(rowid)));
  }

  /**
   * About the k nearest of a unit query, best first, with the L2 distance of unit vectors (as vec0
   * reports it), found among the `width` candidates the search keeps (HNSW's ef).
   */
  search(query: Float32Array, k: number, width: number): VectorHit[] {
    if (this.size === 0) return [];
    // One thread: one query, and the machine's other core serves other calls. Matches hold only what was found.
    const matches = this.native.search(query, Math.max(k, width), 1);
    const hits: VectorHit[] = [];
    for (let index = 0; index < Math.min(k, matches.keys.length); index += 1) {
      // usearch's "ip" distance is 1 - dot; for unit vectors L2² = 2 - 2·dot = 2·distance.
      const distance = Math.sqrt(Math.max(0, 2 * (matches.distances[index] ?? 0)));
      hits.push({ rowid: Number(matches.keys[index] ?? 0n), distance });
    }
    return hits;
  }

  /** Saves the index into `folder` as matching `generation`, then makes it the current file under `lock` (saved-files.ts). */
  save(folder: string, identity: IndexIdentity, generation: number, lock: SavedFilesLock): void {
    saveCurrent(
      folder,
      identity.namespace,
      generation,
      "usearch",
      (path) => this.native.save(path),
      ({ file, sha256 }): Manifest => ({
        format: 2,
        storeId: identity.storeId,
        namespace: identity.namespace,
        generation,
        file,
        size: this.size,
        sha256,
        dimension: identity.dimension,
        connectivity: this.shape.parameters.connectivity,
        scalarKind: this.shape.scalarKind,
      }),
      lock,
    );
  }

  /**
   * The namespace's saved index when its manifest matches `identity` and `shape` (connectivity and
   * scalar kind: usearch's load would silently take the file's kind; the search width is each
   * search's own) and the file loads whole; undefined otherwise (none, another store's, another
   * shape, unreadable), which calls for a rebuild.
   */
  static load(usearch: Usearch, folder: string, identity: IndexIdentity, shape: IndexShape): LoadedIndex | undefined {
    const manifest = readManifest(folder, identity.namespace, ManifestSchema);
    if (!manifest) return undefined;
    const matches =
      manifest.storeId === identity.storeId &&
      manifest.namespace === identity.namespace &&
      manifest.dimension === identity.dimension &&
      manifest.connectivity === shape.parameters.connectivity &&
      manifest.scalarKind === shape.scalarKind;
    if (!matches) return undefined;
    const path = intactFile(folder, manifest);
    if (!path) return undefined;
    const index = HnswIndex.create(usearch, identity.dimension, shape);
    try {
      index.native.load(path);
    } catch {
      return undefined;
    }
    return index.size === manifest.size ? { index, generation: manifest.generation } : undefined;
  }
}

const SCALAR_KIND_OF: Readonly<Record<HnswScalarKind, (usearch: Usearch) => Usearch["ScalarKind"][keyof Usearch["ScalarKind"]]>> = {
  f32: (usearch) => usearch.ScalarKind.F32,
  f16: (usearch) => usearch.ScalarKind.F16,
  i8: (usearch) => usearch.ScalarKind.I8,
};
