import { Option, type Command } from "commander";
import { z } from "zod";
import type { EvalMode } from "../../eval/run.js";
import { readGlobalOptions, environmentWith } from "../global-options.js";
import { parseOptionValues, positiveIntegerText } from "../option-values.js";
import { printJson, printLines } from "../terminal-output.js";

// Listed here so `--help` does not load the evaluation code; the check below keeps it complete.
const MODES = ["full", "dense", "lexical", "symbolic", "union", "no-plan", "no-reflect"] as const satisfies readonly EvalMode[];
type NothingMissing<Missing extends never> = Missing;
export type EveryModeListed = NothingMissing<Exclude<EvalMode, (typeof MODES)[number]>>;

/** "a,b,c" -> ["a", "b", "c"], empty items refused. */
const commaList = z
  .string()
  .transform((text) => text.split(",").map((item) => item.trim()))
  .pipe(z.array(z.string().min(1, "must be a comma-separated list without empty items")).min(1));

const EvalCommandOptionsSchema = z.object({
  mode: z.enum(MODES).default("full"),
  peers: z.boolean().default(false),
  limit: positiveIntegerText(1_000_000).optional(),
  conversations: commaList.optional(),
  k: commaList
    .pipe(z.array(z.string().regex(/^\d+$/, "must be comma-separated positive integers, e.g. 5,10,25").transform(Number).pipe(z.number().int().min(1).max(1000))))
    .optional(),
  llm: z.boolean().default(true),
});

export function register(program: Command): void {
  program
    .command("eval")
    .description("measure evidence recall on a LoCoMo-format file (fresh temporary store; your --db is not touched)")
    .argument("<file>", "a file in LoCoMo's format, e.g. locomo10.json")
    .addOption(new Option("--mode <mode>", "retrieval mode to score (default: full)").choices(MODES))
    .option("--peers", "also run LangGraph's InMemoryStore, a BM25 library baseline and every mode, on the same entries and vectors, each compared with --mode question by question (sign test)")
    .option("--limit <n>", "ask at most n questions, in file order (quick runs)")
    .option("--conversations <ids>", "comma-separated sample ids to evaluate (default: all)")
    .option("--k <list>", "cut-offs for recall@k and hit@k (default: 5,10,25)")
    .option("--no-llm", "plan and reflect by rules even when an LLM is configured in the environment")
    .addHelpText(
      "after",
      `
Each conversation is written by the rule-based memory builder (its default settings) into its own
namespace of a fresh in-memory store; every question is asked with the conversation's last session as
"now", and the returned entries are mapped back to turns through their source turn ids. Recall@k is
LoCoMo's: the share of a question's evidence turns found in the top k. The headline is categories 1-4
(1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop); 5 (adversarial) is reported apart. Questions
whose evidence ids are missing or malformed are counted and skipped.

The offline embedder (use-lite) embeds about 30 texts per second on 2 cores: all of locomo10.json
(5,882 turns) takes several minutes. Each text is embedded once per run and shared by every retriever.

Examples:
  recallgraph eval locomo10.json --conversations conv-26 --limit 50 --embedder hash
  recallgraph eval locomo10.json --peers
  recallgraph eval locomo10.json --mode lexical --k 1,5,10 --json`,
    )
    .action(async (file: string, rawOptions: unknown, command: Command) => {
      const globals = readGlobalOptions(command);
      const options = parseOptionValues(EvalCommandOptionsSchema, rawOptions);
      const [{ runEval }, { evalJson, evalText }, { embedderConfigFromEnv }, { chatModelFromEnv }, { stageProgressBar }] = await Promise.all([
        import("../../eval/run.js"),
        import("../../eval/report.js"),
        import("../../text/embedders/create-embedder.js"),
        import("../../llm/chat-model.js"),
        import("../progress.js"),
      ]);
      const env = environmentWith(globals);
      const model = options.llm ? chatModelFromEnv(env) : undefined;
      const progress = stageProgressBar(!globals.json && process.stderr.isTTY === true);
      const run = await runEval(
        {
          file,
          mode: options.mode,
          peers: options.peers,
          embedder: embedderConfigFromEnv(env),
          ...(options.limit !== undefined ? { limit: options.limit } : {}),
          ...(options.conversations ? { conversations: options.conversations } : {}),
          ...(options.k ? { ks: options.k } : {}),
        },
        { ...(model ? { model } : {}), onProgress: (update) => progress.update(update.label ? `${update.phase}: ${update.label}` : update.phase, update.done, update.total) },
      ).finally(() => progress.stop());
      if (globals.json) printJson(evalJson(run));
      else printLines([evalText(run)]);
    });
}
