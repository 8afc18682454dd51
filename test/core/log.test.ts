/** The structured log: quiet by default, the level from RECALLGRAPH_LOG_LEVEL, else the host's default. */
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { log, setDefaultLogLevel } from "../../src/core/log.js";

/** The JSON lines `write` puts on stderr. */
function linesOf(write: () => void): Array<Record<string, unknown>> {
  const lines: string[] = [];
  const original = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string | Uint8Array) => lines.push(String(chunk)) > 0) as typeof process.stderr.write;
  try {
    write();
  } finally {
    process.stderr.write = original;
  }
  return lines.map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe("log", () => {
  const configured = process.env.RECALLGRAPH_LOG_LEVEL;
  afterEach(() => {
    setDefaultLogLevel("warn");
    if (configured === undefined) delete process.env.RECALLGRAPH_LOG_LEVEL;
    else process.env.RECALLGRAPH_LOG_LEVEL = configured;
  });

  it("writes warnings and not info by default, one JSON object per line", () => {
    delete process.env.RECALLGRAPH_LOG_LEVEL;
    const lines = linesOf(() => {
      log.info("hidden");
      log.warn("shown", { view: "semantic" });
    });
    assert.deepEqual(lines.map(({ level, event, view }) => ({ level, event, view })), [{ level: "warn", event: "shown", view: "semantic" }]);
  });

  it("takes the host's default when the variable is unset, and the variable over it", () => {
    delete process.env.RECALLGRAPH_LOG_LEVEL;
    setDefaultLogLevel("error");
    assert.equal(linesOf(() => log.warn("quiet on a command line")).length, 0);
    process.env.RECALLGRAPH_LOG_LEVEL = " INFO ";
    assert.deepEqual(linesOf(() => log.info("asked for")).map(({ event }) => event), ["asked for"]);
  });

  it("ignores a value that names no level, rather than failing the call that logs", () => {
    process.env.RECALLGRAPH_LOG_LEVEL = "loud";
    assert.deepEqual(linesOf(() => log.warn("still warned")).map(({ event }) => event), ["still warned"]);
  });
});
