/**
 * The names of the retrieval presets (their settings are in presets.ts). Apart from the configuration
 * so that the command line can offer them as choices without loading the graph and its libraries.
 */
export const PRESET_NAMES = ["full", "dense", "lexical", "symbolic", "union", "no-plan", "no-reflect", "knowledge-base"] as const;
export type PresetName = (typeof PRESET_NAMES)[number];
