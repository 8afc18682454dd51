import type { Command } from "commander";

/**
 * What every file under commands/ exports: one function that adds its subcommand to the program.
 * Command files import the library lazily (inside their actions), so `--help` and usage errors stay
 * fast: the embedders alone take seconds to load.
 */
export interface CommandModule {
  register(program: Command): void;
}
