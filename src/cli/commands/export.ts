import type { Command } from "commander";
import { z } from "zod";
import { entryInput, NamespaceSchema } from "../../memory/entry.js";
import { readGlobalOptions, type GlobalOptions } from "../global-options.js";
import { addFilterOptions, filterFromOptions } from "../filter-options.js";
import { parseOptionValues } from "../option-values.js";
import { printNote, stdoutClosed, writeOutput } from "../terminal-output.js";

const ExportOptionsSchema = z.object({ namespace: NamespaceSchema });

export function register(program: Command): void {
  const command = program
    .command("export")
    .description("print a namespace's memories as JSON Lines that `ingest` reads back: to move them to another store or embedder")
    .requiredOption("-n, --namespace <ns>", "whose memories");
  addFilterOptions(command)
    .addHelpText(
      "after",
      `
Each line is one memory as written: id, text, time, people, places, entities, keywords, source
(its origin included) and expiry; not its vector, which the store it goes to computes. Standard
input keeps each memory's own origin, so re-ingesting a source later still replaces what it wrote.
--skip-expired leaves out the memories that expire before the ingest reads them.

Examples:
  recallgraph export -n team > team.jsonl
  recallgraph export -n team | recallgraph --store qdrant ingest - -n team --skip-expired
  recallgraph export -n team | recallgraph --db openai.db --embedder openai ingest - -n team --skip-expired`,
    )
    .action(async (rawOptions: unknown, self: Command) => runExport(rawOptions, readGlobalOptions(self)));
}

async function runExport(rawOptions: unknown, globals: GlobalOptions): Promise<void> {
  const { namespace } = parseOptionValues(ExportOptionsSchema, rawOptions);
  const filter = filterFromOptions(rawOptions);
  const [{ openStoreAsBuilt }, { listPages }, { toMemoryFilter }] = await Promise.all([
    import("../store-location.js"),
    import("../../stores/list-pages.js"),
    import("../../stores/caller-filter.js"),
  ]);
  const { store } = await openStoreAsBuilt(globals, "read");
  let exported = 0;
  try {
    for await (const page of listPages(store, namespace, filter && toMemoryFilter(filter))) {
      if (page.entries.length > 0) await writeOutput(page.entries.map((entry) => `${JSON.stringify(entryInput(entry))}\n`).join(""));
      exported += page.entries.length;
      if (stdoutClosed()) break;
    }
  } finally {
    await store.close();
  }
  if (globals.json) return;
  const memories = `${exported} ${exported === 1 ? "memory" : "memories"} of namespace "${namespace}"`;
  // Once the reader has gone, what it took of the last page is not known here: only what was written.
  printNote(stdoutClosed() ? `standard output was closed by its reader: stopped after writing ${memories}` : `exported ${memories}`);
}
