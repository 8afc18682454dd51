import { z } from "zod";
import { ValidationError } from "../core/errors.js";

/**
 * Validates a command's option values (commander hands over strings and booleans) with `schema`.
 * A failure is a ValidationError named after the flag as typed, e.g. `--k: must be a positive integer`.
 */
export function parseOptionValues<S extends z.ZodType>(schema: S, values: unknown): z.output<S> {
  const result = schema.safeParse(values);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const key = issue?.path[0];
  const flag = typeof key === "string" ? `--${key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}` : "";
  throw new ValidationError(flag, issue?.message ?? "invalid value");
}

/** A whole number >= 1 given as text. */
export const positiveIntegerText = (max: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, "must be a positive integer")
    .transform(Number)
    .pipe(z.number().int().min(1, "must be a positive integer").max(max, `must be at most ${max}`));

/** Collects a repeatable option (`--namespace a --namespace b`) into a list. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** "a,b,c" -> ["a", "b", "c"], empty items refused. */
export const commaList = z
  .string()
  .transform((text) => text.split(",").map((item) => item.trim()))
  .pipe(z.array(z.string().min(1, "must be a comma-separated list without empty items")).min(1));
