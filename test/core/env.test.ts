/** The environment readers every configuration uses: trimming, unset values, and errors that name the variable. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import { readChoice, readParsed, readPositiveInteger, readRequired, readRetryCount, readVariable, type Environment } from "../../src/core/env.js";
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
    const env: Environment = { SET: "  value \n", EMPTY: "", BLANK: " \t " };
    assert.equal(readVariable(env, "SET"), "value");
    assert.equal(readVariable(env, "MISSING"), undefined);
    assert.equal(readVariable(env, "EMPTY"), undefined);
    assert.equal(readVariable(env, "BLANK"), undefined);
  });
});

describe("readRequired", () => {
  it("returns a set value and refuses an unset one, saying why it is needed", () => {
    assert.equal(readRequired({ URL: " http://x " }, "URL", "when MODE=remote"), "http://x");
    assertRefused(() => readRequired({ URL: "  " }, "URL", "when MODE=remote"), "URL", "URL: is required when MODE=remote");
  });
});

describe("readRetryCount", () => {
  it("reads 0 and up, and refuses signs, fractions and words", () => {
    assert.equal(readRetryCount({ RETRIES: "0" }, "RETRIES"), 0);
    assert.equal(readRetryCount({ RETRIES: " 3 " }, "RETRIES"), 3);
    assert.equal(readRetryCount({}, "RETRIES"), undefined);
    for (const bad of ["-1", "1.5", "two"]) {
      assert.throws(() => readRetryCount({ RETRIES: bad }, "RETRIES"), (error: unknown) => error instanceof ValidationError && error.field === "RETRIES");
    }
  });
});

describe("readPositiveInteger", () => {
  it("reads a positive integer, and unset as undefined", () => {
    assert.equal(readPositiveInteger({ SIZE: " 64 " }, "SIZE"), 64);
    assert.equal(readPositiveInteger({ SIZE: "064" }, "SIZE"), 64);
    assert.equal(readPositiveInteger({ SIZE: "" }, "SIZE"), undefined);
  });

  it("refuses anything else, naming the variable and the value found", () => {
    for (const value of ["0", "-3", "2.5", "1e3", "0x10", "many"]) {
      assertRefused(() => readPositiveInteger({ SIZE: value }, "SIZE"), "SIZE", `SIZE: must be a positive integer, got "${value}"`);
    }
  });
});

describe("readChoice", () => {
  const KINDS = ["sqlite", "qdrant"] as const;

  it("matches case-insensitively and returns the choice as the list spells it", () => {
    assert.equal(readChoice({ KIND: " QDrant " }, "KIND", KINDS), "qdrant");
    assert.equal(readChoice({}, "KIND", KINDS), undefined);
  });

  it("refuses a value outside the list, listing the choices", () => {
    assertRefused(() => readChoice({ KIND: "Postgres" }, "KIND", KINDS), "KIND", 'KIND: must be one of sqlite, qdrant, got "Postgres"');
  });
});

describe("readParsed", () => {
  const Url = z.url({ protocol: /^https?$/, error: "must be an http(s) URL" });

  it("returns the schema's output, and unset as undefined", () => {
    assert.equal(readParsed({ URL: "http://127.0.0.1:8000/v1" }, "URL", Url), "http://127.0.0.1:8000/v1");
    assert.equal(readParsed({}, "URL", Url), undefined);
  });

  it("words a failure with the schema's message and the value found", () => {
    assertRefused(() => readParsed({ URL: "ftp://x" }, "URL", Url), "URL", 'URL: must be an http(s) URL, got "ftp://x"');
  });
});
