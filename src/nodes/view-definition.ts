import type { z } from "zod";
import type { ViewHitList } from "../domain/hits.js";
import type { Plan } from "../domain/plan.js";
import type { ViewName } from "../domain/views.js";
import type { EmbedderProfile } from "../text/embedders/profiles.js";
import type { GraphDependencies } from "../runtime/dependencies.js";
import type { ViewTask } from "../graph/state.js";
import type { ViewUpdate } from "./run-view.js";

type Shape = z.ZodRawShape;
/** No fields. */
type NoFields = Record<never, never>;

/** A view's own fields as a run holds them: as configured, except those the embedder settles. */
export type ViewSettings<Fields extends Shape, Settled extends Shape = NoFields> = z.output<z.ZodObject<Omit<Fields, keyof Settled> & Settled>>;

/** What a view's weight rule reads of a question: its plan, the views that search it, and what the first round found. */
export interface QuestionWeighing {
  plan: Plan;
  views: readonly ViewName[];
  /** Whether most of the first round's hits were said by someone (messages of a conversation, not documents): see retrieval/list-evidence.ts, spokenHits. */
  spoken: boolean;
}

/** A view's weight and own fields for one run. */
export interface SettledView<Own> {
  weight: number;
  own: Own;
}

/**
 * Everything the graph knows of a view, in one record: the registry (graph/views.ts) lists these, and
 * the graph's nodes and edges, the routing, the merge and the configuration schemas are read from it.
 * Methods rather than function properties, so that a registry can hold views of different fields.
 */
export interface ViewDefinition<
  Name extends string = string,
  Weight extends z.ZodType<number | undefined> = z.ZodType<number | undefined>,
  Fields extends Shape = Shape,
  Settled extends Shape = NoFields,
> {
  /** Its node's name, its choice in `views`, its label in provenance. */
  readonly name: Name;
  /** Its entry of `viewWeights`: RRF weight, default and description. */
  readonly weight: Weight;
  /** Its configuration fields, beside the common ones and named after it (`semanticTopK`). */
  readonly fields: Fields;
  /** The fields `settle` gives a run another type (the run settings' schema of each). */
  readonly settled?: Settled;
  /** "first": it searches in the plan's round only (its input does not change between rounds); "every": in reflection rounds too. */
  readonly rounds: "first" | "every";
  /** Whether its lists over texts longer than the embedder represents as one vote by their scores (retrieval/list-evidence.ts). */
  readonly votesByScore: boolean;
  /** The node's work: one round's search for one task, with the view's own settings for the run. */
  search(dependencies: () => Promise<GraphDependencies>, task: ViewTask, own: ViewSettings<NoInfer<Fields>, NoInfer<Settled>>): Promise<ViewUpdate>;
  /** Its weight and fields for a run read with this embedder; unset, the configured ones. */
  settle?(weight: z.output<NoInfer<Weight>>, own: z.output<z.ZodObject<NoInfer<Fields>>>, embedder: EmbedderProfile): SettledView<ViewSettings<NoInfer<Fields>, NoInfer<Settled>>>;
  /** Its weight for this question; unset, the run's. */
  weightFor?(question: QuestionWeighing, weight: number, own: ViewSettings<NoInfer<Fields>, NoInfer<Settled>>): number;
  /** The share of its weight one of its lists earns by its own scores (retrieval/list-evidence.ts); unset, all of it. */
  evidence?(list: ViewHitList, own: ViewSettings<NoInfer<Fields>, NoInfer<Settled>>): number;
}

/** Any view, as a registry holds it. */
export type AnyView = ViewDefinition<string, z.ZodType<number | undefined>, Shape, Shape>;

/**
 * A view, its types read from its record: its fields from `fields` and `settled` alone (not from how its
 * functions use them), the other fields' types from those.
 */
export function defineView<
  const Name extends string,
  Weight extends z.ZodType<number | undefined>,
  Fields extends Shape,
  Settled extends Shape = NoFields,
>(view: ViewDefinition<Name, Weight, Fields, Settled>): ViewDefinition<Name, Weight, Fields, Settled> {
  return view;
}

/**
 * A view's own settings out of a run's settings. The run's settings were parsed with the view's own
 * field schemas and settled by it (graph/run-settings.ts), so they have this type.
 */
export function ownSettings<Fields extends Shape, Settled extends Shape>(
  view: Pick<ViewDefinition<string, z.ZodType<number | undefined>, Fields, Settled>, "fields" | "settled">,
  settings: object,
): ViewSettings<Fields, Settled> {
  const keys = new Set([...Object.keys(view.fields), ...Object.keys(view.settled ?? {})]);
  return Object.fromEntries(Object.entries(settings).filter(([key]) => keys.has(key))) as ViewSettings<Fields, Settled>;
}

/** The node of a view as the graph runs it: given the task, it reads its own settings from the task's. */
export function viewNode(view: AnyView, dependencies: () => Promise<GraphDependencies>): (task: ViewTask) => Promise<ViewUpdate> {
  return (task) => view.search(dependencies, task, ownSettings(view, task.settings));
}
