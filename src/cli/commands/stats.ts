import type { Command } from "commander";
import { z } from "zod";
import { NamespaceSchema } from "../../memory/entry.js";
import { readGlobalOptions } from "../global-options.js";
import { parseOptionValues } from "../option-values.js";
import { formatBytes, printJson, printLines, table } from "../terminal-output.js";

const StatsOptionsSchema = z.object({ namespace: NamespaceSchema.optional() });

export function register(program: Command): void {
  program
    .command("stats")
    .description("entries per namespace, the embedder that built the store, its size")
    .option("-n, --namespace <ns>", "only this namespace")
    .action(async (rawOptions: unknown, command: Command) => {
      const globals = readGlobalOptions(command);
      const options = parseOptionValues(StatsOptionsSchema, rawOptions);
      const { openStoreAsBuilt } = await import("../store-location.js");
      const { store, location } = await openStoreAsBuilt(globals, "read");
      const stats = await store.stats().finally(() => store.close());

      const counts = options.namespace !== undefined ? { [options.namespace]: stats.namespaces[options.namespace] ?? 0 } : stats.namespaces;
      const namespaces = Object.fromEntries(
        Object.entries(counts)
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([namespace, entries]) => [namespace, { entries }]),
      );
      const fileBytes = stats.bytes ?? null;
      const readOnly = location.config.readOnly === true;
      if (globals.json) {
        printJson({ namespaces, embedder: store.embedding.model, dimension: store.embedding.dimension, fileBytes, store: store.kind, location: location.label, readOnly });
        return;
      }
      const rows = Object.entries(namespaces).map(([namespace, { entries }]) => [`  ${namespace}`, String(entries)]);
      const total = Object.values(namespaces).reduce((sum, { entries }) => sum + entries, 0);
      printLines([
        `store     ${location.label} (${store.kind}${readOnly ? ", read-only" : ""}${fileBytes !== null ? `, ${formatBytes(fileBytes)}` : ""})`,
        `embedder  ${store.embedding.model} (${store.embedding.dimension}-d)`,
        "",
        ...(rows.length > 0 ? table([["  namespace", "entries"], ...rows, ...(rows.length > 1 ? [["  total", String(total)]] : [])], [false, true]) : ["  no memories yet"]),
      ]);
    });
}
