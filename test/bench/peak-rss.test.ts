/** The benchmarks' peak memory: a child reads its own with the same code as the parent (peak-rss.ts). */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { describe, it } from "node:test";
import { ownPeakRssMb, PEAK_RSS_IMPORT, peakRssMb } from "../../bench/peak-rss.js";

describe("peak RSS", () => {
  it("is printed by a plain node child through the import, as the child's own", () => {
    const child = spawnSync(process.execPath, ["--import", PEAK_RSS_IMPORT, "-e", "globalThis.held = Buffer.alloc(64 * 1024 * 1024, 1)"], { encoding: "utf8" });
    assert.equal(child.status, 0, child.stderr);
    const mb = peakRssMb(child.stderr);
    assert.ok(Number.isFinite(mb), `the child printed no peak: ${JSON.stringify(child.stderr)}`);
    assert.ok(mb >= 64, `the child held 64 MB, its peak reads ${mb} MB`);
  });

  it("reads this process's own", () => {
    assert.ok(ownPeakRssMb() > 0);
  });
});
