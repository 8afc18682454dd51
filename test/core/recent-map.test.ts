import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { RecentMap } from "../../src/core/recent-map.js";

describe("RecentMap", () => {
  it("holds at most its limit, dropping the least recently used key first", () => {
    const map = new RecentMap<string, number>(2);
    map.set("a", 1);
    map.set("b", 2);
    assert.equal(map.get("a"), 1, "a read counts as a use");
    map.set("c", 3);
    assert.equal(map.size, 2);
    assert.equal(map.get("b"), undefined, "b was the least recently used");
    assert.equal(map.get("a"), 1);
    assert.equal(map.get("c"), 3);
  });

  it("rewrites a key in place, and keeps nothing with a limit of 0", () => {
    const map = new RecentMap<string, number>(2);
    map.set("a", 1);
    map.set("a", 2);
    assert.equal(map.size, 1);
    assert.equal(map.get("a"), 2);
    const none = new RecentMap<string, number>(0);
    none.set("a", 1);
    assert.equal(none.get("a"), undefined);
    map.set("b", 3);
    map.delete("a");
    assert.equal(map.get("a"), undefined, "a deleted key is gone");
    assert.equal(map.size, 1);
    map.clear();
    assert.equal(map.size, 0);
  });
});
