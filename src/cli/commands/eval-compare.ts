import { readFile } from "node:fs/promises";
import type { Command } from "commander";
import { z } from "zod";
import { errorMessage, ValidationError } from "../../core/errors.js";
import { readGlobalOptions } from "../global-options.js";
import { commaList, parseOptionValues } from "../option-values.js";
import { printJson, printLines, table } from "../terminal-output.js";

const EvalCompareOptionsSchema = z.object({
  categories: commaList
    .pipe(z.array(z.string().regex(/^\d+$/, "must be comma-separated category numbers, e.g. 1,2,3,4").transform(Number)))
    .optional()
    .describe("only the questions of these categories (LoCoMo's headline: 1,2,3,4)"),
});

export function register(program: Command): void {
  program
    .command("eval-compare")
    .description("compare two `eval --question-scores` files question by question: each measure's means, the questions each side wins, and a two-sided sign test")
    .argument("<first>", "a file `recallgraph eval --question-scores` wrote (the setting, embedder or store tried)")
    .argument("<second>", "another, of the same data (what it is compared with, e.g. the default)")
    .option("--categories <list>", "only the questions of these categories, e.g. 1,2,3,4 for LoCoMo's headline")
    .addHelpText(
      "after",
      `
Questions are paired by id; only those in both files are compared. "better" counts the questions the
first file scores higher on, "worse" lower; p is the two-sided exact sign test over the questions that
differ: below 0.05, a difference that chance alone would rarely give.

Example:
  recallgraph eval locomo10.json --question-scores default.jsonl
  RECALLGRAPH_EMBEDDER=onnx recallgraph eval locomo10.json --question-scores minilm.jsonl
  recallgraph eval-compare minilm.jsonl default.jsonl --categories 1,2,3,4`,
    )
    .action(async (first: string, second: string, rawOptions: unknown, command: Command) => {
      const globals = readGlobalOptions(command);
      const options = parseOptionValues(EvalCompareOptionsSchema, rawOptions);
      const { compareQuestionScores, readQuestionScores } = await import("../../eval/question-scores.js");
      const [a, b] = await Promise.all([first, second].map(async (file) => readQuestionScores(await readScores(file), file)));
      const comparison = compareQuestionScores(a ?? [], b ?? [], options.categories);
      if (globals.json) {
        printJson({ first, second, ...(options.categories ? { categories: options.categories } : {}), ...comparison });
        return;
      }
      const rows = comparison.measures.map(({ measure, first: meanFirst, second: meanSecond, difference, better, worse, pValue }) => [
        measure,
        meanFirst.toFixed(4),
        meanSecond.toFixed(4),
        `${difference >= 0 ? "+" : ""}${difference.toFixed(4)}`,
        `${better} / ${worse}`,
        pValue < 0.001 ? "< 0.001" : pValue.toFixed(3),
      ]);
      const unpaired = comparison.onlyFirst + comparison.onlySecond > 0 ? `; in one file only: ${comparison.onlyFirst} and ${comparison.onlySecond}` : "";
      printLines([
        `first: ${first}, second: ${second}${options.categories ? `, categories ${options.categories.join(", ")}` : ""}`,
        `${comparison.paired} questions compared${unpaired}`,
        "",
        ...table([["measure", "first", "second", "difference", "better / worse", "p"], ...rows], [false, true, true, true, true, true]),
      ]);
    });
}

async function readScores(file: string): Promise<string> {
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    throw new ValidationError(file, `cannot read it: ${errorMessage(error)}`);
  }
}
