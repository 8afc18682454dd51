/**
 * The errors a caller meets: every one a RecallGraphError with a code, exported from the package root
 * and from `recallgraph/errors`, and every error class of src/ either exported or caught where it is thrown.
 */
import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import * as errorsEntry from "../../src/errors.js";
import * as root from "../../src/index.js";
import { ROOT } from "../cli/helpers.js";

const { ERROR_CODES, isRecallGraphError, RecallGraphError } = errorsEntry;
const SPEC = { model: "hash-64", dimension: 64, normalized: true };

/** One instance of each exported error class, built as recallgraph builds it. */
const SAMPLES: Record<string, () => Error> = {
  RecallGraphError: () => new errorsEntry.RecallGraphError("not_configured", "no model"),
  ValidationError: () => new errorsEntry.ValidationError("entries.0.text", "must not be empty"),
  EmbedderMismatchError: () => new errorsEntry.EmbedderMismatchError({ model: "a", dimension: 3 }, { model: "b", dimension: 4 }),
  StoreError: () => new errorsEntry.StoreError("upsert", "disk full"),
  AccessDeniedError: () => new errorsEntry.AccessDeniedError("bob", "alice", "read"),
  ReadOnlyStoreError: () => new errorsEntry.ReadOnlyStoreError("delete"),
  ResponseTooLargeError: () => new errorsEntry.ResponseTooLargeError("http://127.0.0.1:6333/", 10),
  RequestTimeoutError: () => new errorsEntry.RequestTimeoutError("http://127.0.0.1:6333/", 10),
  AbortedError: () => new errorsEntry.AbortedError("retrieve", new DOMException("This operation was aborted", "AbortError")),
  DeadlineError: () => new errorsEntry.DeadlineError(100),
  EmbeddingOutputError: () => new errorsEntry.EmbeddingOutputError(SPEC, "returned no vector for input 0"),
  OnnxModelError: () => new errorsEntry.OnnxModelError("missing_folder", "model folder /nowhere not found"),
  EmbeddingWorkerError: () => new errorsEntry.EmbeddingWorkerError("crashed", "worker 0 crashed"),
};

/** Error classes of src/ that never leave the module that throws them (each says so where it is declared). */
const CAUGHT_WHERE_THROWN = new Set(["ScanError", "StaleConnectionError", "QdrantApiError"]);

/** The exports of a module that are error classes. */
function errorClasses(module: Record<string, unknown>): Map<string, Function> {
  const classes = new Map<string, Function>();
  for (const [name, value] of Object.entries(module)) {
    if (typeof value === "function" && value.prototype instanceof Error) classes.set(name, value);
  }
  return classes;
}

async function sourceFiles(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile() && entry.name.endsWith(".ts")).map((entry) => path.join(entry.parentPath, entry.name));
}

describe("the errors a caller meets", () => {
  it("are each a RecallGraphError with one of the codes, named by their class, known to the guard", () => {
    const exported = errorClasses(errorsEntry);
    assert.deepEqual([...exported.keys()].sort(), Object.keys(SAMPLES).sort(), "a sample of every exported error class, and no other");
    for (const [name, make] of Object.entries(SAMPLES)) {
      const error = make();
      assert.ok(error instanceof RecallGraphError, `${name} is a RecallGraphError`);
      assert.ok(error instanceof (exported.get(name) as new () => Error), `the sample is a ${name}`);
      assert.ok((ERROR_CODES as readonly string[]).includes(error.code), `${name}'s code ${error.code} is one of ERROR_CODES`);
      assert.equal(error.name, name);
      assert.equal(isRecallGraphError(error), true, `the guard knows ${name}`);
    }
  });

  it("are exported from the package root as from recallgraph/errors", () => {
    const fromRoot = errorClasses(root);
    for (const [name, value] of errorClasses(errorsEntry)) assert.equal(fromRoot.get(name), value, `the root exports ${name}`);
    assert.deepEqual([...fromRoot.keys()].sort(), [...errorClasses(errorsEntry).keys()].sort(), "the root exports no error class of its own");
    assert.equal(root.isRecallGraphError, isRecallGraphError);
    assert.equal(root.ERROR_CODES, ERROR_CODES);
  });

  it("are every error class declared in src/, but those caught where they are thrown", async () => {
    const declared: string[] = [];
    for (const file of await sourceFiles(path.join(ROOT, "src"))) {
      for (const match of (await readFile(file, "utf8")).matchAll(/\bclass (\w+) extends (\w*Error)\b/g)) declared.push(match[1] ?? "");
    }
    assert.ok(declared.includes("RecallGraphError") && declared.includes("ScanError"), `the scan found the classes: ${declared.join(", ")}`);
    const exported = errorClasses(errorsEntry);
    const neither = declared.filter((name) => !exported.has(name) && !CAUGHT_WHERE_THROWN.has(name));
    assert.deepEqual(neither, [], "every error class is exported, or listed here as caught where it is thrown");
  });
});
