import { ReducedValue, StateSchema, type StateSchemaField } from "@langchain/langgraph";
import { schemaMetaRegistry, withLangGraph } from "@langchain/langgraph/zod";
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

/**
 * The channels of a zod object state (fields made by `described`, `appended` and `withLangGraph`) as
 * LangGraph's StateSchema: the same channels, reducers, defaults and JSON Schemas, for the graphs that
 * run often. With a zod object as its state, LangGraph validates every node's update by building a
 * partial of the whole state object and parsing each written key through it (@langchain/langgraph
 * 1.7.3, graph/state.js `validateStateUpdates`): a new zod schema, and a new compiled parser, per node
 * call, which cost a retrieval more than its merge, reflect and finalize nodes together. A StateSchema
 * checks each written key against its own field's schema, here `z.any()` with metadata.
 *
 * A default is computed once per graph (LangGraph's StateSchema asks the schema for it once and keeps
 * the value), so defaults are frozen: no run can change what the next one starts from.
 * Typed as the zod object's fields, so the graph's state, input and output types stay those of `object`.
 */
export function asStateSchema<Shape extends z.ZodRawShape>(object: z.ZodObject<Shape>): StateSchemaOf<Shape> {
  const fields: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(object.shape) as Array<[string, z.ZodType]>) {
    const meta = schemaMetaRegistry.get(field);
    const makeDefault = meta?.default;
    const valueSchema = makeDefault ? field.default(() => Object.freeze(makeDefault()) as never) : field;
    fields[key] = meta?.reducer ? new ReducedValue(valueSchema, { reducer: meta.reducer.fn }) : valueSchema;
  }
  return new StateSchema(fields as ChannelFields<Shape>);
}

/** A plain schema field of a StateSchema (LangGraph names its type SerializableSchema but exports only the union). */
type SchemaField<Input, Output> = Extract<StateSchemaField<Input, Output>, { "~standard": unknown }>;
/** What asStateSchema makes of a zod field: a reduced value where `withLangGraph` gave it a reducer, the schema itself otherwise. */
type ChannelField<F> = F extends { lg_reducer_schema: unknown }
  ? ReducedValue<z.output<F>, z.output<F>>
  : F extends z.ZodType
    ? SchemaField<z.input<F>, z.output<F>>
    : never;
type ChannelFields<Shape extends z.ZodRawShape> = { [K in keyof Shape]: ChannelField<Shape[K]> };
export type StateSchemaOf<Shape extends z.ZodRawShape> = StateSchema<ChannelFields<Shape>>;
