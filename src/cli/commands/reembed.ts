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
interrupted and run again.

Examples:
  recallgraph reembed
  recallgraph reembed -n kb --json`,
    )
    .action(async (rawOptions: unknown, self: Command) => {
      const globals = readGlobalOptions(self);
      const options = parseOptionValues(ReembedOptionsSchema, rawOptions);
      const [{ openExisting }, { reembedMemories }, { jobProgressBar }] = await Promise.all([
        import("../open-dependencies.js"),
        import("../../ingest/write-memories.js"),
        import("../progress.js"),
      ]);
      const dependencies = await openExisting(globals, "write");
      const progress = jobProgressBar(!globals.json && process.stderr.isTTY === true);
      const counts = await reembedMemories(dependencies.store, dependencies.embedder, {
        ...(options.namespace !== undefined ? { namespace: options.namespace } : {}),
        onProgress: (namespace, done, total) => progress.update({ phase: "re-embedding", detail: namespace, done, total }),
      }).finally(async () => {
        progress.stop();
        await dependencies.close();
      });
      const total = Object.values(counts).reduce((sum, count) => sum + count, 0);
      if (globals.json) {
        printJson({ namespaces: counts, entries: total });
        return;
      }
      const rows = Object.entries(counts).map(([namespace, entries]) => [`  ${namespace}`, String(entries)]);
      printLines([
        `Re-embedded ${total} ${total === 1 ? "memory" : "memories"} in ${dependencies.location.label} (embedder ${dependencies.embedder.spec.model})`,
        ...table(rows, [false, true]),
      ]);
    });
}
