import { readFileSync } from "node:fs";
import { Command } from "commander";
import { z } from "zod";
import type { CommandModule } from "./command.js";
import { EXIT_INTERNAL_ERROR, EXIT_OK, exitCodeOf, reportError, type ExitCode } from "./exit.js";
import { setDefaultLogLevel } from "../core/log.js";
import { addGlobalOptions } from "./global-options.js";
import { handleStdoutErrors } from "./terminal-output.js";

/** The `recallgraph` program with its global options and the given commands. */
export function createProgram(commands: readonly CommandModule[]): Command {
  const program = new Command("recallgraph")
    .description("A planned, three-view, reflective memory retriever for LLM agents")
    .version(packageVersion(), "-V, --version")
    .showSuggestionAfterError(true)
    .configureHelp({ showGlobalOptions: true, sortSubcommands: false })
    // Errors reach runCli as exceptions (exit codes are decided in one place), never as process.exit.
    .exitOverride();
  addGlobalOptions(program);
  for (const command of commands) command.register(program);
  return program;
}

/** Runs the command line and returns the exit code: 0 done, 1 user error, 2 internal error. */
export async function runCli(argv: readonly string[], commands: readonly CommandModule[]): Promise<ExitCode> {
  const verbose = argv.includes("--verbose");
  // Library logs are JSON lines on stderr; on a command line only errors are worth them unless asked.
  setDefaultLogLevel(verbose ? "info" : "error");
  handleStdoutErrors((error) => {
    process.stderr.write(`error: cannot write the output: ${error.message}\n`);
    process.exitCode = EXIT_INTERNAL_ERROR;
  });
  try {
    await createProgram(commands).parseAsync(argv);
    return EXIT_OK;
  } catch (error) {
    reportError(error, { verbose }, (text) => process.stderr.write(text));
    return exitCodeOf(error);
  }
}

/** The version in package.json, read at startup (the CLI runs from the sources, there is no build to stamp it). */
function packageVersion(): string {
  const manifest = readFileSync(new URL("../../package.json", import.meta.url), "utf8");
  return z.object({ version: z.string() }).parse(JSON.parse(manifest)).version;
}
