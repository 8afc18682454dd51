import { withLangGraph } from "@langchain/langgraph/zod";
import { z } from "zod";

/**
 * A state channel typed and documented by `schema` (Studio and the server's schemas endpoint show its
 * JSON Schema) but not validated again by LangGraph on every write. Nodes write what they built from
 * input the first node validated; re-validating a round's hundred hits and entries on each update
 * would cost more than the search that found them. Input channels are declared this way too, so bad
 * input reaches the first node and comes back as one ValidationError naming the field.
 */
export function described<S extends z.ZodType>(schema: S, description?: string): z.ZodType<z.output<S>, z.output<S>> {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io: "output", unrepresentable: "any" });
  return z.any().meta(description ? { ...json, description } : json) as z.ZodType<z.output<S>, z.output<S>>;
}

/** A channel that gathers what the nodes of a run add (reset by the plan node when a run starts). */
export function appended<S extends z.ZodType>(item: S, description: string) {
  return withLangGraph(described(z.array(item), description), {
    reducer: { fn: (current: z.output<S>[], update: z.output<S>[]) => current.concat(update) },
    default: () => [],
  });
}
