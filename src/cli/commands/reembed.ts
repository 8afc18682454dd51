import type { Command } from "commander";
import { z } from "zod";
import { NamespaceSchema } from "../../memory/entry.js";
import { readGlobalOptions } from "../global-options.js";
import { parseOptionValues } from "../option-values.js";
import { printJson, printLines, table } from "../terminal-output.js";

const ReembedOptionsSchema = z.object({ namespace: NamespaceSchema.optional() });

export function register(program: Command): void {
  program
    .command("reembed")
    .description("embed every stored memory's text again with the configured embedder and write the new vectors")
    .option("-n, --namespace <ns>", "only this namespace (default: every namespace)")
    .addHelpText(
      "after",
      `
For a store written before its embedder changed how it embeds some texts (USE-lite now embeds
texts of over 100 words by their sentences): until then those memories keep their old vectors.
Nothing else of a memory changes. The embedder must be the one that built the store (the same
model and dimension); a store built by another is refused, as for any write. A run can be
interrupted and run again. Before it exits it saves each namespace's search structures again, as
ingest does.

Examples:
  recallgraph reembed
  recallgraph reembed -n kb --json`,
    )
    .action(async (rawOptions: unknown, self: Command) => {
      const globals = readGlobalOptions(self);
      const options = parseOptionValues(ReembedOptionsSchema, rawOptions);
      const [{ openExisting }, { reembedMemories }, { jobProgressBar }, { prepareSearch, describePreparedSearch }] = await Promise.all([
        import("../open-dependencies.js"),
        import("../../ingest/write-memories.js"),
        import("../progress.js"),
        import("../prepared-search.js"),
      ]);
      const dependencies = await openExisting(globals, "write");
      const progress = jobProgressBar(!globals.json && process.stderr.isTTY === true);
      const closeAll = async () => {
        progress.stop();
        await dependencies.close();
      };
      const counts = await reembedMemories(dependencies.store, dependencies.embedder, {
        ...(options.namespace !== undefined ? { namespace: options.namespace } : {}),
        onProgress: (namespace, done, total) => progress.update({ phase: "re-embedding", detail: namespace, done, total }),
      }).catch(async (error: unknown) => {
        await closeAll();
        throw error;
      });
      const rewritten = Object.entries(counts).filter(([, count]) => count > 0).map(([namespace]) => namespace);
      const prepared = await prepareSearch(dependencies.store, rewritten, progress).finally(closeAll);
      const total = Object.values(counts).reduce((sum, count) => sum + count, 0);
      if (globals.json) {
        printJson({ namespaces: counts, entries: total, search: prepared });
        return;
      }
      const rows = Object.entries(counts).map(([namespace, entries]) => [`  ${namespace}`, String(entries)]);
      printLines([
        `Re-embedded ${total} ${total === 1 ? "memory" : "memories"} in ${dependencies.location.label} (embedder ${dependencies.embedder.spec.model})`,
        ...table(rows, [false, true]),
        ...describePreparedSearch(prepared),
      ]);
    });
}
