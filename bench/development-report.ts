/**
 * One report over every development set, regenerated from the JSON that `recallgraph eval --peers
 * --json` writes (bench/results/*-eval*.json): per set, every retriever of the run (the default, each
 * view, each ablation, the peers) by that set's headline measures, one column per embedder, each
 * marked where it differs from the default beyond chance (sign test, p < 0.05).
 * `npm run docs:results` (bench/docs-results.ts) writes it to docs/results/development-sets.md.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";

const ComparisonSchema = z.object({
  difference: z.number().describe("the default's mean minus this row's"),
  wins: z.number().describe("questions where the default scores higher"),
  losses: z.number().describe("questions where this row scores higher"),
  pValue: z.number().describe("two-sided sign test"),
});

const RowSchema = z
  .object({
    name: z.string().describe("the retriever, e.g. 'recallgraph lexical' or 'BM25 (minisearch)'"),
    versusPrimary: z.record(z.string(), ComparisonSchema).optional().describe("the default against this row, per measure; absent on the default's own row"),
  })
  .catchall(z.unknown());

const ReportSchema = z
  .object({
    dataset: z.string().describe("the set's file or folder name"),
    format: z.string().optional().describe("beir, squad, beam, realmem; absent for LoCoMo"),
    split: z.string().optional().describe("BEIR: the judged split"),
    embedder: z.string().optional().describe("the embedder every row searched with"),
    store: z.string().optional().describe("sqlite or qdrant"),
    mode: z.string().describe("the requested mode, the first row"),
    peers: z.array(RowSchema).min(1).describe("every retriever of the run (written with --peers)"),
  })
  .catchall(z.unknown());

type Report = z.infer<typeof ReportSchema>;
type Row = z.infer<typeof RowSchema>;

/** A headline measure of a set: where a row holds it, and where the row holds its sign test against the default. */
interface Headline {
  head: string;
  path: readonly string[];
  comparison: readonly string[];
}

/** Recall at 5, 10 and 25, each with its sign test: the cut-offs every conversational set reports (`level`: where a row holds a second level's). */
const RECALL_AT = (prefix: string, level: readonly string[] = []): readonly Headline[] =>
  ["5", "10", "25"].map((k) => ({ head: `${prefix}R@${k}`, path: [...level, "recall", k], comparison: [...level, "versusPrimary", k] }));

/** Each format's headline measures, as its report names them. */
const HEADLINES: Record<string, readonly Headline[]> = {
  // LoCoMo's headline is categories 1-4; category 5 (adversarial: the question names the wrong speaker or
  // asks what was never said) is reported apart.
  locomo: [...RECALL_AT(""), { head: "cat. 5 R@10", path: ["reportedApart", "recall", "10"], comparison: ["reportedApart", "versusPrimary", "10"] }],
  beir: [
    { head: "nDCG@10", path: ["ndcg", "10"], comparison: ["versusPrimary", "ndcg@10"] },
    { head: "R@10", path: ["recall", "10"], comparison: ["versusPrimary", "recall@10"] },
  ],
  beam: RECALL_AT(""),
  // RealMem labels both the sessions an answer needs and the turns its memories came from.
  realmem: [...RECALL_AT("sessions "), ...RECALL_AT("turns ", ["turn"])],
};
HEADLINES.squad = HEADLINES.beir ?? [];

function formatOf(report: Report): string {
  return report.format ?? "locomo";
}

function setName(report: Report): string {
  // BEAM's folders are named by size alone ("100K").
  const dataset = formatOf(report) === "beam" ? `BEAM ${report.dataset}` : report.dataset;
  return [dataset, report.split, report.store && report.store !== "sqlite" ? `on ${report.store}` : undefined].filter(Boolean).join(", ");
}

/** The short name of an embedder as the reports write it ("use-lite-v1 (512-d)", "onnx:all-MiniLM-L6-v2-int8:q8 (384-d)"). */
function embedderName(report: Report): string {
  const spec = report.embedder ?? "unnamed embedder";
  return spec.replace(/\s*\(\d+-d\)$/, "");
}

function at(row: Row, path: readonly string[]): unknown {
  let value: unknown = row;
  for (const key of path) value = typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  return value;
}

function valueAt(row: Row, path: readonly string[]): number | undefined {
  const value = at(row, path);
  return typeof value === "number" ? value : undefined;
}

/** A row's figure, with ▼ where the default beats it beyond chance and ▲ where it beats the default. */
function cell(row: Row | undefined, headline: Headline): string {
  if (!row) return "–";
  const value = valueAt(row, headline.path);
  if (value === undefined) return "–";
  const comparison = ComparisonSchema.safeParse(at(row, headline.comparison)).data;
  const mark = comparison && comparison.pValue < 0.05 ? (comparison.difference > 0 ? " ▼" : " ▲") : "";
  return `${value.toFixed(3)}${mark}`;
}

/** A markdown table: the head, its rule, the rows. */
export function markdownTable(head: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(" | ")} |`;
  return [line(head), line(head.map(() => "---")), ...rows.map(line)].join("\n");
}

/**
 * Every report's rows in one order: the first report's, each row another report adds placed after the
 * row it follows there (a rule only one embedder's profile has sits beside the other rules, not last).
 */
function rowOrder(reports: readonly Report[]): string[] {
  const names: string[] = [];
  for (const report of reports) {
    let after = -1;
    for (const { name } of report.peers) {
      const index = names.indexOf(name);
      if (index < 0) names.splice(after + 1, 0, name);
      after = index < 0 ? after + 1 : index;
    }
  }
  return names;
}

/** One set's section: rows in the reports' order, a column per embedder and measure. */
function setSection(name: string, reports: readonly Report[]): string {
  const headlines = HEADLINES[formatOf(reports[0] as Report)] ?? [];
  const rowNames = rowOrder(reports);
  const head = ["retriever", ...reports.flatMap((report) => headlines.map((headline) => `${headline.head}, ${embedderName(report)}`))];
  const rows = rowNames.map((rowName) => [
    rowName,
    ...reports.flatMap((report) => headlines.map((headline) => cell(report.peers.find((row) => row.name === rowName), headline))),
  ]);
  return `## ${name}\n\n${markdownTable(head, rows)}\n`;
}

export function developmentReport(reports: readonly Report[]): string {
  const bySet = new Map<string, Report[]>();
  for (const report of reports) bySet.set(setName(report), [...(bySet.get(setName(report)) ?? []), report]);
  // The default embedder's column first, then the others by name.
  const order = (report: Report) => `${embedderName(report).startsWith("use-lite") ? 0 : 1}${embedderName(report)}`;
  const sections = [...bySet].map(([name, setReports]) => setSection(name, [...setReports].sort((a, b) => order(a).localeCompare(order(b)))));
  return [
    "# Development sets",
    "",
    "Generated by `npm run docs:results` from the `--peers --json` reports in bench/results (`*-eval*.json`);",
    "do not edit by hand. Each row is one retriever on the embedder's vectors, no LLM. ▼: below the default",
    "(first row) beyond chance, ▲: above it (sign test over questions, p < 0.05); unmarked: not different",
    "beyond chance. –: not run. LoCoMo's recall is over categories 1-4, its category 5 (adversarial) in a",
    "column of its own.",
    "",
    ...sections,
  ].join("\n");
}

function readReport(file: string): Report {
  const parsed = ReportSchema.safeParse(JSON.parse(readFileSync(file, "utf8")));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${file}: ${(issue?.path ?? []).join(".") || "(top level)"}: ${issue?.message ?? "not an eval report"} (written by recallgraph eval --peers --json?)`);
  }
  return parsed.data;
}

/** Every eval report in a results folder (`*-eval*.json`), in file-name order. */
export function readDevelopmentReports(folder: string): Report[] {
  return readdirSync(folder)
    .filter((file) => /-eval.*\.json$/.test(file))
    .sort()
    .map((file) => readReport(join(folder, file)));
}
