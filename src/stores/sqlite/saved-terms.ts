/**
 * A namespace's BM25 terms (namespace-terms.ts) saved beside the store file, in `<db>.terms/` as
 * saved-files.ts saves a structure, so that the next opening loads them instead of reading and
 * tokenizing every entry again (47 s at a million memories, during which FTS5 answers, seconds a
 * question). The manifest says which store state the file matches: the store file's id, the namespace,
 * its generation, and the fingerprint of the tokenizer's terms, since terms are kept as this version
 * writes them.
 */
import { z } from "zod";
import { termsFingerprint } from "./fts-terms.js";
import { NamespaceTerms } from "./namespace-terms.js";
import { intactBytes, readManifest, removeSaved, saveCurrent, savedNamespaces, type SavedFilesLock } from "./saved-files.js";

const TermsManifestSchema = z.strictObject({
  format: z.literal(1).describe("Version of this manifest's layout"),
  storeId: z.string().min(1).describe("The store file's id (meta.store_id): terms of a replaced store never match"),
  namespace: z.string().describe("The namespace the terms are of"),
  generation: z.number().int().min(0).describe("The namespace's generation the terms match (vector_generations)"),
  rows: z.number().int().min(0).describe("Rows held, checked after loading"),
  terms: z.string().regex(/^[0-9a-f]{64}$/).describe("The tokenizer's fingerprint (termsFingerprint): terms another tokenizer wrote are read again"),
  file: z.string().regex(/^[0-9a-f]+\.\d+\.terms$/).describe("The terms file, in the same folder"),
  sha256: z.string().regex(/^[0-9a-f]{64}$/).describe("The terms file's SHA-256, checked before reading it"),
});
type TermsManifest = z.output<typeof TermsManifestSchema>;

/** What saved terms must match to be loaded. */
export interface TermsIdentity {
  storeId: string;
  namespace: string;
}

/** Saves the namespace's terms as matching their generation, then makes them the current file under `lock` (saved-files.ts). */
export function saveTerms(folder: string, identity: TermsIdentity, terms: NamespaceTerms, lock: SavedFilesLock): void {
  saveCurrent(
    folder,
    identity.namespace,
    terms.generation,
    "terms",
    terms.toSnapshot(),
    ({ file, sha256 }): TermsManifest => ({
      format: 1,
      storeId: identity.storeId,
      namespace: identity.namespace,
      generation: terms.generation,
      rows: terms.size,
      terms: termsFingerprint(),
      file,
      sha256,
    }),
    lock,
  );
}

/**
 * The namespace's saved terms when their manifest matches `identity` and this tokenizer, and their
 * file is whole; undefined otherwise (none, another store's, another tokenizer's, damaged), which calls
 * for reading the entries again.
 */
export function loadTerms(folder: string, identity: TermsIdentity): NamespaceTerms | undefined {
  const manifest = matchingManifest(folder, identity);
  if (!manifest) return undefined;
  const bytes = intactBytes(folder, manifest);
  if (!bytes) return undefined;
  const terms = NamespaceTerms.fromSnapshot(bytes, manifest.generation);
  return terms.size === manifest.rows ? terms : undefined;
}

/** The generation the namespace's saved terms match, by their manifest (whoever wrote it; the file itself is not checked here); undefined without one of this store's and tokenizer's. */
export function savedTermsGeneration(folder: string, identity: TermsIdentity): number | undefined {
  return matchingManifest(folder, identity)?.generation;
}

/** The namespace's manifest when it is this store's and this tokenizer's. */
function matchingManifest(folder: string, identity: TermsIdentity): TermsManifest | undefined {
  const manifest = readManifest(folder, identity.namespace, TermsManifestSchema);
  const matches = manifest && manifest.storeId === identity.storeId && manifest.namespace === identity.namespace && manifest.terms === termsFingerprint();
  return matches ? manifest : undefined;
}

/** Removes the namespace's saved terms, under `lock`. */
export function removeTerms(folder: string, namespace: string, lock: SavedFilesLock): void {
  removeSaved(folder, namespace, lock);
}

/** The namespaces with terms saved in `folder`. */
export function namespacesWithTerms(folder: string): string[] {
  return savedNamespaces(folder, TermsManifestSchema);
}
