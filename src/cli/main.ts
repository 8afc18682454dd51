/**
 * The `recallgraph` command line (run through bin/recallgraph.js or `node --import tsx src/cli/main.ts`).
 * Each command lives in its own file under commands/ and exports `register(program)`; adding one is
 * one line in the list below.
 */
import type { CommandModule } from "./command.js";
import { runCli } from "./program.js";

const commands: CommandModule[] = await Promise.all([
  import("./commands/ingest.js"),
  import("./commands/query.js"),
  import("./commands/list.js"),
  import("./commands/export.js"),
  import("./commands/delete.js"),
  import("./commands/prune.js"),
  import("./commands/reembed.js"),
  import("./commands/stats.js"),
  import("./commands/demo.js"),
  import("./commands/eval.js"),
  import("./commands/eval-compare.js"),
  import("./commands/mcp.js"),
]);

process.exitCode = await runCli(process.argv, commands);
