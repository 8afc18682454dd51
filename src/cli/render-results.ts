/** How retrieval output reads on a terminal and in `--json`, shared by `query` and `demo`. */
import type { Plan } from "../domain/plan.js";
import type { RetrievalResult } from "../domain/results.js";
import type { RetrievalOutput } from "../library/retrieve.js";
import { formatTimestamp, outputWidth, padEnd, padStart, wrapText } from "./terminal-output.js";

/** One result as `--json` prints it: the entry's fields, `source.turnIds` always a list, and provenance. */
export function resultJson(result: RetrievalResult) {
  return {
    id: result.id,
    namespace: result.namespace,
    text: result.text,
    timestamp: result.timestamp,
    score: result.score,
    ...(result.rerankScore !== undefined ? { rerankScore: result.rerankScore } : {}),
    persons: result.persons,
    ...(result.speaker !== undefined ? { speaker: result.speaker } : {}),
    entities: result.entities,
    ...(result.location !== undefined ? { location: result.location } : {}),
    ...(result.topic !== undefined ? { topic: result.topic } : {}),
    source: { ...result.source, turnIds: result.source?.turnIds ?? [] },
    ...(result.validFrom !== undefined ? { validFrom: result.validFrom } : {}),
    ...(result.validUntil !== undefined ? { validUntil: result.validUntil } : {}),
    provenance: result.provenance,
  };
}

export function outputJson(output: RetrievalOutput) {
  return {
    results: output.results.map(resultJson),
    plan: output.plan ?? null,
    coverage: output.coverage ?? null,
    rounds: output.rounds,
    degraded: output.degraded,
    account: output.account,
  };
}

/** "semantic #1 · lexical #5": each view that found the result, at its best rank over all its lists. */
export function foundBy(result: RetrievalResult): string {
  const best = new Map<string, number>();
  for (const { view, rank } of result.provenance.ranks) best.set(view, Math.min(rank, best.get(view) ?? Infinity));
  return result.provenance.views.map((view) => `${view} #${best.get(view) ?? "?"}`).join(" · ");
}

/** "  history (superseded by m7)", "  supersedes m3": how the result stands in time, when it says anything. */
export function timeNote(result: RetrievalResult): string {
  const { history, supersededBy, supersedes, broughtInFor } = result.provenance;
  const notes = [
    ...(broughtInFor !== undefined ? [`brought in for ${broughtInFor}`] : []),
    ...(history !== undefined ? [`history (${history}${supersededBy?.length ? ` by ${supersededBy.join(",")}` : ""})`] : []),
    ...(supersedes?.length ? [`supersedes ${supersedes.join(",")}`] : []),
  ];
  return notes.length ? `  ${notes.join(" · ")}` : "";
}

export interface ResultLinesOptions {
  /** Ids to flag with ✓ (the demo's known answers). */
  expected?: ReadonlySet<string>;
  /** Show each result's namespace (when several were searched). */
  showNamespace?: boolean;
}

/**
 * A ranked list: a header line per result (rank, time, id, turns, the views that found it) and its
 * text wrapped underneath, indented under the header.
 */
export function resultLines(results: readonly RetrievalResult[], options: ResultLinesOptions = {}): string[] {
  const width = outputWidth();
  const mark = (id: string) => (options.expected ? (options.expected.has(id) ? "✓ " : "  ") : "");
  const ids = results.map((result) => (options.showNamespace ? `${result.namespace}/${result.id}` : result.id));
  const idWidth = Math.min(28, Math.max(0, ...ids.map((id) => id.length)));
  const rankWidth = String(results.length).length;
  const lines: string[] = [];
  results.forEach((result, index) => {
    const turns = result.source?.turnIds?.length ? `  turns ${result.source.turnIds.join(",")}` : "";
    const head = `${mark(result.id)}${padStart(String(index + 1), rankWidth)}  ${formatTimestamp(result.timestamp)}  ${padEnd(ids[index] ?? "", idWidth)}  ${foundBy(result)}${turns}${timeNote(result)}`;
    lines.push(`  ${head}`);
    const indent = " ".repeat(2 + mark(result.id).length + rankWidth + 2);
    lines.push(...wrapText(result.text, width, indent));
  });
  return lines;
}

/** The plan in one line: who planned, the time window, the names it will filter on, extra sub-queries. */
export function planLine(plan: Plan | undefined): string {
  if (!plan || plan.planner === "off") return "plan: off (the question is searched as asked)";
  const parts: string[] = [];
  if (plan.timeExpression) parts.push(`time "${plan.timeExpression}"${plan.timeWindow ? ` = ${windowText(plan.timeWindow)}` : ""}`);
  if (plan.persons.length) parts.push(`persons ${plan.persons.join(", ")}`);
  if (plan.locations.length) parts.push(`places ${plan.locations.join(", ")}`);
  if (plan.entities.length) parts.push(`entities ${plan.entities.join(", ")}`);
  if (plan.subQueries.length > 1) parts.push(`${plan.subQueries.length - 1} sub-quer${plan.subQueries.length === 2 ? "y" : "ies"}`);
  return `plan (${plan.planner}): ${parts.length ? parts.join(" · ") : "no names or time found; searching the question as asked"}`;
}

/** "2026-03-09 00:00 → 2026-03-16 00:00 UTC" (the end is exclusive). */
export function windowText(window: { startMs?: number | undefined; endMs?: number | undefined }): string {
  const at = (ms: number | undefined) => (ms === undefined ? "…" : formatTimestamp(new Date(ms).toISOString()));
  return `${at(window.startMs)} → ${at(window.endMs)} UTC`;
}

/** "5 results · 2 rounds · coverage 86% (rules)" plus any degraded steps. */
export function summaryLine(output: RetrievalOutput): string {
  const parts = [`${output.results.length} result${output.results.length === 1 ? "" : "s"}`];
  parts.push(`${output.rounds} reflection round${output.rounds === 1 ? "" : "s"}`);
  if (output.coverage && output.coverage.judge !== "off") parts.push(`coverage ${output.coverage.percent}% (${output.coverage.judge})`);
  if (output.account.llmCalls > 0) parts.push(`${output.account.llmCalls} LLM calls`);
  if (output.degraded.length > 0) parts.push(`degraded: ${output.degraded.map((step) => `${step.step} (${step.error})`).join("; ")}`);
  return parts.join(" · ");
}
