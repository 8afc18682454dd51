/** The environment readers every configuration uses: trimming, unset values, and errors that name the variable. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { ENV_VARIABLES, readChoice, readEnvironment, readParsed, readPositiveInteger, readRequired, readRetryCount, readVariable, type Environment } from "../../src/core/env.js";
import { ValidationError } from "../../src/core/errors.js";

/** Asserts that `read` throws a ValidationError for `field` with exactly `message`. */
function assertRefused(read: () => unknown, field: string, message: string): void {
  assert.throws(read, (error: unknown) => {
    assert.ok(error instanceof ValidationError, String(error));
    assert.equal(error.field, field);
    assert.equal(error.message, message);
    return true;
  });
}

describe("readVariable", () => {
  it("trims, and reads unset, empty and whitespace-only values as undefined", () => {
    const env: Environment = { RECALLGRAPH_DB: "  value \n", QDRANT_API_KEY: "", QDRANT_COLLECTION: " \t " };
    assert.equal(readVariable(env, "RECALLGRAPH_DB"), "value");
    assert.equal(readVariable(env, "QDRANT_URL"), undefined);
    assert.equal(readVariable(env, "QDRANT_API_KEY"), undefined);
    assert.equal(readVariable(env, "QDRANT_COLLECTION"), undefined);
  });
});

describe("readRequired", () => {
  it("returns a set value and refuses an unset one, saying why it is needed", () => {
    assert.equal(readRequired({ OPENAI_BASE_URL: " http://x " }, "OPENAI_BASE_URL", "when MODE=remote"), "http://x");
    assertRefused(() => readRequired({ OPENAI_BASE_URL: "  " }, "OPENAI_BASE_URL", "when MODE=remote"), "OPENAI_BASE_URL", "OPENAI_BASE_URL: is required when MODE=remote");
  });
});

describe("readRetryCount", () => {
  it("reads 0 and up, and refuses signs, fractions and words", () => {
    assert.equal(readRetryCount({ RECALLGRAPH_LLM_RETRIES: "0" }, "RECALLGRAPH_LLM_RETRIES"), 0);
    assert.equal(readRetryCount({ RECALLGRAPH_LLM_RETRIES: " 3 " }, "RECALLGRAPH_LLM_RETRIES"), 3);
    assert.equal(readRetryCount({}, "RECALLGRAPH_LLM_RETRIES"), undefined);
    for (const bad of ["-1", "1.5", "two"]) {
      assert.throws(() => readRetryCount({ RECALLGRAPH_LLM_RETRIES: bad }, "RECALLGRAPH_LLM_RETRIES"), (error: unknown) => error instanceof ValidationError && error.field === "RECALLGRAPH_LLM_RETRIES");
    }
  });
});

describe("readPositiveInteger", () => {
  it("reads a positive integer, and unset as undefined", () => {
    assert.equal(readPositiveInteger({ RECALLGRAPH_EMBEDDING_BATCH_SIZE: " 64 " }, "RECALLGRAPH_EMBEDDING_BATCH_SIZE"), 64);
    assert.equal(readPositiveInteger({ RECALLGRAPH_EMBEDDING_BATCH_SIZE: "064" }, "RECALLGRAPH_EMBEDDING_BATCH_SIZE"), 64);
    assert.equal(readPositiveInteger({ RECALLGRAPH_EMBEDDING_BATCH_SIZE: "" }, "RECALLGRAPH_EMBEDDING_BATCH_SIZE"), undefined);
  });

  it("refuses anything else, naming the variable and the value found", () => {
    for (const value of ["0", "-3", "2.5", "1e3", "0x10", "many"]) {
      assertRefused(() => readPositiveInteger({ RECALLGRAPH_EMBEDDING_BATCH_SIZE: value }, "RECALLGRAPH_EMBEDDING_BATCH_SIZE"), "RECALLGRAPH_EMBEDDING_BATCH_SIZE", `RECALLGRAPH_EMBEDDING_BATCH_SIZE: must be a positive integer, got "${value}"`);
    }
  });
});

describe("readChoice", () => {
  const KINDS = ["sqlite", "qdrant"] as const;

  it("matches case-insensitively and returns the choice as the list spells it", () => {
    assert.equal(readChoice({ RECALLGRAPH_STORE: " QDrant " }, "RECALLGRAPH_STORE", KINDS), "qdrant");
    assert.equal(readChoice({}, "RECALLGRAPH_STORE", KINDS), undefined);
  });

  it("refuses a value outside the list, listing the choices", () => {
    assertRefused(() => readChoice({ RECALLGRAPH_STORE: "Postgres" }, "RECALLGRAPH_STORE", KINDS), "RECALLGRAPH_STORE", 'RECALLGRAPH_STORE: must be one of sqlite, qdrant, got "Postgres"');
  });
});

describe("readParsed", () => {
  const Url = z.url({ protocol: /^https?$/, error: "must be an http(s) URL" });

  it("returns the schema's output, and unset as undefined", () => {
    assert.equal(readParsed({ OPENAI_BASE_URL: "http://127.0.0.1:8000/v1" }, "OPENAI_BASE_URL", Url), "http://127.0.0.1:8000/v1");
    assert.equal(readParsed({}, "OPENAI_BASE_URL", Url), undefined);
  });

  it("words a failure with the schema's message and the value found", () => {
    assertRefused(() => readParsed({ OPENAI_BASE_URL: "ftp://x" }, "OPENAI_BASE_URL", Url), "OPENAI_BASE_URL", 'OPENAI_BASE_URL: must be an http(s) URL, got "ftp://x"');
  });
});

describe("the environment variables", () => {
  /** Names in the first column of docs/configuration.md's table of variables (a row may name several). */
  function documented(): Set<string> {
    const readme = readFileSync(new URL("../../docs/configuration.md", import.meta.url), "utf8");
    const table = readme.slice(readme.indexOf("| variable | default | meaning |"));
    const rows = table.slice(0, table.indexOf("\n\n")).split("\n").slice(2);
    return new Set(rows.flatMap((row) => [...(row.split("|")[1] ?? "").matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((match) => match[1] ?? "")));
  }

  /** Variable names src/ reads or writes: quoted, or after `env.` (constants of the same shape are neither). */
  function namedInSource(): Set<string> {
    const root = new URL("../../src/", import.meta.url).pathname;
    const files = readdirSync(root, { recursive: true, encoding: "utf8" }).filter((file) => file.endsWith(".ts"));
    const text = files.map((file) => readFileSync(join(root, file), "utf8")).join("\n");
    return new Set([...text.matchAll(/(?:["'`]|env\.)((?:RECALLGRAPH|QDRANT|OPENAI)_[A-Z0-9_]+)\b/g)].map((match) => match[1] ?? ""));
  }

  it("are the ones docs/configuration.md's table documents, no more and no fewer", () => {
    assert.deepEqual([...documented()].sort(), [...ENV_VARIABLES].sort());
  });

  it("are the only ones the source names", () => {
    const unknown = [...namedInSource()].filter((name) => !(ENV_VARIABLES as readonly string[]).includes(name));
    assert.deepEqual(unknown, []);
  });
});

describe("readEnvironment", () => {
  it("keeps recallgraph's variables alone, each trimmed, an empty one unset", () => {
    const settings = readEnvironment({ RECALLGRAPH_DB: "  /tmp/memory.db ", QDRANT_URL: "", OPENAI_API_KEY: "   ", PATH: "/usr/bin", HOME: "/root" });
    assert.deepEqual(Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== undefined)), { RECALLGRAPH_DB: "/tmp/memory.db" });
    const kept = Object.keys(settings).filter((name) => !(ENV_VARIABLES as readonly string[]).includes(name));
    assert.deepEqual(kept, [], "no other variable is kept");
  });

  it("reads the process's environment when given none", () => {
    const before = process.env.RECALLGRAPH_EMBEDDING_MODEL;
    process.env.RECALLGRAPH_EMBEDDING_MODEL = " some-model ";
    try {
      assert.equal(readEnvironment().RECALLGRAPH_EMBEDDING_MODEL, "some-model");
    } finally {
      if (before === undefined) delete process.env.RECALLGRAPH_EMBEDDING_MODEL;
      else process.env.RECALLGRAPH_EMBEDDING_MODEL = before;
    }
  });

  it("is the one module of src/ that reads process.env, and none writes it", () => {
    const root = join(import.meta.dirname, "../../src");
    const files = readdirSync(root, { recursive: true, encoding: "utf8" }).filter((file) => file.endsWith(".ts"));
    const readers = files.filter((file) => readFileSync(join(root, file), "utf8").includes("process.env")).sort();
    // The ONNX embedder's default cache folder follows XDG_CACHE_HOME, the desktop standard's variable, not a setting of recallgraph.
    assert.deepEqual(readers, ["core/env.ts", "text/embedders/onnx.ts"]);
    const writes = files.filter((file) => /process\.env(\.\w+|\[[^\]]+\])\s*=[^=]|delete process\.env/.test(readFileSync(join(root, file), "utf8")));
    assert.deepEqual(writes, []);
  });
});
