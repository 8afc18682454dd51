import { z } from "zod";
import type { ViewName } from "../domain/views.js";
import type { NamespaceSettings } from "../stores/port.js";
import { SeparationRampSchema, type EmbedderProfile, type SeparationRamp } from "../text/embedders/profiles.js";
import { RetrievalConfigSchema, type RetrievalConfig } from "./configuration.js";

/**
 * The settings a run works with: its configuration (`RetrievalConfig`, read from `configurable`),
 * with the top-k and thresholds widened by the asked namespaces' own settings and every view's weight
 * known (the semantic one from the embedder's profile unless the configuration sets it). The plan
 * node resolves them once and puts them in state; every later node and router reads them from there.
 */
export const RunSettingsSchema = RetrievalConfigSchema.extend({
  viewWeights: z
    .strictObject({ semantic: z.number(), lexical: z.number(), symbolic: z.number() } satisfies Record<ViewName, z.ZodNumber>)
    .describe("Every view's RRF weight for this run, the semantic one resolved from the embedder's profile when not configured"),
  denseSeparation: SeparationRampSchema.describe("The dense lists' separation ramp for this run, the embedder's profile's when configured as \"embedder\""),
  longTextWords: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe("From the embedder's profile: the longest text, in words, it represents as one (ranked lists over longer texts vote by their scores); unset, no limit"),
});
export type RunSettings = z.output<typeof RunSettingsSchema>;

/** A ramp that gives every dense list its full vote. */
const FULL_VOTE: SeparationRamp = { from: 0, to: 0 };

/**
 * Settings for a question over several namespaces, read with the embedder that built their vectors:
 * the widest wins (largest k, lowest threshold) among the namespaces that set a field; the run's
 * configuration where none does.
 */
export function widestSettings(
  config: RetrievalConfig,
  perNamespace: ReadonlyArray<NamespaceSettings | undefined>,
  embedder: EmbedderProfile,
): RunSettings {
  const set = perNamespace.filter((settings): settings is NamespaceSettings => settings !== undefined);
  const largest = (field: keyof NamespaceSettings, fallback: number) => pick(set, field, fallback, Math.max);
  const lowest = (field: keyof NamespaceSettings, fallback: number) => pick(set, field, fallback, Math.min);
  return {
    ...config,
    viewWeights: { ...config.viewWeights, semantic: config.viewWeights.semantic ?? embedder.denseWeight },
    denseSeparation: config.denseSeparation === "embedder" ? (embedder.denseSeparation ?? FULL_VOTE) : config.denseSeparation,
    ...(embedder.representsWords === undefined ? {} : { longTextWords: embedder.representsWords }),
    semanticTopK: largest("semanticTopK", config.semanticTopK),
    lexicalTopK: largest("lexicalTopK", config.lexicalTopK),
    symbolicTopK: largest("symbolicTopK", config.symbolicTopK),
    finalK: largest("finalK", config.finalK),
    denseMinScore: lowest("denseMinScore", config.denseMinScore),
    lexicalMinRelative: lowest("lexicalMinRelative", config.lexicalMinRelative),
  };
}

function pick(
  set: readonly NamespaceSettings[],
  field: keyof NamespaceSettings,
  fallback: number,
  choose: (...values: number[]) => number,
): number {
  const values = set.map((settings) => settings[field]).filter((value): value is number => value !== undefined);
  return values.length ? choose(...values) : fallback;
}
