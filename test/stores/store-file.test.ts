/**
 * A new store file's remover (src/stores/sqlite/store-file.ts): what an opening that created the file
 * made goes with it, the structures it saved beside the file included; nothing of a store that was
 * already there is touched.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { indexFolder, storeFileRemover, termsFolder } from "../../src/stores/sqlite/store-file.js";

const tempDir = mkdtempSync(join(tmpdir(), "recallgraph-store-file-"));
after(() => rmSync(tempDir, { recursive: true, force: true }));

describe("a new sqlite store file's remover", () => {
  it("removes the file, its WAL, the folders of what it saved, and the folder made for it", async () => {
    const folder = join(tempDir, "made");
    const path = join(folder, "memory.db");
    const remove = storeFileRemover(path);
    assert.ok(remove, "the file is not there yet");
    mkdirSync(folder);
    for (const file of [path, `${path}-wal`]) writeFileSync(file, "x");
    for (const saved of [indexFolder(path), termsFolder(path)]) {
      mkdirSync(saved);
      writeFileSync(join(saved, "ns.json"), "{}");
    }
    await remove();
    for (const gone of [path, `${path}-wal`, indexFolder(path), termsFolder(path), folder]) assert.equal(existsSync(gone), false, gone);
  });

  it("is not given for a store file that is already there", () => {
    const path = join(tempDir, "there.db");
    writeFileSync(path, "x");
    assert.equal(storeFileRemover(path), undefined);
    assert.equal(storeFileRemover(":memory:"), undefined);
  });
});
