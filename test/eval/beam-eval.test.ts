import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { cp, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { ValidationError } from "../../src/core/errors.js";
import { readBeamFolder } from "../../src/eval/beam-data.js";
import type { BeamJson } from "../../src/eval/beam-report.js";
import { oneLineError, ROOT, runCli, temporaryFolder } from "../cli/helpers.js";
import { lancedbRows } from "../support/lancedb.js";

const FIXTURE = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures/beam-tiny");
const BEAM = path.resolve(ROOT, "../shared/data/beam/100K");
const beamMissing = existsSync(path.join(BEAM, "1/chat.json")) ? false : `BEAM 100K not found at ${BEAM}`;

/** A copy of the fixture with chat.json changed, for the error cases. */
async function fixtureWithChat(change: (chat: { turns: { id: number; time_anchor?: string }[][] }[]) => void): Promise<{ path: string; remove: () => Promise<void> }> {
  const folder = await temporaryFolder();
  await cp(FIXTURE, folder.path, { recursive: true });
  const file = path.join(folder.path, "1/chat.json");
  const chat = JSON.parse(await readFile(file, "utf8"));
  change(chat);
  await writeFile(file, JSON.stringify(chat));
  return folder;
}

describe("reading BEAM conversations", () => {
  it("makes every message a turn at its batch's date, splits a runaway message, and sorts the questions", async () => {
    const [conversation, ...others] = await readBeamFolder(FIXTURE);
    assert.ok(conversation);
    assert.equal(others.length, 0);
    assert.equal(conversation.name, "1");
    const turns = conversation.dialogue.turns;
    assert.deepEqual(turns.slice(0, 5).map((turn) => [turn.turnId, turn.speaker, turn.time, turn.sessionId]), [
      ["0", "user", "2024-03-15T00:00:00.000Z", "batch_1"],
      ["1", "assistant", "2024-03-15T00:00:01.000Z", "batch_1"],
      ["2", "user", "2024-03-15T00:00:02.000Z", "batch_1"],
      ["3", "assistant", "2024-03-15T00:00:03.000Z", "batch_1"],
      ["4", "user", "2024-04-02T00:00:00.000Z", "batch_2"],
    ]);
    assert.ok(turns.slice(5).every((turn, i) => turn.turnId === `5#${i + 1}`) && turns.length > 6, "message 5 is longer than a memory may be: written in parts");
    assert.equal(conversation.splitMessages, 1);
    assert.equal(conversation.askedAt, turns[turns.length - 1]?.time, "asked after the last message");
    assert.deepEqual(conversation.questions.map((question) => [question.kind, question.evidence]), [
      ["information_extraction", ["0"]],
      ["knowledge_update", ["0", "4"]],
      ["event_ordering", ["5"]],
      ["temporal_reasoning", ["2", "3"]],
    ], "ids read from lists, lists of lists and objects of lists");
    assert.deepEqual(conversation.abstentions.map((question) => question.id), ["1:abstention:0"]);
    assert.deepEqual(conversation.skipped.map((skipped) => skipped.reason), ["no evidence", 'evidence id "99" is not a message of the conversation']);
  });

  const cases: { what: string; change: Parameters<typeof fixtureWithChat>[0]; error: RegExp }[] = [
    { what: "a first batch without a date", change: (chat) => delete chat[0]!.turns[0]![0]!.time_anchor, error: /^1\/chat\.json\.0\.time_anchor: the first batch gives no date/ },
    { what: "a date in another spelling", change: (chat) => (chat[0]!.turns[0]![0]!.time_anchor = "15/03/2024"), error: /^1\/chat\.json\.0\.time_anchor: expected a date such as "March-15-2024", got "15\/03\/2024"/ },
    { what: "a repeated message id", change: (chat) => (chat[1]!.turns[0]![0]!.id = 2), error: /^1\/chat\.json\.1: id: duplicate message id 2 \(first in 1\/chat\.json\.0\)/ },
  ];
  for (const { what, change, error } of cases) {
    it(`refuses ${what}, naming the field`, async () => {
      const folder = await fixtureWithChat(change);
      try {
        await assert.rejects(readBeamFolder(folder.path), (thrown: unknown) => thrown instanceof ValidationError && error.test(thrown.message));
      } finally {
        await folder.remove();
      }
    });
  }
});

describe("recallgraph eval DIR --format beam", () => {
  it("detects BEAM, scores recall per kind at message level, and counts the abstention answers apart", { timeout: 120_000 }, async () => {
    const folder = await temporaryFolder();
    try {
      const run = await runCli(["eval", FIXTURE, "--mode", "lexical", "--k", "1,10", "--embedder", "hash", "--json"], folder.path);
      assert.equal(run.code, 0, run.stderr);
      const json = JSON.parse(run.stdout) as BeamJson;
      assert.deepEqual({ format: json.format, conversations: json.conversations, questions: json.questions, skipped: json.skipped, askedAfter: json.askedAfter }, {
        format: "beam", conversations: 1, questions: 4, skipped: 2, askedAfter: "the whole conversation",
      });
      // By reading the texts: each question's first evidence message ranks first (the beacon in message 5's last part);
      // the knowledge update's and the sister's second messages follow within ten.
      assert.deepEqual(json.byKind, {
        information_extraction: { n: 1, recall: { "1": 1, "10": 1 } },
        knowledge_update: { n: 1, recall: { "1": 0.5, "10": 1 } },
        event_ordering: { n: 1, recall: { "1": 1, "10": 1 } },
        temporal_reasoning: { n: 1, recall: { "1": 0.5, "10": 1 } },
      });
      assert.deepEqual(json.recall, { "1": 0.75, "10": 1 });
      assert.equal(json.mrr, 1);
      // "Which orchestra does Ilse play in?" shares Ilse with three messages: lexical returns them, nothing is held back.
      assert.deepEqual(json.abstention, { n: 1, returnedNothing: 0, meanReturned: 3 });
    } finally {
      await folder.remove();
    }
  });

  it("with --peers, the conversation modes and the peers, each compared with --mode question by question", { timeout: 180_000 }, async () => {
    const folder = await temporaryFolder();
    try {
      const run = await runCli(["eval", FIXTURE, "--format", "beam", "--peers", "--embedder", "hash", "--json"], folder.path);
      assert.equal(run.code, 0, run.stderr);
      const json = JSON.parse(run.stdout) as BeamJson;
      const peers = new Map((json.peers ?? []).map((peer) => [peer.name, peer]));
      assert.deepEqual([...peers.keys()], [
        "recallgraph full", "recallgraph dense", "recallgraph lexical", "recallgraph symbolic", "recallgraph union", "recallgraph no-plan",
        "recallgraph no-reflect", "recallgraph full without context votes", "recallgraph full without the symbolic vote",
        "recallgraph full without time answers", "LangGraph InMemoryStore",
        "BM25 (minisearch)",
        ...(await lancedbRows()),
      ]);
      assert.deepEqual(peers.get("LangGraph InMemoryStore")?.recall, peers.get("recallgraph dense")?.recall, "exact cosine over the same vectors");
      // Retrievers that rank by dense similarity report the answer's best one; BM25 has none to report.
      for (const name of ["recallgraph full", "recallgraph dense", "LangGraph InMemoryStore"]) {
        const similarity = peers.get(name)?.abstention.similarity;
        assert.ok(similarity && similarity.separation >= 0 && similarity.separation <= 1, name);
        assert.ok(Math.abs(similarity.abstentionMedian) <= 1 && Math.abs(similarity.answerableMedian) <= 1, name);
      }
      assert.deepEqual(peers.get("LangGraph InMemoryStore")?.abstention.similarity, peers.get("recallgraph dense")?.abstention.similarity, "the same cosines");
      for (const name of ["recallgraph lexical", "BM25 (minisearch)"]) assert.equal(peers.get(name)?.abstention.similarity, undefined, name);
      for (const [name, peer] of peers) {
        assert.equal(peer.abstention.n, 1, name);
        if (name === "recallgraph full") continue;
        assert.deepEqual(Object.keys(peer.versusPrimary ?? {}), ["5", "10", "25"], name);
      }
      const text = await runCli(["eval", FIXTURE, "--conversations", "1", "--embedder", "hash", "--mode", "lexical"], folder.path);
      assert.equal(text.code, 0, text.stderr);
      assert.match(text.stdout, /^BEAM evidence retrieval: beam-tiny, 1 conversation\(s\), 4 questions scored \(2 skipped: 1 no evidence, 1 evidence id "99"/);
      assert.match(text.stdout, /Abstention questions \(1\)/);
      const unknown = await runCli(["eval", FIXTURE, "--conversations", "7", "--embedder", "hash"], folder.path);
      assert.equal(unknown.code, 1);
      assert.match(oneLineError(unknown), /conversations: not in the folder: 7 \(it has 1\)/);
      const foreign = await runCli(["eval", FIXTURE, "--split", "dev", "--embedder", "hash"], folder.path);
      assert.match(oneLineError(foreign), /--split: not an option of --format beam/);
    } finally {
      await folder.remove();
    }
  });
});

describe("recallgraph eval on BEAM 100K", () => {
  it("scores conversation 1 with the lexical preset, abstention questions apart", { skip: beamMissing, timeout: 300_000 }, async () => {
    const folder = await temporaryFolder();
    try {
      const run = await runCli(["eval", BEAM, "--conversations", "1", "--mode", "lexical", "--embedder", "hash", "--no-llm", "--json"], folder.path);
      assert.equal(run.code, 0, run.stderr);
      const json = JSON.parse(run.stdout) as BeamJson;
      assert.deepEqual({ dataset: json.dataset, conversations: json.conversations, questions: json.questions, skipped: json.skipped }, { dataset: "100K", conversations: 1, questions: 18, skipped: 0 });
      assert.equal(Object.keys(json.byKind).length, 9, "ten kinds, abstention apart");
      assert.equal(json.abstention.n, 2);
      // 25 of conversation 1's 188 messages drawn at random hold about 0.13 of a question's evidence.
      assert.ok(json.recall["25"]! > 0.4, `recall ${JSON.stringify(json.recall)}`);
    } finally {
      await folder.remove();
    }
  });
});
