import assert from "node:assert/strict";
import { mkdtemp, mkdir, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { chunkDocument } from "../../src/ingest/chunker.js";
import { findDocuments, ingestDocuments } from "../../src/ingest/documents.js";
import { RecordingStore, testEmbedder } from "./helpers.js";

const guide = `---
title: ignored front matter
---
# Guide

Welcome to the guide.

## Install

### Linux

Run \`./install.sh\` as root. It needs 2 GB of disk.

\`\`\`sh
# not a heading: a shell comment

./install.sh --prefix /opt/app
\`\`\`

### Windows

Run the MSI installer. Error ERR_1024 means the disk is full.

Usage
-----

Start the app with \`app start\`.
`;

describe("document chunker", () => {
  it("keeps each chunk's heading path, ignores # inside code fences and reads setext headings", () => {
    const chunks = chunkDocument(guide);
    assert.deepEqual(
      chunks.map((chunk) => chunk.headingPath.join(" > ")),
      ["Guide", "Guide > Install > Linux", "Guide > Install > Windows", "Guide > Usage"],
    );
    const linux = chunks[1]?.body ?? "";
    assert.match(linux, /# not a heading: a shell comment\n\n\.\/install\.sh --prefix/);
    assert.doesNotMatch(chunks.map((chunk) => chunk.body).join("\n"), /front matter/);
  });

  it("packs paragraphs up to the target size and splits only oversized ones, at sentences", () => {
    const paragraph = (n: number) => `Paragraph ${n} has a few words in it. `.repeat(6).trim();
    const text = Array.from({ length: 10 }, (_, i) => paragraph(i)).join("\n\n");
    const chunks = chunkDocument(text, { format: "text", maxChars: 800 });
    assert.ok(chunks.length >= 3 && chunks.length <= 4, `chunks: ${chunks.length}`);
    for (const chunk of chunks) {
      assert.ok(chunk.body.length <= 800, `chunk of ${chunk.body.length}`);
      assert.match(chunk.body, /^Paragraph \d+ has/, "chunks start at a paragraph boundary");
    }
    const long = "This sentence is long enough to matter. ".repeat(60);
    const pieces = chunkDocument(long, { format: "text", maxChars: 800 });
    assert.ok(pieces.length >= 3);
    for (const piece of pieces) {
      assert.ok(piece.body.length <= 800);
      assert.match(piece.body, /\.$/, "split at a sentence end");
    }
  });
});

describe("document ingest", () => {
  let folder = "";
  before(async () => {
    folder = await mkdtemp(path.join(tmpdir(), "recallgraph-docs-"));
    await mkdir(path.join(folder, "guides", ".hidden"), { recursive: true });
    await writeFile(path.join(folder, "guides", "guide.md"), guide);
    await writeFile(path.join(folder, "notes.txt"), "Plain notes.\n\nSecond paragraph about XYZ-100.");
    await writeFile(path.join(folder, "guides", ".hidden", "secret.md"), "# Hidden");
    await writeFile(path.join(folder, "image.png"), "not a document");
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it("finds .md/.markdown/.txt files recursively, ids relative to the folder", async () => {
    const files = await findDocuments(folder);
    assert.deepEqual(files.map((file) => file.documentId), ["guides/guide.md", "notes.txt"]);
    await assert.rejects(findDocuments(path.join(folder, "image.png")), /not a document/);
    await assert.rejects(findDocuments(path.join(folder, "missing")), /no such file or folder/);
  });

  it("follows symbolic links: a document replaced by a link to its new place stays, a link back up the tree is walked once, a link to nothing is refused", async () => {
    const linked = await mkdtemp(path.join(tmpdir(), "recallgraph-links-"));
    const elsewhere = await mkdtemp(path.join(tmpdir(), "recallgraph-elsewhere-"));
    try {
      await mkdir(path.join(linked, "notes"));
      await writeFile(path.join(linked, "notes", "plan.md"), "# Plan\n\nShip XYZ-100 in March.");
      const store = new RecordingStore();
      const first = await ingestDocuments(store, testEmbedder, "kb", linked, { origin: linked });
      assert.equal(first.entries, 1);
      // The document moves elsewhere and a link takes its place.
      await writeFile(path.join(elsewhere, "plan.md"), "# Plan\n\nShip XYZ-100 in March.");
      await rm(path.join(linked, "notes", "plan.md"));
      await symlink(path.join(elsewhere, "plan.md"), path.join(linked, "notes", "plan.md"));
      await symlink(linked, path.join(linked, "notes", "loop"));
      const second = await ingestDocuments(store, testEmbedder, "kb", linked, { origin: linked });
      assert.equal(second.retired, 0, "nothing retired");
      assert.deepEqual(second.documents.map((doc) => [doc.documentId, doc.status]), [["notes/plan.md", "unchanged"]]);
      assert.equal(store.all("kb").length, 1);
      await symlink(path.join(elsewhere, "gone.md"), path.join(linked, "dangling.md"));
      await assert.rejects(ingestDocuments(store, testEmbedder, "kb", linked, { origin: linked }), /dangling\.md is a symbolic link to nothing/);
      assert.equal(store.all("kb").length, 1, "a refused ingest retires nothing");
    } finally {
      await rm(linked, { recursive: true, force: true });
      await rm(elsewhere, { recursive: true, force: true });
    }
  });

  it("writes chunks with heading path, document id and version; unchanged re-ingest is a no-op", async () => {
    const store = new RecordingStore();
    const first = await ingestDocuments(store, testEmbedder, "kb", folder);
    assert.equal(first.entries, 5);
    const entries = store.all("kb");
    const linux = entries.find((entry) => entry.source?.headingPath?.join(" > ") === "Guide > Install > Linux");
    assert.ok(linux);
    assert.match(linux.text, /^Guide > Install > Linux\n\nRun/);
    assert.deepEqual(linux.source, { documentId: "guides/guide.md", version: 1, headingPath: ["Guide", "Install", "Linux"] });
    assert.ok(linux.keywords.includes("Linux"));
    assert.equal(linux.topic, "Guide");
    const windows = entries.find((entry) => entry.source?.headingPath?.at(-1) === "Windows");
    assert.ok(windows?.entities.includes("ERR_1024"));

    const upsertsBefore = store.upserts;
    const second = await ingestDocuments(store, testEmbedder, "kb", folder);
    assert.equal(second.entries, 0);
    assert.deepEqual(second.documents.map((doc) => doc.status), ["unchanged", "unchanged"]);
    assert.equal(store.upserts, upsertsBefore, "nothing written");
    assert.equal(store.all("kb").length, 5);
  });

  it("a changed document gets version + 1 and its old chunks are retired", async () => {
    const store = new RecordingStore();
    await ingestDocuments(store, testEmbedder, "kb", folder);
    const oldIds = new Set(await store.documentEntryIds("kb", "guides/guide.md"));
    await writeFile(path.join(folder, "guides", "guide.md"), guide.replace("2 GB", "4 GB"));
    const result = await ingestDocuments(store, testEmbedder, "kb", folder);
    const changed = result.documents.find((doc) => doc.documentId === "guides/guide.md");
    assert.equal(changed?.status, "changed");
    assert.equal(changed?.version, 2);
    assert.equal(result.retired, 4);
    const guideEntries = store.all("kb").filter((entry) => entry.source?.documentId === "guides/guide.md");
    assert.equal(guideEntries.length, 4);
    assert.ok(guideEntries.every((entry) => entry.source?.version === 2 && !oldIds.has(entry.id)));
    assert.ok(!store.all("kb").some((entry) => entry.text.includes("2 GB")), "no stale chunk left");
    assert.equal(result.documents.find((doc) => doc.documentId === "notes.txt")?.status, "unchanged");
  });
});
