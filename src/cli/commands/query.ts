import { Option, type Command } from "commander";
import { z } from "zod";
import { ValidationError } from "../../core/errors.js";
import type { RetrievalConfigInput } from "../../graph/configuration.js";
import { PRESET_NAMES } from "../../graph/preset-names.js";
import type { RetrievalOutput } from "../../library/retrieve.js";
import { NamespaceSchema, parseIsoTimestamp } from "../../memory/entry.js";
import type { MemoryStore } from "../../stores/port.js";
import { readGlobalOptions, type GlobalOptions } from "../global-options.js";
import { addFilterOptions, filterFromOptions } from "../filter-options.js";
import { collect, parseOptionValues, positiveIntegerText } from "../option-values.js";
import { printJson, printLines, printNote } from "../terminal-output.js";
import { readStandardInput, STANDARD_INPUT } from "../standard-input.js";

/**
 * `--now` as people type it: a date (midnight UTC) or a date-time, with or without an offset (none means UTC).
 * A day or time that does not exist (2026-02-30, 24:00) is refused, not rolled over into another one.
 */
export const ReferenceTimeSchema = z
  .string()
  .refine((text) => parseIsoTimestamp(text) !== undefined, "must be an ISO 8601 date or date-time that exists, e.g. 2026-03-16 or 2026-03-16T09:00:00Z")
  .transform((text) => new Date(parseIsoTimestamp(text) ?? Number.NaN));

const QueryOptionsSchema = z.object({
  namespace: z.array(NamespaceSchema, { error: "required; repeat it to search several namespaces" }).min(1, "required; repeat it to search several namespaces"),
  now: ReferenceTimeSchema.optional(),
  asOf: ReferenceTimeSchema.optional(),
  k: positiveIntegerText(1000).optional(),
  plan: z.boolean(),
  reflect: z.boolean(),
  preset: z.enum(PRESET_NAMES).optional(),
});

export function register(program: Command): void {
  const command = program
    .command("query")
    .description("ask a question; print the memories that answer it and how they were found")
    .argument("<question>", "the question, in quotes, or - to read it from standard input")
    .option("-n, --namespace <ns>", "whose memories (required; repeat for several namespaces)", collect)
    .option("--now <iso>", 'reference time for "last week", "yesterday", 上周 ... (default: --as-of, else the clock)')
    .option("--as-of <iso>", "answer as things stood then: memories said later are left out, what was superseded by then is history")
    .option("-k, --k <n>", "how many results (default: 10)")
    .option("--no-plan", "search the question as asked: no planning into sub-queries, names and time")
    .option("--no-reflect", "no reflection: do not search again for what the results miss")
    .addOption(new Option("--preset <name>", "a named retrieval recipe (default: full)").choices(PRESET_NAMES));
  addFilterOptions(command)
    .addHelpText(
      "after",
      `
Examples:
  recallgraph query "What does ERR_2048 mean?" --namespace team
  recallgraph query "Who did Alice meet last week?" -n team --now 2026-03-16T09:00:00Z
  recallgraph query "Where does Dana live?" -n team --as-of 2025-06-01
  recallgraph query "When did Melanie run a charity race?" -n conv-26 --k 5 --json
  recallgraph query "What did we decide?" -n team --person Alice --since 2026-11-01 --source notes/launch.md
  echo "What does ERR_2048 mean?" | recallgraph query - -n team`,
    )
    .action(async (argument: string, rawOptions: unknown, command: Command) => runQuery(argument, rawOptions, readGlobalOptions(command)));
}

type QueryOptions = z.output<typeof QueryOptionsSchema>;
/** The render module, imported when a query runs so that `--help` does not load it. */
type Render = typeof import("../render-results.js");

async function runQuery(argument: string, rawOptions: unknown, globals: GlobalOptions): Promise<void> {
  const options = parseOptionValues(QueryOptionsSchema, rawOptions);
  const filter = filterFromOptions(rawOptions);
  const question = await questionOf(argument);
  const [{ openExisting }, { retrieve }, { createRetrievalGraph }, render] = await Promise.all([
    import("../open-dependencies.js"),
    import("../../library/retrieve.js"),
    import("../../graph/graph.js"),
    import("../render-results.js"),
  ]);
  const dependencies = await openExisting(globals);
  const output = await (async () => {
    await noteEmptyNamespaces(dependencies.store, options.namespace);
    const request = {
      question,
      namespace: options.namespace,
      ...(options.now ? { now: options.now } : {}),
      ...(options.asOf ? { asOf: options.asOf } : {}),
      ...(filter ? { filter } : {}),
    };
    return retrieve(createRetrievalGraph(dependencies), request, { configurable: retrievalConfig(options) });
  })().finally(() => dependencies.close());
  if (globals.json) printJson(render.outputJson(output));
  else printLines(outputLines(output, options, globals, render));
}

/** The question argument, or what standard input holds when it is `-` (trimmed: a piped line ends in a newline). */
async function questionOf(argument: string): Promise<string> {
  const fromInput = argument === STANDARD_INPUT;
  const question = fromInput ? (await readStandardInput()).trim() : argument;
  if (question.trim()) return question;
  throw new ValidationError("question", fromInput ? 'standard input is empty: pipe the question in, e.g. echo "..." | recallgraph query - -n team' : "must not be empty");
}


/** A namespace without memories is most likely a typo: say so, and name the ones the store has. */
async function noteEmptyNamespaces(store: MemoryStore, namespaces: readonly string[]): Promise<void> {
  const counts = (await store.stats()).namespaces;
  const empty = namespaces.filter((namespace) => !counts[namespace]);
  if (empty.length === 0) return;
  const known = Object.keys(counts);
  printNote(`note: no memories in namespace ${empty.map((n) => `"${n}"`).join(", ")} (${known.length ? `this store has: ${known.join(", ")}` : "the store is empty"})`);
}

function retrievalConfig(options: QueryOptions): RetrievalConfigInput {
  return {
    ...(options.preset ? { preset: options.preset } : {}),
    ...(options.k !== undefined ? { finalK: options.k } : {}),
    // Only switches turned off are passed: an explicit `true` would override a preset's own choice.
    ...(options.plan ? {} : { planning: false }),
    ...(options.reflect ? {} : { reflection: false }),
  };
}

function outputLines(output: RetrievalOutput, options: QueryOptions, globals: GlobalOptions, render: Render): string[] {
  const lines = [render.planLine(output.plan), ""];
  if (output.results.length === 0) lines.push("  no memories found");
  else lines.push(...render.resultLines(output.results, { showNamespace: options.namespace.length > 1 }));
  lines.push("", render.summaryLine(output));
  if (globals.verbose) {
    const nodes = Object.entries(output.account.nodeMs).map(([node, ms]) => `${node} ${Math.round(ms)} ms`);
    lines.push(`time per node: ${nodes.join(" · ")}`);
  }
  return lines;
}
