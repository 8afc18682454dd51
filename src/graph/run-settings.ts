import { ValidationError } from "../core/errors.js";
import { z } from "zod";
import type { NamespaceSettings } from "../stores/port.js";
import type { EmbedderProfile } from "../text/embedders/profiles.js";
import { ownSettings, type AnyView } from "../nodes/view-definition.js";
import type { RetrievalConfigOf, SettledFieldsOf, ViewNameOf } from "./configuration.js";
import { VIEWS, type ViewRegistry } from "./views.js";

/**
 * The settings a run works with: its configuration (read from `configurable`), with the top-k and
 * thresholds widened by the asked namespaces' own settings, every view's weight known and its fields
 * settled by the embedder's profile (the semantic weight and ramp, unless the configuration sets them).
 * The plan node resolves them once and puts them in state; every later node and router reads them
 * from there.
 */
export type RunSettingsOf<V extends ViewRegistry> = Omit<RetrievalConfigOf<V>, "viewWeights" | keyof SettledFieldsOf<V>> & {
  [Field in keyof SettledFieldsOf<V>]: z.output<SettledFieldsOf<V>[Field]>;
} & {
    /** Every view's RRF weight for this run. */
    viewWeights: Record<ViewNameOf<V>, number>;
    /** From the embedder's profile: the longest text, in words, it represents as one; unset, no limit. */
    longTextWords?: number;
  };
/**
 * A run's settings as the state types them: those of the registered views. A graph built over other
 * views holds theirs, and nodes read a view's own fields only through the view (ownSettings).
 */
export type RunSettings = RunSettingsOf<typeof VIEWS>;

/** The run settings' schema over a registry's configuration schema (RunSettingsOf says what each field is). */
export function runSettingsSchema<V extends ViewRegistry>(views: V, config: z.ZodObject): z.ZodType<RunSettingsOf<V>> {
  const schema = config.extend({
    ...Object.assign({}, ...views.map((view) => view.settled ?? {})),
    viewWeights: z
      .strictObject(Object.fromEntries(views.map((view) => [view.name, z.number()])))
      .describe("Every view's RRF weight for this run, the unset ones resolved from the embedder's profile"),
    longTextWords: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe("From the embedder's profile: the longest text, in words, it represents as one (ranked lists over longer texts vote by their scores); unset, no limit"),
  });
  return schema as z.ZodType as z.ZodType<RunSettingsOf<V>>;
}

/** How a namespace's own setting widens a question over several namespaces. */
const WIDEST: Record<keyof NamespaceSettings, (...values: number[]) => number> = {
  semanticTopK: Math.max,
  lexicalTopK: Math.max,
  symbolicTopK: Math.max,
  finalK: Math.max,
  denseMinScore: Math.min,
  lexicalMinRelative: Math.min,
};

/**
 * Settings for a question over several namespaces, read with the embedder that built their vectors:
 * the widest wins (largest k, lowest threshold) among the namespaces that set a field; the run's
 * configuration where none does. Each view settles its weight and fields with the embedder's profile.
 */
export function widestSettings<V extends ViewRegistry = typeof VIEWS>(
  config: RetrievalConfigOf<V>,
  perNamespace: ReadonlyArray<NamespaceSettings | undefined>,
  embedder: EmbedderProfile,
  views: V = VIEWS as ViewRegistry as V,
): RunSettingsOf<V> {
  const set = perNamespace.filter((settings): settings is NamespaceSettings => settings !== undefined);
  const settled = views.map((view) => settle(view, config, embedder));
  const widened: Record<string, number> = {};
  for (const [field, choose] of Object.entries(WIDEST) as Array<[keyof NamespaceSettings, (...values: number[]) => number]>) {
    const configured: unknown = (config as Record<string, unknown>)[field];
    if (typeof configured !== "number") continue;
    const values = set.map((settings) => settings[field]).filter((value): value is number => value !== undefined);
    widened[field] = values.length ? choose(...values) : configured;
  }
  return {
    ...config,
    ...Object.assign({}, ...settled.map(({ own }) => own)),
    viewWeights: Object.fromEntries(views.map((view, index) => [view.name, settled[index]?.weight])),
    ...(embedder.representsWords === undefined ? {} : { longTextWords: embedder.representsWords }),
    ...widened,
  } as RunSettingsOf<V>;
}

/** A view's weight and own fields for a run read with this embedder. */
function settle(view: AnyView, config: object, embedder: EmbedderProfile): { weight: number; own: object } {
  const weights: Record<string, number | undefined> = (config as { viewWeights: Record<string, number | undefined> }).viewWeights;
  const configured = weights[view.name];
  const own = ownSettings(view, config);
  if (view.settle) return view.settle(configured, own, embedder);
  if (configured === undefined) throw new ValidationError(`viewWeights.${view.name}`, "is unset and the view does not settle one");
  return { weight: configured, own };
}
