import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { ValidationError } from "../../src/core/errors.js";
import { binaryJudgements, scoreRanking } from "../../src/eval/metrics.js";
import { readPersona, readRealmem } from "../../src/eval/realmem-data.js";
import { realmemJson, realmemText, type RealmemJson } from "../../src/eval/realmem-report.js";
import { realmemRounds, runRealmemEval, sessionRanking, turnRanking } from "../../src/eval/realmem-run.js";
import { oneLineError, ROOT, runCli, temporaryFolder } from "../cli/helpers.js";

const FIXTURE = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures/realmem-tiny");
const FILE_NAME = "Tiny_Person_dialogues_256k.json";
const FIXTURE_FILE = path.join(FIXTURE, FILE_NAME);
const REALMEM = path.resolve(ROOT, "../shared/data/realmem");
const realmemMissing = existsSync(path.join(REALMEM, "Kenta_Tanaka_dialogues_256k.json")) ? false : `RealMem not found at ${REALMEM}`;

// What the fixture's questions are, by reading it: q1 opens the first session (nothing before it), q2 and
// q3 are asked in the third session, q4 in the fourth (dated before the third), q5 ends the file unanswered.
const Q2 = "Tiny_Person:cccc0003:0";
const Q3 = "Tiny_Person:cccc0003:4";
const Q4 = "Tiny_Person:dddd0004:2";

interface FixtureJson {
  dialogues: { session_uuid: string; current_time: string; dialogue_turns: Record<string, unknown>[] }[];
}

/** The fixture's JSON with `change` applied, read as a persona file. */
function readChanged(change: (data: FixtureJson) => void): () => ReturnType<typeof readPersona> {
  const data: FixtureJson = JSON.parse(readFileSync(FIXTURE_FILE, "utf8"));
  change(data);
  return () => readPersona(JSON.stringify(data), FILE_NAME);
}

describe("reading RealMem", () => {
  it("starts a session that shares its date with earlier ones a minute after the last of them ends, so no two sessions' turns share a time", () => {
    const persona = readChanged((data) => {
      data.dialogues[1]!.current_time = "2025-01-06 (Monday)";
      data.dialogues[3]!.current_time = "2025-01-06";
    })();
    const times = (index: number) => persona.sessions[index]?.dialogue?.turns.map((turn) => turn.time) ?? [];
    assert.deepEqual(persona.sessions.map((session) => session.time), [
      "2025-01-06T00:00:00.000Z",
      "2025-01-06T00:01:05.000Z",
      "2025-01-20T00:00:00.000Z",
      "2025-01-06T00:02:06.000Z",
      "2025-01-25T00:00:00.000Z",
    ]);
    assert.equal(times(0).at(-1), "2025-01-06T00:00:05.000Z");
    assert.deepEqual(times(1), ["2025-01-06T00:01:05.000Z", "2025-01-06T00:01:06.000Z"]);
    assert.equal(times(3)[0], "2025-01-06T00:02:06.000Z");
    assert.equal(persona.questions.find((question) => question.id === Q4)?.askedAt, "2025-01-06T00:02:06.000Z", "asked as its session starts");
    assert.equal(persona.datesOutOfOrder, 1);
  });

  it("makes every message a turn UUID:N at its session's date, and takes each question's evidence from before it", async () => {
    const [persona, ...others] = await readRealmem(FIXTURE);
    assert.ok(persona);
    assert.equal(others.length, 0);
    assert.equal(persona.name, "Tiny_Person");
    assert.deepEqual(persona.sessions.map((session) => [session.uuid, session.time]), [
      ["aaaa0001", "2025-01-06T00:00:00.000Z"],
      ["bbbb0002", "2025-01-13T00:00:00.000Z"],
      ["cccc0003", "2025-01-20T00:00:00.000Z"],
      ["dddd0004", "2025-01-18T00:00:00.000Z"],
      ["eeee0005", "2025-01-25T00:00:00.000Z"],
    ], "file order, not date order");
    assert.equal(persona.datesOutOfOrder, 1);
    assert.deepEqual(persona.sessions[1]?.dialogue?.turns.map((turn) => [turn.turnId, turn.speaker, turn.time]), [
      ["bbbb0002:0", "User", "2025-01-13T00:00:00.000Z"],
      ["bbbb0002:1", "Assistant", "2025-01-13T00:00:01.000Z"],
    ]);
    const questions = persona.questions.map(({ id, kind, askedAt, sessions, turns, tally, skipped }) => ({ id, kind, askedAt, sessions, turns, tally, skipped }));
    const none = { sessionsNotBefore: 0, memories: 0, memoriesUnmatched: 0, memoriesWithoutTurn: 0 };
    assert.deepEqual(questions, [
      { id: "Tiny_Person:aaaa0001:4", kind: "Implicit Preference", askedAt: "2025-01-06T00:00:00.000Z", sessions: [], turns: [], tally: none, skipped: undefined },
      // source_turn 1 counted from 1: the kayak is dialogue_turns[0].
      { id: Q2, kind: "Dynamic Incremental", askedAt: "2025-01-20T00:00:00.000Z", sessions: ["aaaa0001"], turns: ["aaaa0001:0"], tally: { ...none, memories: 1 }, skipped: undefined },
      // The asking session itself is left out; source_turn 0 and 2 counted from 0; the canoe matches no extracted memory.
      {
        id: Q3, kind: "Dynamic Updating", askedAt: "2025-01-20T00:00:00.000Z", sessions: ["bbbb0002", "aaaa0001"], turns: ["bbbb0002:0", "aaaa0001:2"],
        tally: { sessionsNotBefore: 1, memories: 3, memoriesUnmatched: 1, memoriesWithoutTurn: 0 }, skipped: undefined,
      },
      // "User likes water sports." has no source turn.
      { id: Q4, kind: "Dynamic Incremental", askedAt: "2025-01-18T00:00:00.000Z", sessions: ["aaaa0001"], turns: ["aaaa0001:0"], tally: { ...none, memories: 2, memoriesWithoutTurn: 1 }, skipped: undefined },
      { id: "Tiny_Person:eeee0005:2", kind: "Dynamic Incremental", askedAt: "2025-01-25T00:00:00.000Z", sessions: [], turns: [], tally: none, skipped: "no answer turn after it" },
    ]);
  });

  const cases: { what: string; change: Parameters<typeof readChanged>[0]; error: RegExp }[] = [
    { what: "a speaker left empty", change: (data) => (data.dialogues[0]!.dialogue_turns[2]!.speaker = ""), error: /^Tiny_Person_dialogues_256k\.json\.dialogues\.0\.dialogue_turns\.2\.speaker: must not be empty/ },
    { what: "a date that is not one", change: (data) => (data.dialogues[1]!.current_time = "next week"), error: /^Tiny_Person_dialogues_256k\.json\.dialogues\.1\.current_time: expected a date such as "2025-12-28 \(Sunday\)", got "next week"/ },
    { what: "a repeated session id", change: (data) => (data.dialogues[2]!.session_uuid = "aaaa0001"), error: /^Tiny_Person_dialogues_256k\.json\.dialogues\.2\.session_uuid: duplicate session_uuid aaaa0001 \(first at dialogues\.0\)/ },
    { what: "evidence sessions not in a list", change: (data) => (data.dialogues[2]!.dialogue_turns[1]!.memory_session_uuids = "aaaa0001"), error: /^Tiny_Person_dialogues_256k\.json\.dialogues\.2\.dialogue_turns\.1\.memory_session_uuids: / },
  ];
  for (const { what, change, error } of cases) {
    it(`refuses ${what}, naming the field`, () => {
      assert.throws(readChanged(change), (thrown: unknown) => thrown instanceof ValidationError && error.test(thrown.message));
    });
  }

  it("skips a question whose evidence names a session the file lacks, with the reason", () => {
    const persona = readChanged((data) => (data.dialogues[3]!.dialogue_turns[3]!.memory_session_uuids = ["ffff9999"]))();
    assert.equal(persona.questions.find((question) => question.id === Q4)?.skipped, 'evidence session "ffff9999" is not a session of the file');
  });
});

describe("RealMem: only what was said before a question", () => {
  it("writes, before each asking session, exactly the sessions since the previous one, never the asking session or a later one", async () => {
    const [persona] = await readRealmem(FIXTURE);
    assert.ok(persona);
    const asked = persona.questions.filter((question) => !question.skipped && question.sessions.length > 0);
    const rounds = realmemRounds([persona], asked);
    assert.deepEqual(rounds.map((round) => [round.sessions.map((session) => session.uuid), round.questions.map((question) => question.id)]), [
      [["aaaa0001", "bbbb0002"], [Q2, Q3]],
      [["cccc0003"], [Q4]],
    ]);
    const written: number[] = [];
    for (const round of rounds) {
      written.push(...round.sessions.map((session) => session.index));
      for (const question of round.questions) assert.deepEqual(written, [...Array(question.sessionIndex).keys()], `${question.id} sees the sessions before its own, only`);
    }
  });

  it("scores recall at session and turn level by hand: the asking session and a later one, which repeat the question, are not found", { timeout: 60_000 }, async () => {
    const run = await runRealmemEval({ path: FIXTURE_FILE, mode: "lexical", ks: [1, 10], embedder: { provider: "hash" } });
    const json = realmemJson(run);
    // q2 "Where is my tangerine kayak kept?" is repeated word for word in its own session (after it) and in
    // the last one: with them in the store either would rank first. Before it, only the first session
    // speaks of the kayak, so it ranks first (recall@1 1). q3 needs both sessions before it, one each for
    // the cello and the greyhound: one at rank 1 (0.5), both within 10. q4 "What colour did I paint my
    // kayak?" shares two words with the first session's kayak turn, one with the third's.
    const primary = run.retrievers[0];
    assert.deepEqual(primary?.results.map((result) => [result.questionId, result.recall[1]]), [[Q2, 1], [Q3, 0.5], [Q4, 1]]);
    assert.deepEqual(json.byKind, { "Dynamic Incremental": { n: 2, recall: { "1": 1, "10": 1 } }, "Dynamic Updating": { n: 1, recall: { "1": 0.5, "10": 1 } } });
    assert.deepEqual(json.recall, { "1": 0.8333, "10": 1 });
    // Turn level: the kayak turn is the first session's best match for q2 and q4; q3's two evidence turns
    // (cello, greyhound) are its only matches, so both are within 10, one first.
    assert.deepEqual({ n: json.turn.n, recall: json.turn.recall, byKind: json.turn.byKind }, {
      n: 3,
      recall: { "1": 0.8333, "10": 1 },
      byKind: { "Dynamic Incremental": { n: 2, recall: { "1": 1, "10": 1 } }, "Dynamic Updating": { n: 1, recall: { "1": 0.5, "10": 1 } } },
    });
    assert.deepEqual(
      { questions: json.questions, withoutEvidence: json.withoutEvidence, skipped: json.skipped, sessionsWritten: json.sessionsWritten, entries: json.entries, datesOutOfOrder: json.datesOutOfOrder },
      { questions: 3, withoutEvidence: 1, skipped: 1, sessionsWritten: 3, entries: 14, datesOutOfOrder: 1 },
    );
    assert.deepEqual(json.evidence, { sessionsNotBefore: 1, memories: 6, memoriesUnmatched: 1, memoriesWithoutTurn: 1 });
  });
});

describe("RealMem by persona", () => {
  it("scores each persona's questions apart, and the requested mode against each row within each persona", { timeout: 120_000 }, async () => {
    const folder = await temporaryFolder();
    try {
      // Two personas in one folder: the fixture, and a copy whose first session says nothing of the kayak.
      const data: FixtureJson & { _metadata: { person_name: string } } = JSON.parse(readFileSync(FIXTURE_FILE, "utf8"));
      writeFileSync(path.join(folder.path, FILE_NAME), JSON.stringify(data));
      data._metadata.person_name = "Other_Person";
      const kayakTurn = data.dialogues[0]?.dialogue_turns[0];
      assert.ok(kayakTurn);
      kayakTurn.content = "My bicycle is green and lives in the hallway.";
      writeFileSync(path.join(folder.path, "Other_Person_dialogues_256k.json"), JSON.stringify(data));

      const run = await runRealmemEval({ path: folder.path, mode: "lexical", ks: [1, 10], embedder: { provider: "hash" }, peers: true });
      const json = realmemJson(run);
      // Tiny_Person scores as alone (above). Other_Person's q2 and q4 ask about the kayak, which nothing before
      // them names: neither is found; q3 (cello, greyhound) is found as in the fixture.
      assert.deepEqual(json.byPersona, {
        Other_Person: { n: 3, recall: { "1": 0.1667, "10": 0.3333 } },
        Tiny_Person: { n: 3, recall: { "1": 0.8333, "10": 1 } },
      });
      assert.deepEqual(json.recall, { "1": 0.5, "10": 0.6667 });
      for (const peer of json.peers?.slice(1) ?? []) {
        const byPersona = Object.values(peer.versusPrimaryByPersona ?? {});
        assert.equal(byPersona.length, 2, peer.name);
        for (const k of ["1", "10"]) {
          const summed = byPersona.reduce((sum, comparison) => ({ wins: sum.wins + (comparison[k]?.wins ?? 0), losses: sum.losses + (comparison[k]?.losses ?? 0) }), { wins: 0, losses: 0 });
          assert.deepEqual(summed, { wins: peer.versusPrimary?.[k]?.wins, losses: peer.versusPrimary?.[k]?.losses }, `${peer.name} at ${k}: the personas' counts add up to the whole`);
        }
      }
      const bm25 = json.peers?.find((peer) => peer.name.startsWith("BM25"));
      assert.deepEqual(bm25?.versusPrimaryByPersona?.["Tiny_Person"]?.["10"], { difference: 0, wins: 0, losses: 0, pValue: 1 });
      assert.match(realmemText(run), /recallgraph lexical against each row within each persona, session recall@10: questions better\/worse[^\n]*\nagainst +Other_Person +Tiny_Person/);
    } finally {
      await folder.remove();
    }
  });
});

describe("RealMem selection", () => {
  it("refuses a persona the data lacks, naming the option", async () => {
    await assert.rejects(
      runRealmemEval({ path: FIXTURE, personas: ["Nobody"], embedder: { provider: "hash" } }),
      (thrown: unknown) => thrown instanceof ValidationError && /^personas: not in .*realmem-tiny: Nobody \(it has Tiny_Person\)/.test(thrown.message),
    );
  });
});

describe("RealMem rankings", () => {
  it("ranks a session where its first entry ranks and a turn where its best part ranks (firstMentions)", () => {
    const ranked = [["aaaa0001:1"], ["aaaa0001:0"], ["cccc0003:2"], ["bbbb0002:0"], ["bbbb0002:0"]];
    const question = { id: "q", namespace: "n", question: "?", now: "2025-01-20T00:00:00.000Z", judgements: new Map<string, number>() };
    assert.deepEqual(sessionRanking(ranked, question), [["aaaa0001"], ["cccc0003"], ["bbbb0002"]]);
    assert.deepEqual(turnRanking(ranked, question), [["aaaa0001:1"], ["aaaa0001:0"], ["cccc0003:2"], ["bbbb0002:0"]]);
    const sessions = scoreRanking(sessionRanking(ranked, question), binaryJudgements(["bbbb0002", "aaaa0001"]), [1, 2, 3]);
    assert.deepEqual(sessions.recall, { 1: 0.5, 2: 0.5, 3: 1 });
    const turns = scoreRanking(turnRanking(ranked, question), binaryJudgements(["aaaa0001:0", "bbbb0002:0"]), [1, 2, 4]);
    assert.deepEqual(turns.recall, { 1: 0, 2: 0.5, 4: 1 });
  });
});

describe("recallgraph eval --format realmem", () => {
  it("detects a folder of persona files and a persona file, and refuses another format's option", { timeout: 120_000 }, async () => {
    const folder = await temporaryFolder();
    try {
      const fromFolder = await runCli(["eval", FIXTURE, "--mode", "lexical", "--k", "1,10", "--embedder", "hash", "--no-llm", "--json"], folder.path);
      assert.equal(fromFolder.code, 0, fromFolder.stderr);
      const json = JSON.parse(fromFolder.stdout) as RealmemJson;
      assert.deepEqual({ format: json.format, dataset: json.dataset, personas: json.personas, recall: json.recall }, { format: "realmem", dataset: "realmem-tiny", personas: 1, recall: { "1": 0.8333, "10": 1 } });
      const fromFile = await runCli(["eval", FIXTURE_FILE, "--conversations", "Tiny_Person", "--mode", "lexical", "--embedder", "hash", "--no-llm"], folder.path);
      assert.equal(fromFile.code, 0, fromFile.stderr);
      assert.match(fromFile.stdout, /^RealMem evidence retrieval: Tiny_Person_dialogues_256k\.json, 1 persona\(s\), 3 questions scored \(1 skipped: 1 no answer turn after it\), 1 without an evidence session before them/);
      const foreign = await runCli(["eval", FIXTURE, "--split", "dev", "--embedder", "hash"], folder.path);
      assert.match(oneLineError(foreign), /--split: not an option of --format realmem/);
    } finally {
      await folder.remove();
    }
  });
});

describe("RealMem's five personas", () => {
  it("read as the report says: every question answerable, one evidence session not before its question, a sixth of the memories without a turn", { skip: realmemMissing }, async () => {
    const personas = await readRealmem(REALMEM);
    const questions = personas.flatMap((persona) => persona.questions);
    const sum = (pick: (tally: (typeof questions)[number]["tally"]) => number) => questions.reduce((total, question) => total + pick(question.tally), 0);
    assert.equal(personas.length, 5);
    assert.equal(questions.length, 728);
    assert.equal(questions.filter((question) => question.skipped || question.sessions.length === 0).length, 0);
    assert.deepEqual(
      { notBefore: sum((t) => t.sessionsNotBefore), memories: sum((t) => t.memories), unmatched: sum((t) => t.memoriesUnmatched), withoutTurn: sum((t) => t.memoriesWithoutTurn) },
      { notBefore: 1, memories: 1621, unmatched: 0, withoutTurn: 168 },
    );
    assert.deepEqual(personas.map((persona) => persona.datesOutOfOrder), [0, 0, 0, 0, 46]);
  });
});
