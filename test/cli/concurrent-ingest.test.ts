/**
 * Two `recallgraph ingest` processes writing two versions of one source (the same --origin) into one
 * sqlite file at the same time, round after round, beside other memories of the namespace. Each ingest
 * writes its version, then retires what its origin wrote before and its version no longer holds; done
 * at once, each retired the other's new lines. Both must exit 0 and leave exactly one version whole:
 * the one whose ingest ran last, never a mix of the two and never less.
 */
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { runCli, temporaryFolder } from "./helpers.js";

const ROUNDS = 6;
const LINES = 1_500;

/** Version `v` of the source: half its lines shared by both versions, half its own, all dated in the past. */
function version(v: "a" | "b", round: number): { ids: string[]; text: string } {
  const lines = Array.from({ length: LINES }, (_, i) => {
    const id = i < LINES / 2 ? `shared-${round}-${i}` : `${v}-${round}-${i}`;
    return { id, text: `Round ${round} line ${i} of version ${v}: the parcel went to depot ${i % 17}.`, timestamp: "2025-03-01T10:00:00Z" };
  });
  return { ids: lines.map((line) => line.id).sort(), text: lines.map((line) => JSON.stringify(line)).join("\n") };
}

describe("two ingests of one source at once", () => {
  let folder: { path: string; remove: () => Promise<void> };
  const db = () => path.join(folder.path, "memory.db");
  const cli = (...args: string[]) => runCli(["--db", db(), "--embedder", "hash", ...args], folder.path);

  before(async () => {
    folder = await temporaryFolder();
    const others = Array.from({ length: 3_000 }, (_, i) => JSON.stringify({ id: `other-${i}`, text: `Another note ${i} about the warehouse.` })).join("\n");
    await writeFile(path.join(folder.path, "others.jsonl"), others);
    const seeded = await cli("ingest", "others.jsonl", "--namespace", "depot");
    assert.equal(seeded.code, 0, seeded.stderr);
  });

  after(() => folder?.remove());

  it("leaves exactly one version whole, round after round", async () => {
    for (let round = 0; round < ROUNDS; round += 1) {
      const a = version("a", round);
      const b = version("b", round);
      await writeFile(path.join(folder.path, "a.jsonl"), a.text);
      await writeFile(path.join(folder.path, "b.jsonl"), b.text);
      // The second starts up to 0.3 s after the first, so the two overlap at a different moment each round.
      const stagger = Math.random() * 300;
      const [first, second] = await Promise.all(
        ["a.jsonl", "b.jsonl"].map(async (file, index) => {
          if (index === 1) await delay(stagger);
          return cli("ingest", file, "--namespace", "depot", "--origin", "parcels", "--json");
        }),
      );
      assert.equal(first?.code, 0, first?.stderr);
      assert.equal(second?.code, 0, second?.stderr);
      const exported = await cli("export", "--namespace", "depot");
      assert.equal(exported.code, 0, exported.stderr);
      const held = exported.stdout.trim().split("\n").map((line) => (JSON.parse(line) as { id: string }).id);
      const source = held.filter((id) => !id.startsWith("other-")).sort();
      const matches = [a.ids, b.ids].filter((ids) => JSON.stringify(ids) === JSON.stringify(source));
      assert.equal(matches.length, 1, `round ${round}: the source holds ${source.length} lines, ${source.filter((id) => id.startsWith("a-")).length} of a's own and ${source.filter((id) => id.startsWith("b-")).length} of b's`);
      assert.equal(held.length - source.length, 3_000, "the namespace's other memories are all there");
    }
  });
});
