import type { NamespaceSettings } from "../stores/port.js";
import type { RetrievalConfig } from "./configuration.js";

/**
 * The settings a run works with: its configuration (`RetrievalConfig`, read from `configurable`),
 * with the top-k and thresholds widened by the asked namespaces' own settings. The plan node resolves
 * them once and puts them in state; every later node and router reads them from there.
 */
export type RunSettings = RetrievalConfig;

/**
 * Settings for a question over several namespaces: the widest wins (largest k, lowest threshold)
 * among the namespaces that set a field; the run's configuration where none does.
 */
export function widestSettings(config: RetrievalConfig, perNamespace: ReadonlyArray<NamespaceSettings | undefined>): RunSettings {
  const set = perNamespace.filter((settings): settings is NamespaceSettings => settings !== undefined);
  const largest = (field: keyof NamespaceSettings, fallback: number) => pick(set, field, fallback, Math.max);
  const lowest = (field: keyof NamespaceSettings, fallback: number) => pick(set, field, fallback, Math.min);
  return {
    ...config,
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
