import { Option, type Command } from "commander";
import { z } from "zod";
import { readEnvironment, type Environment } from "../core/env.js";
import { STORE_KIND_NAMES } from "../stores/store-kinds.js";
import { EMBEDDER_KIND_NAMES } from "../text/embedders/registry.js";
import { parseOptionValues } from "./option-values.js";

/** Options every command accepts. Unset store and embedder choices fall back to the environment. */
export const GlobalOptionsSchema = z.object({
  db: z.string().trim().min(1, "must not be empty").optional().describe("The sqlite file, or :memory:"),
  store: z.enum(STORE_KIND_NAMES).optional().describe("The kind of store (stores/store-kinds.ts)"),
  embedder: z.enum(EMBEDDER_KIND_NAMES).optional().describe("The kind of dense embedder (text/embedders/registry.ts)"),
  readOnly: z.boolean().default(false).describe("Open the store without writing to it; writes are refused"),
  json: z.boolean().default(false).describe("Print machine-readable JSON on stdout"),
  verbose: z.boolean().default(false).describe("Log more, and print stack traces on errors"),
});
export type GlobalOptions = z.output<typeof GlobalOptionsSchema>;

export function addGlobalOptions(program: Command): Command {
  return program
    .option("--db <path>", "sqlite file or :memory: (default $RECALLGRAPH_DB, else ./.recallgraph/memory.db)")
    .addOption(new Option("--store <kind>", `store backend (default $RECALLGRAPH_STORE, else ${STORE_KIND_NAMES[0]})`).choices(STORE_KIND_NAMES))
    .addOption(
      new Option("--embedder <name>", "dense embedder (default $RECALLGRAPH_EMBEDDER, else use-lite)").choices(EMBEDDER_KIND_NAMES),
    )
    .option("--read-only", "open the store without writing to it; writes are refused (default $RECALLGRAPH_READ_ONLY)")
    .option("--json", "print machine-readable JSON on stdout")
    .option("--verbose", "log more, and print stack traces on errors");
}

/** The global options as seen from a subcommand's action. */
export function readGlobalOptions(command: Command): GlobalOptions {
  return parseOptionValues(GlobalOptionsSchema, command.optsWithGlobals());
}

/**
 * The environment the library's own `storeConfigFromEnv` / `embedderConfigFromEnv` read, with the
 * command-line choices written over it: flags win over variables, variables over defaults.
 */
export function environmentWith(globals: GlobalOptions, base: Environment = readEnvironment()): Environment {
  const env: Record<string, string | undefined> = { ...base };
  if (globals.db !== undefined) env.RECALLGRAPH_DB = globals.db;
  if (globals.store !== undefined) env.RECALLGRAPH_STORE = globals.store;
  if (globals.embedder !== undefined) env.RECALLGRAPH_EMBEDDER = globals.embedder;
  // Only ever switched on: the flag cannot make a store the environment protects writable.
  if (globals.readOnly) env.RECALLGRAPH_READ_ONLY = "1";
  return env;
}
