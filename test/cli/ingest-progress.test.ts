/** The figures the ingest progress bar draws (the drawing itself happens only on a terminal). */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { describeFigures, formatDuration, progressFigures, RATE_AFTER_ITEMS, RATE_AFTER_MS } from "../../src/cli/progress.js";

describe("progress figures", () => {
  it("no rate or time left before a second and a few items have passed", () => {
    // The first embedding batch lands within milliseconds: 64 items in 1 ms once read as 64000/s.
    for (const [done, elapsedMs] of [
      [64, 1],
      [1, 1],
      [500, RATE_AFTER_MS - 1],
      [RATE_AFTER_ITEMS - 1, 5000],
      [0, 60_000],
    ] as const) {
      const figures = progressFigures({ done, total: 5882, elapsedMs });
      assert.equal(figures.perSecond, undefined, `${done} items after ${elapsedMs} ms`);
      assert.equal(figures.secondsLeft, undefined);
      assert.equal(describeFigures(figures), `${formatDuration(elapsedMs / 1000)} elapsed`);
    }
  });

  it("once known: the rate since the start and the time left at it", () => {
    const figures = progressFigures({ done: 1000, total: 5000, elapsedMs: 4000 });
    assert.equal(figures.perSecond, 250);
    assert.equal(figures.secondsLeft, 16);
    assert.equal(describeFigures(figures), "4 s elapsed, 16 s left, 250/s");
  });

  it("elapsed is the whole job's; the rate is taken from the stage's first report on", () => {
    // Setup and building took 100 s; writing first reported 64 entries then, and 364 three seconds later.
    const rateFrom = { done: 64, elapsedMs: 100_000 };
    const figures = progressFigures({ done: 364, total: 964, elapsedMs: 103_000, rateFrom });
    assert.equal(figures.elapsedSeconds, 103);
    assert.equal(figures.perSecond, 100);
    assert.equal(figures.secondsLeft, 6);
    assert.equal(describeFigures(figures), "1 m 43 s elapsed, 6 s left, 100/s");
    assert.equal(progressFigures({ done: 364, total: 964, elapsedMs: 100_500, rateFrom }).perSecond, undefined, "a stage just begun has no rate yet");
    assert.equal(progressFigures({ done: 65, total: 964, elapsedMs: 110_000, rateFrom }).perSecond, undefined, "nor one item after its first report");
  });

  it("all done leaves nothing left; slow rates keep a decimal", () => {
    assert.equal(progressFigures({ done: 10, total: 10, elapsedMs: 2000 }).secondsLeft, 0);
    assert.equal(describeFigures(progressFigures({ done: 5, total: 10, elapsedMs: 2000 })), "2 s elapsed, 2 s left, 2.5/s");
  });

  it("durations in the two largest units", () => {
    assert.equal(formatDuration(0), "0 s");
    assert.equal(formatDuration(59.4), "59 s");
    assert.equal(formatDuration(245), "4 m 05 s");
    assert.equal(formatDuration(7380), "2 h 03 m");
  });
});
