/**
 * LanceDB's hybrid search as an evaluation peer: what it returns for the entries a run writes, round
 * after round, and that it leaves no files behind. Skipped with the reason where its native binary
 * cannot load.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { describe, it } from "node:test";
import { lancedbPeer, loadLancedb } from "../../src/eval/lancedb-peer.js";
import { createEmbedder } from "../../src/text/embedders/create-embedder.js";

const loaded = await loadLancedb();
const skip = "missing" in loaded ? loaded.missing : false;

const peerFolders = () => new Set(readdirSync(tmpdir()).filter((name) => name.startsWith("recallgraph-eval-lancedb-")));

describe("the LanceDB hybrid peer", { skip }, () => {
  it("finds entries of every round written, answers by judged ids, and removes its folder when closed", async () => {
    if ("missing" in loaded) return;
    const embedder = createEmbedder({ provider: "hash", dimension: 64 });
    const before = peerFolders();
    const peer = lancedbPeer(loaded.lancedb, embedder.embeddings);
    const [folder] = [...peerFolders()].filter((name) => !before.has(name));
    assert.ok(folder, "the peer keeps its tables in a folder of its own");
    await peer.add?.(
      new Map([
        ["a", [
          { id: "e1", text: "Caroline went to the pottery workshop on Sunday", judgedIds: ["D1:1"] },
          { id: "e2", text: "Melanie painted a sunrise over the lake", judgedIds: ["D1:2", "D1:3"] },
        ]],
        ["b", [{ id: "e3", text: "The pottery class in namespace b", judgedIds: ["X:1"] }]],
      ]),
    );
    // A second round: rows added to an indexed table must be found too.
    await peer.add?.(new Map([["a", [{ id: "e4", text: "Caroline adopted a puppy named Oscar", judgedIds: ["D2:7"] }]]]));

    const first = await peer.ask({ namespace: "a", question: "What did Melanie paint?", now: "2023-05-01T00:00:00Z" }, 2);
    assert.deepEqual(first.ranked[0], ["D1:2", "D1:3"]);
    const second = await peer.ask({ namespace: "a", question: "Which puppy did Caroline adopt?", now: "2023-05-01T00:00:00Z" }, 3);
    assert.deepEqual(second.ranked[0], ["D2:7"]);
    assert.ok(second.ranked.length <= 3);
    const pottery = await peer.ask({ namespace: "a", question: "pottery", now: "2023-05-01T00:00:00Z" }, 10);
    assert.ok(!pottery.ranked.flat().includes("X:1"), "another namespace's entry is never returned");
    assert.deepEqual(await peer.ask({ namespace: "unknown", question: "pottery", now: "2023-05-01T00:00:00Z" }, 10), { ranked: [], llmCalls: 0 });

    await peer.close?.();
    assert.ok(!existsSync(`${tmpdir()}/${folder}`), "closing removes the peer's folder");
  });
});
