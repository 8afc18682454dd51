import type { Command } from "commander";
import { fileURLToPath } from "node:url";
import { readEnvironment } from "../../core/env.js";
import type { IngestSummary } from "../../ingest/ingest-file.js";
import type { RecallGraph } from "../../library/open-recallgraph.js";
import type { RetrievalOutput } from "../../library/retrieve.js";
import { readGlobalOptions, type GlobalOptions } from "../global-options.js";
import { formatSeconds, printJson, printLines } from "../terminal-output.js";

/** The sample memory that ships with the package (see samples/README.md for what it holds). */
const SAMPLE_PATH = fileURLToPath(new URL("../../../samples/demo-memory.jsonl", import.meta.url));
const DEMO_NAMESPACE = "demo";
/** The Monday after the sample's busiest week, so "last week" / 上周 is 9-15 March 2026. */
const REFERENCE_TIME = "2026-03-16T09:00:00Z";
const RESULTS_PER_QUESTION = 5;

interface DemoQuestion {
  kind: string;
  question: string;
  /** Entries that answer it (from samples/README.md), flagged with ✓ when they come back. */
  answers: string[];
  /** The answer in words, so a reader can judge the printed memories. */
  answer: string;
}

const QUESTIONS: readonly DemoQuestion[] = [
  {
    kind: "time-scoped",
    question: "Who did Alice talk to about product XYZ in Shanghai last week?",
    answers: ["demo-17", "demo-18"],
    answer: "Wang Lei (10 and 11 March), and Zhao Min of Huadong Instruments; not the February phone call",
  },
  {
    kind: "multi-hop",
    question: "Where will the person who fixed ERR_1024 present the root cause?",
    answers: ["demo-10", "demo-24"],
    answer: "Bob Müller fixed it; he presents at Embedded World in Nuremberg on 24 March 2026",
  },
  {
    kind: "two hops",
    question: "Which city does the engineer who fixed ERR_1024 live in?",
    answers: ["demo-10", "demo-02"],
    answer: "Bob Müller fixed it (first round); reflection then asks about him by name: he lives in Berlin",
  },
  {
    kind: "exact code",
    question: "What does ERR_2048 mean?",
    answers: ["demo-13"],
    answer: "XYZ-100 Wi-Fi provisioning timed out (not ERR_1024, the battery temperature error)",
  },
  {
    kind: "Chinese",
    question: "上海出差的报销标准是什么？",
    answers: ["demo-15", "demo-14"],
    answer: "hotel up to 800 yuan a night, meals 150 yuan a day, taxis reimbursed in full",
  },
  {
    kind: "Chinese, time-scoped",
    question: "上周在上海开会的结果是什么？",
    answers: ["demo-19", "demo-23"],
    answer: "Huadong Instruments (华东仪器) ordered 500 XYZ-100 at 120 USD each, delivery in April",
  },
  {
    kind: "one fact, several memories",
    question: "How many XYZ-100 units will Huadong Instruments order?",
    answers: ["demo-17", "demo-19", "demo-39"],
    answer: "500 units, for delivery in April 2026",
  },
];

interface AnsweredQuestion extends DemoQuestion {
  /** The answering entries that came back. */
  found: string[];
  seconds: number;
  output: RetrievalOutput;
}

/** The render module, imported when the demo runs so that `--help` does not load it. */
type Render = typeof import("../render-results.js");

export function register(program: Command): void {
  program
    .command("demo")
    .description("answer seven questions over the shipped sample memory (offline, no setup)")
    .addHelpText(
      "after",
      `
The demo writes samples/demo-memory.jsonl (42 memories of a fictional team, English and Chinese)
into a temporary in-memory store (--db and --store are ignored), asks its questions as of
${REFERENCE_TIME}, and prints each answer's memories with the views that found them and their
ranks. It runs without a language model (rule-based planning and reflection), with the offline
USE-lite embedder unless --embedder says otherwise.`,
    )
    .action(async (_options: unknown, command: Command) => runDemo(readGlobalOptions(command)));
}

async function runDemo(globals: GlobalOptions): Promise<void> {
  const started = performance.now();
  const [{ openRecallGraph }, { ingestFile }, { embedderConfigFromEnv }, render] = await Promise.all([
    import("../../library/open-recallgraph.js"),
    import("../../ingest/ingest-file.js"),
    import("../../text/embedders/create-embedder.js"),
    import("../render-results.js"),
  ]);
  // No configuration means none: the environment's store, model and embedder are not consulted,
  // except that an explicit --embedder is honoured (with the variables that embedder needs).
  const embedder = globals.embedder ? embedderConfigFromEnv({ ...readEnvironment(), RECALLGRAPH_EMBEDDER: globals.embedder }) : { provider: "use-lite" as const };
  const recallgraph = await openRecallGraph({ store: { kind: "sqlite", path: ":memory:" }, embedder, model: null });
  try {
    const ingest = await ingestFile(SAMPLE_PATH, { format: "jsonl", namespace: DEMO_NAMESPACE, store: recallgraph.store, embedder: recallgraph.embedder });
    if (!globals.json) printLines(headerLines(ingest, recallgraph));
    const answered: AnsweredQuestion[] = [];
    for (const [index, item] of QUESTIONS.entries()) {
      const question = await ask(recallgraph, item);
      answered.push(question);
      if (!globals.json) printLines(questionLines(index, question, render));
    }
    const totalSeconds = (performance.now() - started) / 1000;
    if (globals.json) printJson(demoJson(recallgraph, ingest, answered, totalSeconds, render));
    else printLines(closingLines(answered, totalSeconds));
  } finally {
    await recallgraph.close();
  }
}

function headerLines(ingest: IngestSummary, recallgraph: RecallGraph): string[] {
  return [
    `recallgraph demo: ${ingest.entries} sample memories of a small team (samples/demo-memory.jsonl), English and Chinese.`,
    `Store: sqlite in memory · embedder: ${recallgraph.embedder.spec.model} · no LLM (rule-based planning and reflection).`,
    `Wrote them in ${formatSeconds(ingest.seconds)}. Asking as of Monday 16 March 2026 09:00 UTC, so "last week" is 9-15 March 2026.`,
    `✓ marks the memories that answer a question (listed in samples/README.md).`,
  ];
}

async function ask(recallgraph: RecallGraph, item: DemoQuestion): Promise<AnsweredQuestion> {
  const askedAt = performance.now();
  const output = await recallgraph.retrieve({ question: item.question, namespace: DEMO_NAMESPACE, now: REFERENCE_TIME }, { configurable: { finalK: RESULTS_PER_QUESTION } });
  const seconds = (performance.now() - askedAt) / 1000;
  const found = item.answers.filter((id) => output.results.some((result) => result.id === id));
  return { ...item, found, seconds, output };
}

function questionLines(index: number, item: AnsweredQuestion, render: Render): string[] {
  const { output, found } = item;
  return [
    "",
    `[${index + 1}/${QUESTIONS.length}] ${item.kind}: ${item.question}`,
    `  ${render.planLine(output.plan)}`,
    ...render.resultLines(output.results, { expected: new Set(item.answers) }),
    `  answer: ${item.answer}`,
    `  ${found.length} of ${item.answers.length} answering memories in the top ${RESULTS_PER_QUESTION} · ${render.summaryLine(output)} · ${formatSeconds(item.seconds)}`,
  ];
}

function demoJson(recallgraph: RecallGraph, ingest: IngestSummary, answered: readonly AnsweredQuestion[], totalSeconds: number, render: Render) {
  return {
    referenceTime: REFERENCE_TIME,
    embedder: recallgraph.embedder.spec,
    ingest,
    questions: answered.map(({ output, seconds, ...item }) => ({ ...item, seconds: Math.round(seconds * 100) / 100, ...render.outputJson(output) })),
    seconds: Math.round(totalSeconds * 100) / 100,
  };
}

function closingLines(answered: readonly AnsweredQuestion[], totalSeconds: number): string[] {
  const withAnswer = answered.filter((item) => item.found.length > 0).length;
  return [
    "",
    `${withAnswer} of ${QUESTIONS.length} questions have an answering memory in their top ${RESULTS_PER_QUESTION}; ${formatSeconds(totalSeconds)} in all.`,
    "Next: recallgraph ingest <file> --namespace me, then recallgraph query \"<question>\" --namespace me",
  ];
}
