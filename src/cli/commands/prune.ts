import type { Command } from "commander";
import { z } from "zod";
import { NamespaceSchema } from "../../memory/entry.js";
import { readGlobalOptions } from "../global-options.js";
import { parseOptionValues } from "../option-values.js";
import { printJson, printLines } from "../terminal-output.js";

const PruneOptionsSchema = z.object({ namespace: NamespaceSchema.optional() });

export function register(program: Command): void {
  program
    .command("prune")
    .description("delete expired memories (their expiresAt has passed) from every index")
    .option("-n, --namespace <ns>", "only this namespace (default: every namespace)")
    .addHelpText(
      "after",
      `
Expired memories are never returned, listed or recalled; prune reclaims their space.

Examples:
  recallgraph prune
  recallgraph prune -n me --json`,
    )
    .action(async (rawOptions: unknown, self: Command) => {
      const globals = readGlobalOptions(self);
      const options = parseOptionValues(PruneOptionsSchema, rawOptions);
      const [{ openStoreAsBuilt }, { pruneExpired }] = await Promise.all([import("../store-location.js"), import("../../stores/memory-operations.js")]);
      const { store } = await openStoreAsBuilt(globals);
      const deleted = await pruneExpired(store, options.namespace).finally(() => store.close());
      if (globals.json) printJson({ ...(options.namespace ? { namespace: options.namespace } : {}), deleted });
      else printLines([`Deleted ${deleted} expired ${deleted === 1 ? "memory" : "memories"}${options.namespace ? ` from namespace "${options.namespace}"` : ""}.`]);
    });
}
