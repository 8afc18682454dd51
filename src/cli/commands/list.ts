import type { Command } from "commander";
import { z } from "zod";
import { NamespaceSchema } from "../../memory/entry.js";
import { readGlobalOptions, type GlobalOptions } from "../global-options.js";
import { addFilterOptions, filterFromOptions } from "../filter-options.js";
import { parseOptionValues, positiveIntegerText } from "../option-values.js";
import { printJson, printLines } from "../terminal-output.js";

const ListOptionsSchema = z.object({
  namespace: NamespaceSchema,
  limit: positiveIntegerText(1000).optional(),
  cursor: z.string().min(1).optional(),
});

export function register(program: Command): void {
  const command = program
    .command("list")
    .description("list a namespace's memories, newest first, a page at a time")
    .requiredOption("-n, --namespace <ns>", "whose memories")
    .option("--limit <n>", "memories per page (default: 20)")
    .option("--cursor <cursor>", "continue after the page that printed this cursor");
  addFilterOptions(command)
    .addHelpText(
      "after",
      `
Examples:
  recallgraph list -n team
  recallgraph list -n team --person Dave --since 2026-11-01 --json`,
    )
    .action(async (rawOptions: unknown, self: Command) => runList(rawOptions, readGlobalOptions(self)));
}

async function runList(rawOptions: unknown, globals: GlobalOptions): Promise<void> {
  const options = parseOptionValues(ListOptionsSchema, rawOptions);
  const filter = filterFromOptions(rawOptions);
  const [{ openStoreAsBuilt }, { listMemories }, { formatTimestamp }] = await Promise.all([
    import("../store-location.js"),
    import("../../stores/memory-operations.js"),
    import("../terminal-output.js"),
  ]);
  const { store } = await openStoreAsBuilt(globals, "read");
  const page = await listMemories(store, options.namespace, {
    ...(options.limit ? { limit: options.limit } : {}),
    ...(options.cursor ? { cursor: options.cursor } : {}),
    ...(filter ? { filter } : {}),
  }).finally(() => store.close());
  if (globals.json) {
    printJson({ namespace: options.namespace, entries: page.entries, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) });
    return;
  }
  const lines = page.entries.map((entry) => `${formatTimestamp(entry.timestamp)}  ${entry.id}  ${entry.text}`);
  if (lines.length === 0) lines.push(`no memories in namespace "${options.namespace}"${filter ? " that meet the filter" : ""}`);
  if (page.nextCursor) lines.push("", `more: --cursor ${page.nextCursor}`);
  printLines(lines);
}
