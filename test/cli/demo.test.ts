import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { runCli, temporaryFolder } from "./helpers.js";

/** The demo as a new user runs it: default embedder (USE-lite, offline), no configuration at all. */
describe("recallgraph demo", () => {
  let folder = { path: "", remove: async () => {} };
  before(async () => {
    folder = await temporaryFolder();
  });
  after(() => folder.remove());

  it("answers its questions from the sample memory, offline", async () => {
    const run = await runCli(["demo"], folder.path);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stderr, "");

    // One block per question, from its "[n/7]" header to the next.
    const blocks = run.stdout.split(/\n(?=\[\d+\/\d+\] )/).slice(1);
    assert.equal(blocks.length, 7);
    const block = (kind: string) => {
      const found = blocks.find((text) => text.startsWith(`[`) && text.split("\n")[0]?.includes(`] ${kind}: `));
      assert.ok(found, `a "${kind}" question`);
      return found;
    };

    // Last week (9-15 March 2026): Alice met Wang Lei in Shanghai on 10 March, found by the time filter,
    // first or second (the flight that opened that week, demo-16, names Alice and Shanghai too).
    const lastWeek = block("time-scoped");
    assert.match(lastWeek, /plan \(rules\): time "last week" = 2026-03-09 00:00 → 2026-03-16 00:00 UTC/);
    assert.match(lastWeek, /^ {2}✓ [12] {2}2026-03-10 06:30 {2}demo-17 {2}.*symbolic #\d/m);
    assert.match(lastWeek, /Alice Chen met Wang Lei in the Shanghai office on 10 March 2026/);

    // The Chinese question finds the Chinese travel-expense policy first.
    const chinese = block("Chinese");
    assert.match(chinese, /^ {2}✓ 1 {2}2026-03-06 10:05 {2}demo-15 /m);
    assert.match(chinese, /公司新的差旅报销标准/);

    // The exact code finds its own entry, not the other error code's.
    const code = block("exact code");
    assert.match(code, /^ {2}✓ 1 {2}\S+ \S+ {2}demo-13 /m);

    // 上周 is the same calendar week: the order confirmed at the Shanghai meeting.
    const chineseLastWeek = block("Chinese, time-scoped");
    assert.match(chineseLastWeek, /time "上周" = 2026-03-09 00:00 → 2026-03-16 00:00 UTC/);
    assert.match(chineseLastWeek, /✓ [12] {2}\S+ \S+ {2}demo-19 /);

    // The engineer is described, not named: the first round finds who fixed it, reflection asks where he lives.
    const twoHops = block("two hops");
    assert.match(twoHops, /✓ [123] {2}\S+ \S+ {2}demo-02 /);
    assert.match(twoHops, /[1-9] reflection rounds? /);

    assert.match(run.stdout, /\n7 of 7 questions have an answering memory in their top 5; /);
  });
});
