import type { Command } from "commander";
import { z } from "zod";
import { RecallFilterSchema, type RecallFilter } from "../stores/caller-filter.js";
import { collect, parseOptionValues } from "./option-values.js";

/** The caller-filter flags, shared by `query` and `list`. */
export function addFilterOptions(command: Command): Command {
  return command
    .option("--since <iso>", "only memories at or after this date or time")
    .option("--until <iso>", "only memories before this date or time")
    .option("--person <name>", "only memories naming this person (repeat: any of them)", collect)
    .option("--entity <name>", "only memories naming this thing, code or event (repeat: any of them)", collect)
    .option("--place <text>", "only memories whose place contains this text")
    .option("--source <documentId>", "only chunks of this source document");
}

/** The flags as typed; each maps to one field of the caller filter, so an error names the flag. */
const FilterFlagsSchema = z
  .object({
    since: RecallFilterSchema.shape.since,
    until: RecallFilterSchema.shape.until,
    person: RecallFilterSchema.shape.persons,
    entity: RecallFilterSchema.shape.entities,
    place: RecallFilterSchema.shape.location,
    source: RecallFilterSchema.shape.documentId,
  })
  .passthrough()
  .refine((flags) => RecallFilterSchema.safeParse({ since: flags.since, until: flags.until }).success, {
    message: "must be after --since",
    path: ["until"],
  });

/** The caller filter the flags describe, or undefined when none is given. */
export function filterFromOptions(rawOptions: unknown): RecallFilter | undefined {
  const flags = parseOptionValues(FilterFlagsSchema, rawOptions);
  const filter: RecallFilter = {
    ...(flags.since ? { since: flags.since } : {}),
    ...(flags.until ? { until: flags.until } : {}),
    ...(flags.person ? { persons: flags.person } : {}),
    ...(flags.entity ? { entities: flags.entity } : {}),
    ...(flags.place ? { location: flags.place } : {}),
    ...(flags.source ? { documentId: flags.source } : {}),
  };
  return Object.keys(filter).length ? filter : undefined;
}
