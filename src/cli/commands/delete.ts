import { Option, type Command } from "commander";
import { z } from "zod";
import { ValidationError } from "../../core/errors.js";
import { NamespaceSchema } from "../../memory/entry.js";
import { readGlobalOptions } from "../global-options.js";
import { parseOptionValues } from "../option-values.js";
import { printJson, printLines } from "../terminal-output.js";

const DeleteOptionsSchema = z.object({
  namespace: NamespaceSchema,
  id: z.array(z.string().trim().min(1, "ids must not be empty")).min(1).optional(),
  all: z.boolean().optional(),
});

export function register(program: Command): void {
  program
    .command("delete")
    .description("delete memories of a namespace, by id or all of them")
    .requiredOption("-n, --namespace <ns>", "the namespace to delete from")
    .addOption(new Option("--id <id...>", "ids of the entries to delete"))
    .addOption(new Option("--all", "delete every entry of the namespace").conflicts("id"))
    .addHelpText(
      "after",
      `
Examples:
  recallgraph delete --namespace team --id demo-07 demo-08
  recallgraph delete --namespace conv-26 --all`,
    )
    .action(async (rawOptions: unknown, command: Command) => {
      const globals = readGlobalOptions(command);
      const options = parseOptionValues(DeleteOptionsSchema, rawOptions);
      if (!options.all && !options.id) throw new ValidationError("", "say what to delete: --id <id...> or --all");
      const { openStoreAsBuilt } = await import("../store-location.js");
      const { store } = await openStoreAsBuilt(globals);
      const { deleted, missing } = await (async () => {
        if (options.all) return { deleted: await store.clearNamespace(options.namespace), missing: [] };
        const ids = [...new Set(options.id)];
        const found = new Set((await store.get(options.namespace, ids)).map((entry) => entry.id));
        return { deleted: await store.delete(options.namespace, ids), missing: ids.filter((id) => !found.has(id)) };
      })().finally(() => store.close());

      if (globals.json) {
        printJson({ namespace: options.namespace, deleted, missing });
        return;
      }
      const lines = [`Deleted ${deleted} ${deleted === 1 ? "entry" : "entries"} from namespace "${options.namespace}".`];
      if (missing.length > 0) lines.push(`Not found there: ${missing.join(", ")}`);
      printLines(lines);
    });
}
