import type { NamespaceSettings } from "../stores/port.js";
import type { RetrievalConfig } from "./configuration.js";

/** The per-run numbers that namespaces may set for themselves. */
export type EffectiveSettings = Required<NamespaceSettings>;

/**
 * Settings for a question over several namespaces: the widest wins (largest k, lowest threshold)
 * among the namespaces that set a field; the run's configuration where none does.
 */
export function widestSettings(config: RetrievalConfig, perNamespace: ReadonlyArray<NamespaceSettings | undefined>): EffectiveSettings {
  const set = perNamespace.filter((settings): settings is NamespaceSettings => settings !== undefined);
  const largest = (field: keyof NamespaceSettings, fallback: number) => pick(set, field, fallback, Math.max);
  const lowest = (field: keyof NamespaceSettings, fallback: number) => pick(set, field, fallback, Math.min);
  return {
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
