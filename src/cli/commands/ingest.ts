import { Option, type Command } from "commander";
import { z } from "zod";
import type { IngestFormat, IngestProgress } from "../../ingest/ingest-file.js";
import { NamespaceSchema, SourceSchema } from "../../memory/entry.js";
import { readGlobalOptions } from "../global-options.js";
import { collect, parseOptionValues } from "../option-values.js";
import { formatSeconds, printJson, printLines, table } from "../terminal-output.js";
import { readStandardInput, STANDARD_INPUT } from "../standard-input.js";
import { inputTooLarge, MAX_INGEST_BYTES } from "../../ingest/input-limits.js";

// Listed here so `--help` does not load the ingest code; the check below keeps it complete.
const FORMATS = ["locomo", "jsonl", "docs", "dialogue"] as const satisfies readonly IngestFormat[];
type NothingMissing<Missing extends never> = Missing;
export type EveryFormatListed = NothingMissing<Exclude<IngestFormat, (typeof FORMATS)[number]>>;

const IngestOptionsSchema = z.object({
  namespace: NamespaceSchema.optional(),
  format: z.enum(FORMATS).optional(),
  conversation: z.array(z.string().trim().min(1, "must not be empty")).optional(),
  origin: SourceSchema.shape.origin.describe("The name re-ingesting replaces by (default: the file's or folder's absolute path)"),
  skipExpired: z.boolean().optional().describe("Leave out JSON Lines memories whose expiresAt has passed rather than refuse the input"),
});

/** How the progress bar names each phase of an ingest. */
const PHASE_LABELS: Record<IngestProgress["phase"], string> = { build: "building", embed: "embedding", store: "storing" };

export function register(program: Command): void {
  program
    .command("ingest")
    .description("write memories from a file (LoCoMo, JSON Lines, dialogue JSON) or a folder of documents")
    .argument("<file>", "the file to read (a folder with --format docs; - for standard input)")
    .option("-n, --namespace <ns>", 'namespace to write to (default: "default"; LoCoMo uses each sample_id)')
    .addOption(new Option("-f, --format <format>", "input format (default: detected from the name and content)").choices(FORMATS))
    .option("--conversation <id>", "LoCoMo: ingest only this sample_id (repeatable)", collect)
    .option("--origin <name>", "the name this input replaces by (default: its absolute path; standard input has none)")
    .option("--skip-expired", "JSON Lines: leave out memories whose expiresAt has passed (an export's, since expired) instead of refusing the input")
    .addHelpText(
      "after",
      `
Re-ingesting the same file or folder (or --origin name) into a namespace replaces what it wrote
there: memories it no longer holds (edited or deleted lines, removed documents) are deleted, and
nothing is duplicated. Standard input replaces nothing unless given an --origin name.
Before it exits, ingest reads each namespace it wrote into the store's search structures (its BM25
terms and, with RECALLGRAPH_VECTOR_INDEX=hnsw, its vector index) and saves them beside the store
file, so the commands after it load them rather than read every memory again.
A file with any invalid line or field is refused whole: nothing is written or deleted. A memory
whose expiresAt has passed is such a line, unless --skip-expired leaves it out (as when moving an
export, whose memories can expire before it is read back).

Examples:
  recallgraph ingest notes.jsonl --namespace team
  recallgraph ingest locomo10.json --conversation conv-26
  recallgraph ingest docs/ --format docs --namespace kb
  export-notes | recallgraph ingest - --namespace team --origin notes`,
    )
    .action(async (file: string, rawOptions: unknown, command: Command) => {
      const globals = readGlobalOptions(command);
      const options = parseOptionValues(IngestOptionsSchema, rawOptions);
      // Read before the store is opened, so a slow or abandoned pipe holds no store open.
      const input =
        file === STANDARD_INPUT ? { text: await readStandardInput(MAX_INGEST_BYTES, () => inputTooLarge("standard input", undefined)), name: "standard input" } : file;
      const [{ openForWriting }, { storeLocation }, { newStoreRemover }, { ingestFile }, { jobProgressBar }, { prepareSearch, describePreparedSearch }] = await Promise.all([
        import("../open-dependencies.js"),
        import("../store-location.js"),
        import("../../stores/open-store.js"),
        import("../../ingest/ingest-file.js"),
        import("../progress.js"),
        import("../prepared-search.js"),
      ]);
      const removeIfCreatedHere = newStoreRemover(storeLocation(globals).config);
      const dependencies = await openForWriting(globals);
      const progress = jobProgressBar(!globals.json && process.stderr.isTTY === true);
      const closeAll = async () => {
        progress.stop();
        await dependencies.close();
      };
      const summary = await ingestFile(input, {
        store: dependencies.store,
        embedder: dependencies.embedder,
        ...(dependencies.model ? { model: dependencies.model } : {}),
        ...(options.format ? { format: options.format } : {}),
        ...(options.namespace !== undefined ? { namespace: options.namespace } : {}),
        ...(options.conversation ? { conversations: options.conversation } : {}),
        ...(options.origin !== undefined ? { origin: options.origin } : {}),
        ...(options.skipExpired ? { skipExpired: true } : {}),
        onProgress: (update) =>
          progress.update({ phase: PHASE_LABELS[update.phase], detail: update.namespace, done: update.done, total: update.total }),
      }).catch(async (error: unknown) => {
        await closeAll();
        // A refused ingest leaves no trace: not even an empty store pinned to this run's embedder.
        await removeIfCreatedHere();
        throw error;
      });
      // What was written is kept from here on, whatever happens while search is prepared.
      const prepared = await prepareSearch(dependencies.store, Object.keys(summary.namespaces), progress).finally(closeAll);

      if (globals.json) {
        printJson({ ...summary, search: prepared });
        return;
      }
      const rows = Object.entries(summary.namespaces).map(([namespace, entries]) => [`  ${namespace}`, String(entries)]);
      printLines([
        `Wrote ${summary.entries} ${summary.entries === 1 ? "entry" : "entries"} in ${formatSeconds(summary.seconds)} to ${dependencies.location.label} (embedder ${dependencies.embedder.spec.model})`,
        ...table(rows, [false, true]),
        ...(summary.retired > 0 ? [`Retired ${summary.retired} ${summary.retired === 1 ? "entry" : "entries"} the source no longer holds`] : []),
        ...(summary.expired > 0 ? [`Left out ${summary.expired} expired ${summary.expired === 1 ? "memory" : "memories"}`] : []),
        ...describePreparedSearch(prepared),
      ]);
    });
}
