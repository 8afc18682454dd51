import { test } from "node:test";
import assert from "node:assert/strict";
import { membershipTest } from "../../src/stores/sqlite/filter-matches.js";

/** Whether the test answers as the set itself does: around each member, up to past the largest, and for rowids it cannot hold. */
function answersAsTheSet(rowids: ReadonlySet<number>): void {
  const test = membershipTest(rowids);
  const asked = new Set([-8, -1, 2 ** 31, 2 ** 40, Number.MAX_SAFE_INTEGER]);
  for (let rowid = 0; rowid < 200; rowid += 1) asked.add(rowid);
  for (const member of rowids) for (let near = member - 9; near <= member + 9; near += 1) asked.add(near);
  for (const rowid of asked) assert.equal(test(rowid), rowids.has(rowid), `rowid ${rowid}`);
}

test("membershipTest answers as the set does, dense (a bitmap), sparse (the set) and empty", () => {
  answersAsTheSet(new Set([1, 2, 3, 7, 8, 9, 15, 16, 17, 63, 64, 65, 300]));
  answersAsTheSet(new Set([5, 9_000_000]));
  answersAsTheSet(new Set([3, 2 ** 40]));
  answersAsTheSet(new Set());
});

test("membershipTest is built once per set: the same test for the same set", () => {
  const rowids = new Set([1, 2, 3]);
  assert.equal(membershipTest(rowids), membershipTest(rowids));
});
