/** List: newest first, ties by id, stable cursor paging, filters, namespaces, and the refusals of bad options. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ListOptions, ListPage, MemoryStore } from "../../../src/stores/port.js";
import { NOW, DAY, entry, record, basis, ids, assertValidation, type ContractContext } from "./shared.js";

/** Seven entries of "ns" whose timestamps tie across both page boundaries of limit 3, written out of order. */
const SEVEN = [
  { id: "e", timestamp: NOW - 2 * DAY, persons: ["Eve"] },
  { id: "c", timestamp: NOW - DAY, persons: ["Eve"], source: { documentId: "notes.md", version: 1 } },
  { id: "g", timestamp: NOW - 3 * DAY },
  { id: "a", timestamp: NOW, source: { documentId: "notes.md", version: 1 } },
  { id: "d", timestamp: NOW - DAY, persons: ["Eve"] },
  { id: "f", timestamp: NOW - 3 * DAY, source: { documentId: "notes.md", version: 1 } },
  { id: "b", timestamp: NOW - DAY },
];
const NEWEST_FIRST = ["a", "b", "c", "d", "e", "f", "g"];

export function listTests({ freshStore }: ContractContext): void {
  describe("list", () => {
    async function seeded(): Promise<MemoryStore> {
      const store = await freshStore();
      await store.upsert("ns", SEVEN.map((input, i) => record(entry("ns", { ...input, text: `memory ${input.id}` }), basis(i))));
      await store.upsert("other", [record(entry("other", { id: "o", text: "another namespace", timestamp: NOW + DAY }), basis(0))]);
      return store;
    }

    /** Every page from the first, following nextCursor, with the ids of each. */
    async function allPages(store: MemoryStore, namespace: string, options: Omit<ListOptions, "cursor">): Promise<string[][]> {
      const pages: string[][] = [];
      let page: ListPage = await store.list(namespace, options);
      pages.push(ids(page.entries));
      while (page.nextCursor !== undefined) {
        assert.ok(pages.length < 20, "paging ends");
        page = await store.list(namespace, { ...options, cursor: page.nextCursor });
        pages.push(ids(page.entries));
      }
      return pages;
    }

    it("pages newest first (ties by id) with no duplicates or gaps; the last page has no nextCursor", async () => {
      const store = await seeded();
      assert.deepEqual(await allPages(store, "ns", { limit: 3 }), [["a", "b", "c"], ["d", "e", "f"], ["g"]]);
      const first = await store.list("ns", { limit: 3 });
      assert.equal(typeof first.nextCursor, "string");
      assert.deepEqual(first.entries[0], entry("ns", { ...SEVEN[3], text: "memory a" }), "whole entries, as written");
      assert.deepEqual(await allPages(store, "ns", { limit: 7 }), [NEWEST_FIRST], "an exactly full last page has no nextCursor");
      assert.deepEqual(await allPages(store, "ns", { limit: 1 }), NEWEST_FIRST.map((id) => [id]));
      assert.deepEqual(await allPages(store, "ns", { limit: 1000 }), [NEWEST_FIRST]);
    });

    it("a cursor keeps its place when newer entries arrive between pages", async () => {
      const store = await seeded();
      const first = await store.list("ns", { limit: 3 });
      await store.upsert("ns", [record(entry("ns", { id: "z-newest", text: "written while paging", timestamp: NOW + DAY }), basis(1))]);
      const second = await store.list("ns", { limit: 3, cursor: first.nextCursor });
      assert.deepEqual(ids(second.entries), ["d", "e", "f"]);
      assert.deepEqual(ids((await store.list("ns", { limit: 3, cursor: second.nextCursor })).entries), ["g"]);
      assert.deepEqual(ids((await store.list("ns", { limit: 3 })).entries), ["z-newest", "a", "b"]);
    });

    it("a filter narrows every page; an empty filter lists everything", async () => {
      const store = await seeded();
      assert.deepEqual(await allPages(store, "ns", { limit: 2, filter: { persons: ["eve"] } }), [["c", "d"], ["e"]]);
      assert.deepEqual(await allPages(store, "ns", { limit: 2, filter: { documentId: "notes.md" } }), [["a", "c"], ["f"]]);
      assert.deepEqual(await allPages(store, "ns", { limit: 10, filter: { timeRange: { startMs: NOW - 2 * DAY, endMs: NOW } } }), [["b", "c", "d", "e"]]);
      assert.deepEqual(await allPages(store, "ns", { limit: 10, filter: { persons: ["eve"], documentId: "notes.md" } }), [["c"]]);
      assert.deepEqual(await allPages(store, "ns", { limit: 10, filter: { persons: ["nobody"] } }), [[]]);
      assert.deepEqual(await allPages(store, "ns", { limit: 10, filter: {} }), [NEWEST_FIRST]);
      assert.deepEqual(await allPages(store, "ns", { limit: 10, filter: { persons: [], timeRange: {} } }), [NEWEST_FIRST]);
    });

    it("never lists another namespace's entries", async () => {
      const store = await seeded();
      assert.deepEqual(await allPages(store, "other", { limit: 3 }), [["o"]]);
      assert.deepEqual(await store.list("empty", { limit: 3 }), { entries: [] });
      const first = await store.list("ns", { limit: 3 });
      assert.deepEqual(ids((await store.list("other", { limit: 3, cursor: first.nextCursor })).entries), [], "a cursor is a position, not a scope");
      assert.deepEqual(ids((await store.list("other", { limit: 3, filter: { documentId: "notes.md" } })).entries), []);
    });

    it("refuses a bad limit, filter or cursor, naming the field", async () => {
      const store = await seeded();
      for (const limit of [0, -1, 1.5, 1001, Number.NaN, undefined, "3"]) {
        await assertValidation(store.list("ns", { limit } as unknown as ListOptions), "limit", `limit=${String(limit)}`);
      }
      await assertValidation(store.list("ns", undefined as unknown as ListOptions), "limit");
      await assertValidation(store.list("ns", { limit: 3, filter: { persons: "Eve" } } as unknown as ListOptions), "filter.persons");
      await assertValidation(store.list("ns", { limit: 3, filter: { documentId: "" } }), "filter.documentId");
      const encoded = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString("base64url");
      const valid = (await store.list("ns", { limit: 3 })).nextCursor ?? "";
      const badCursors: unknown[] = ["", "not a cursor", `${valid}!`, `${valid}=`, encoded({ t: "x", id: "a" }), encoded({ t: 1, id: "" }), encoded({ t: 1, id: "a", extra: 1 }), encoded([1, "a"]), 42, null];
      for (const cursor of badCursors) {
        await assertValidation(store.list("ns", { limit: 3, cursor } as unknown as ListOptions), "cursor", `cursor=${JSON.stringify(cursor)}`);
      }
    });
  });
}
